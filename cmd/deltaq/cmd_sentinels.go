package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/sentineleval"
)

func (a *app) newEvalSentinelsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "sentinels --archive DIR --out DIR [--sentinels 5000,50000] [--dist uniform,zipf] [--groups none,5,10,100]",
		Short: "WebCQ sentinels: throughput against group size, install cost, bytes read, detection accuracy per type (WebCQ §7)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, out, func(c *configs.Config) map[string][]string {
				in := map[string][]string{"archive": {c.Eval.Sentinels.Archive}}
				if c.Eval.Sentinels.AccuracyPages > 0 { // else the accuracy table is left out
					in["accuracy-archives"] = c.Eval.Sentinels.AccuracyArchives
				}
				return in
			})
			if err != nil {
				return err
			}
			p := a.tracker()
			sum, err := sentineleval.Run(cmd.Context(), cfg.Eval.Sentinels, out, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			for _, n := range cfg.Eval.Sentinels.Sentinels {
				for _, d := range cfg.Eval.Sentinels.Dists {
					for _, g := range cfg.Eval.Sentinels.Groups {
						if s, ok := sum.Speedups[fmt.Sprintf("%d/%s/%s", n, d, g)]; ok && g != "none" {
							fmt.Fprintf(a.stdout, "N=%d %s group %s: ×%.1f the ungrouped throughput\n", n, d, g, s)
						}
					}
				}
			}
			fmt.Fprintf(a.stdout, "took %s; report: %s\n", sum.Took.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().String("archive", "", "archive replayed for throughput (eval.sentinels.archive)")
	cmd.Flags().IntSlice("sentinels", nil, "numbers of sentinels (eval.sentinels.sentinels)")
	cmd.Flags().StringSlice("dist", nil, "uniform, zipf (eval.sentinels.dists)")
	cmd.Flags().StringSlice("groups", nil, "none or sentinels per page (eval.sentinels.groups)")
	cmd.Flags().Int("accuracy-pages", 0, "pages per archive for the accuracy table (eval.sentinels.accuracy_pages)")
	cmd.Flags().StringSlice("accuracy-archives", nil, "archives for the accuracy table (eval.sentinels.accuracy_archives)")
	cmd.Flags().Int("week", 0, "install week (eval.sentinels.week)")
	cmd.Flags().Uint64("seed", 0, "seed (eval.sentinels.seed)")
	bind(cmd.Flags(), map[string]string{
		"archive": "eval.sentinels.archive", "sentinels": "eval.sentinels.sentinels", "dist": "eval.sentinels.dists",
		"groups": "eval.sentinels.groups", "accuracy-pages": "eval.sentinels.accuracy_pages",
		"accuracy-archives": "eval.sentinels.accuracy_archives", "seed": "eval.sentinels.seed", "week": "eval.sentinels.week",
	})
	return cmd
}
