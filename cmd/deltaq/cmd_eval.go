package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/eval/discoveryeval"
)

func (a *app) newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run an offline evaluation; each writes report.md, results.csv and plots into --out",
	}
	cmd.AddCommand(a.newEvalDiscoveryCmd())
	return cmd
}

func (a *app) newEvalDiscoveryCmd() *cobra.Command {
	var dirs []string
	var out string
	cmd := &cobra.Command{
		Use:   "discovery --archive DIR... --out DIR",
		Short: "Discovery of new pages by re-fetching old ones: Table 3.2, figs. 3.5–3.6, §3.6.5 (thesis ch. 3)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd, nil)
			if err != nil {
				return err
			}
			if len(dirs) == 0 {
				return errors.New("--archive: at least one archive directory is required")
			}
			if out == "" {
				return errors.New("--out: an output directory is required")
			}
			sum, err := discoveryeval.Run(cmd.Context(), cfg.Eval.Discovery, dirs, out, a.stderr)
			if err != nil {
				return err
			}
			for _, site := range sum.Archives {
				fmt.Fprintf(a.stdout, "%s: %d weeks evaluated\n", site.Name, site.Weeks)
			}
			fmt.Fprintf(a.stdout, "done in %s; report: %s\n", sum.Took.Round(time.Millisecond), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&dirs, "archive", nil, "archive directory (repeatable)")
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	return cmd
}
