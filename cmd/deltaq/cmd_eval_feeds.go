package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/feedseval"
	"github.com/deltaq/deltaq/eval/feedtrace"
	"github.com/deltaq/deltaq/eval/report"
)

func (a *app) newEvalFeedsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "feeds --feeds DIR --out DIR [--learn-weeks N] [--per-day 1,2,4,8] [--crawl-weeks N]",
		Short: "Feed polling on real posting times: Sia & Cho's allocation and placement, CGM age/freshness, WIC (trace-driven)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, out, func(c *configs.Config) map[string][]string {
				return map[string][]string{"feeds": {c.Eval.Feeds.Feeds}}
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
			tr, err := feedtrace.Load(cmd.Context(), cfg.Eval.Feeds.Feeds)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "feeds: %d feeds, %d postings\n", len(tr.Feeds), tr.Postings())
			p := a.tracker()
			sum, err := feedseval.Run(cmd.Context(), cfg.Eval.Feeds, cfg.Feeds, tr, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			if w := cfg.Eval.Feeds.CrawlWeeks; w > 0 {
				cc := feedseval.CrawlConfigs{Crawler: cfg.Crawler, Frontier: cfg.Frontier, Repo: cfg.Repo}
				c, err := feedseval.CrawlCheck(cmd.Context(), cfg.Eval.Feeds, cfg.Feeds, cc, tr, w, 1, cfg.Eval.Feeds.CrawlItems, p)
				if err != nil {
					return interrupted(cmd.Context(), p, err)
				}
				sum.Crawl = &c
			}
			if err := sum.Write(out, cfg.Eval.Feeds); err != nil {
				return err
			}
			for _, t := range sum.Targets() {
				a.printTarget(t.Name, t.Met, t.Measured)
			}
			fmt.Fprintf(a.stdout, "%d runs in %s; report: %s\n", len(sum.Results), sum.Elapsed.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().String("feeds", "", "posting trace folder (eval.feeds.feeds)")
	cmd.Flags().Int("learn-weeks", 0, "weeks learned before evaluating (eval.feeds.learn_weeks)")
	cmd.Flags().Float64Slice("per-day", nil, "budgets, polls per feed per day (eval.feeds.per_day)")
	cmd.Flags().Uint64("seed", 0, "first seed (eval.feeds.seed)")
	cmd.Flags().Int("seeds", 0, "seeds each run is repeated with (eval.feeds.seeds)")
	cmd.Flags().Bool("relearn", false, "also re-learn weekly (eval.feeds.relearn)")
	cmd.Flags().Bool("hindsight", false, "also plan on models fitted to the evaluation weeks, a bound (eval.feeds.hindsight)")
	cmd.Flags().Int("crawl-weeks", 0, "weeks played through the real crawler, 0 for none (eval.feeds.crawl_weeks)")
	bind(cmd.Flags(), map[string]string{
		"feeds": "eval.feeds.feeds", "learn-weeks": "eval.feeds.learn_weeks", "per-day": "eval.feeds.per_day",
		"seed": "eval.feeds.seed", "seeds": "eval.feeds.seeds", "relearn": "eval.feeds.relearn", "hindsight": "eval.feeds.hindsight",
		"crawl-weeks": "eval.feeds.crawl_weeks",
	})
	return cmd
}

// printTarget prints one pass/fail bar of an evaluation.
func (a *app) printTarget(name string, met bool, measured string) {
	verdict := "not met"
	if met {
		verdict = "met"
	}
	fmt.Fprintf(a.stdout, "%s: %s (%s)\n", name, verdict, measured)
}
