package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/monitoreval"
	"github.com/deltaq/deltaq/eval/report"
)

func (a *app) newEvalMonitorCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "monitor --out DIR [--archive DIR]",
		Short: "WIC's timeliness-completeness trade-off on real weekly changes and a SYNTHETIC auction web (Pandey et al. §5)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, out, func(c *configs.Config) map[string][]string {
				return map[string][]string{"archive": {c.Eval.Monitor.Archive}}
			})
			if err != nil {
				return err
			}
			// Made before the run, so that a --out that cannot be made
			// fails now, not minutes later; removed again if left empty.
			tidy, err := report.OutDir(out)
			if err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			defer tidy()
			p := a.tracker()
			sum, err := monitoreval.Run(cmd.Context(), cfg.Eval.Monitor, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			if err := sum.Write(out, cfg.Eval.Monitor); err != nil {
				return err
			}
			for _, t := range sum.Targets(cfg.Eval.Monitor.FigureC) {
				a.printTarget(t.Name, t.Met, t.Measured)
			}
			fmt.Fprintf(a.stdout, "%d runs in %s; report: %s\n", len(sum.Results), sum.Elapsed.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().String("archive", "", "weekly archive (eval.monitor.archive)")
	cmd.Flags().Uint64("seed", 0, "seed (eval.monitor.seed)")
	bind(cmd.Flags(), map[string]string{"archive": "eval.monitor.archive", "seed": "eval.monitor.seed"})
	return cmd
}
