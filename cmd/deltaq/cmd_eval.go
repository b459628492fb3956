package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/eval/adsim"
	"github.com/deltaq/deltaq/eval/discoveryeval"
	"github.com/deltaq/deltaq/eval/ranksim"
)

func (a *app) newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run an offline evaluation; each writes report.md, results.csv and plots into --out",
	}
	cmd.AddCommand(a.newEvalDiscoveryCmd(), a.newEvalRankingCmd(), a.newEvalAdsCmd())
	return cmd
}

func (a *app) newEvalRankingCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "ranking --out DIR [--quick]",
		Short: "Randomized rank promotion: the §5.7 simulator beside the §5.6 analytic model, figs. 5.4–5.11 (thesis ch. 5)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd, map[string]string{"quick": "eval.ranking.quick", "seed": "eval.ranking.seed"})
			if err != nil {
				return err
			}
			if out == "" {
				return errors.New("--out: an output directory is required")
			}
			sum, err := ranksim.Run(cmd.Context(), cfg.Eval.Ranking, out, a.stderr)
			if err != nil {
				return err
			}
			for _, t := range sum.Targets {
				verdict := "not met"
				if t.Met {
					verdict = "met"
				}
				fmt.Fprintf(a.stdout, "%s: %s (%s)\n", t.Name, verdict, t.Measured)
			}
			fmt.Fprintf(a.stdout, "%d simulations, %d analyses in %s; report: %s\n", sum.Runs, sum.Analyses,
				sum.Elapsed.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().Bool("quick", false, "scaled-down community (eval.ranking.quick)")
	cmd.Flags().Uint64("seed", 1, "seed (eval.ranking.seed)")
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

func (a *app) newEvalAdsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "ads --log FILE --out DIR [--ctr FILE]",
		Short: "Ads under unknown CTRs and budgets: GREEDY against the BMIX family, figs. 6.3–6.6 (thesis §6.7–6.8)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd, map[string]string{"log": "eval.ads.log", "ctr": "eval.ads.ctr_file", "seed": "eval.ads.seed"})
			if err != nil {
				return err
			}
			if out == "" {
				return errors.New("--out: an output directory is required")
			}
			sum, err := adsim.Run(cmd.Context(), cfg.Eval.Ads, out, a.stderr)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d phrases, %d advertisers (%d budgeted), %d ads, %d days × %d orders\n",
				sum.Phrases, sum.Advertisers, sum.Budgeted, sum.Ads, sum.Days, sum.Repetitions)
			for _, t := range sum.Totals {
				fmt.Fprintf(a.stdout, "%-8s revenue at C = 1: %.0f ± %.0f\n", t.Policy, t.Total.Mean, t.Total.SD)
			}
			fmt.Fprintf(a.stdout, "report: %s\n", filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().String("log", "", "query log (eval.ads.log)")
	cmd.Flags().String("ctr", "", "click-through-rate table (eval.ads.ctr_file)")
	cmd.Flags().Uint64("seed", 1, "seed (eval.ads.seed)")
	return cmd
}
