package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/eval/adsim"
	"github.com/deltaq/deltaq/eval/discoveryeval"
	"github.com/deltaq/deltaq/eval/ranksim"
	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/eval/trec"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/atomicfile"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/progress"
)

func (a *app) newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run an offline evaluation; each writes report.md, results.csv and plots into --out",
	}
	cmd.AddCommand(a.newEvalDiscoveryCmd(), a.newEvalRankingCmd(), a.newEvalAdsCmd(), a.newEvalIRCmd(), a.newEvalSyncCmd(), a.newEvalRelationCmd(), a.newEvalFeedsCmd(), a.newEvalMonitorCmd(), a.newEvalSentinelsCmd())
	return cmd
}

func (a *app) newEvalRankingCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "ranking --out DIR [--quick]",
		Short: "Randomized rank promotion: the §5.7 simulator beside the §5.6 analytic model, figs. 5.4–5.11 (thesis ch. 5)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, out)
			if err != nil {
				return err
			}
			p := a.tracker()
			sum, err := ranksim.Run(cmd.Context(), cfg.Eval.Ranking, out, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			for _, t := range sum.Targets {
				a.printTarget(t.Name, t.Met, t.Measured)
			}
			fmt.Fprintf(a.stdout, "%d simulations, %d analyses in %s; report: %s\n", sum.Runs, sum.Analyses,
				sum.Elapsed.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().Bool("quick", false, "scaled-down community (eval.ranking.quick)")
	cmd.Flags().Uint64("seed", 0, "seed (eval.ranking.seed)")
	bind(cmd.Flags(), map[string]string{
		"quick": "eval.ranking.quick",
		"seed":  "eval.ranking.seed",
	})
	return cmd
}

func (a *app) newEvalSyncCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "sync --archive DIR --log FILE --out DIR [--policies a,b] [--budgets x,y]",
		Short: "Re-download policies under a weekly budget: repository quality Q per week, fig. 4.4 and 4.3 (thesis §4.7)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if out == "" {
				return errors.New("--out: an output directory is required")
			}
			p := a.tracker()
			sum, err := synceval.Run(cmd.Context(), cfg.Eval.Sync, out, p)
			if err != nil && sum != nil {
				return err // interrupted; the finished runs were written
			}
			if err != nil {
				return interrupted(cmd.Context(), p, err)
			}
			for _, r := range sum.Best {
				fmt.Fprintf(a.stdout, "%-12s B=%-5d mean Q %.6f\n", synceval.Label(r), r.Budget, r.MeanQ)
			}
			if t := sum.Target; t.Baseline != "" {
				if t.Reached {
					fmt.Fprintf(a.stdout, "deltaq reaches %s's mean Q at B=%d (%.6f) with B=%.1f: ratio %.3f\n",
						t.Baseline, t.MaxBudget, t.BaselineQ, t.Budget, t.Ratio)
				} else {
					fmt.Fprintf(a.stdout, "deltaq does not reach %s's mean Q at B=%d (%.6f) at any budget swept\n",
						t.Baseline, t.MaxBudget, t.BaselineQ)
				}
			}
			fmt.Fprintf(a.stdout, "sweep %s, whole evaluation %s; report: %s\n", sum.SweepTook.Round(time.Second),
				sum.Took.Round(time.Second), filepath.Join(out, "report.md"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().String("archive", "", "archive directory (eval.sync.archive)")
	cmd.Flags().String("log", "", "query log (eval.sync.log)")
	cmd.Flags().StringSlice("policies", nil, "policies compared (eval.sync.policies)")
	cmd.Flags().IntSlice("budgets", nil, "re-downloads per week (eval.sync.budgets)")
	cmd.Flags().Float64Slice("taus", nil, "τ for SBR and EBR (eval.sync.taus)")
	cmd.Flags().Uint64("seed", 0, "seed of the workload sample (eval.sync.seed)")
	cmd.Flags().String("history", "", "whole or own (eval.sync.history)")
	cmd.Flags().String("pages", "", "persistent or all (eval.sync.pages)")
	cmd.Flags().Int("workers", 0, "runs at once, 0 = one per CPU (eval.sync.workers)")
	bind(cmd.Flags(), map[string]string{
		"archive":  "eval.sync.archive",
		"log":      "eval.sync.log",
		"policies": "eval.sync.policies",
		"budgets":  "eval.sync.budgets",
		"taus":     "eval.sync.taus",
		"seed":     "eval.sync.seed",
		"history":  "eval.sync.history",
		"pages":    "eval.sync.pages",
		"workers":  "eval.sync.workers",
	})
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
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if len(dirs) == 0 {
				return errors.New("--archive: at least one archive directory is required")
			}
			if out == "" {
				return errors.New("--out: an output directory is required")
			}
			p := a.tracker()
			sum, err := discoveryeval.Run(cmd.Context(), cfg.Eval.Discovery, dirs, out, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
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
			cfg, err := a.loadEval(cmd, out)
			if err != nil {
				return err
			}
			p := a.tracker()
			sum, err := adsim.Run(cmd.Context(), cfg.Eval.Ads, out, p)
			if err != nil {
				return interrupted(cmd.Context(), p, err)
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
	cmd.Flags().Uint64("seed", 0, "seed (eval.ads.seed)")
	bind(cmd.Flags(), map[string]string{
		"log":  "eval.ads.log",
		"ctr":  "eval.ads.ctr_file",
		"seed": "eval.ads.seed",
	})
	return cmd
}

func (a *app) newEvalIRCmd() *cobra.Command {
	var dataDir, topicsFile, qrelsFile, out string
	var depth int
	cmd := &cobra.Command{
		Use:   "ir --data DIR --topics FILE --qrels FILE --out DIR",
		Short: "Run the searcher over TREC topics and score it: nDCG@10, MAP, MRR, P@10, R@100 (trec_eval definitions)",
		Long: `ir searches the index under --data for every topic (id<TAB>query lines),
ranking by relevance, writes a TREC run file (docno = page URL) and scores
it against the qrels with trec_eval's definitions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			for flag, v := range map[string]string{"--topics": topicsFile, "--qrels": qrelsFile, "--out": out} {
				if v == "" {
					return fmt.Errorf("%s: required", flag)
				}
			}
			if depth < 100 || depth > 10000 {
				return fmt.Errorf("--depth = %d: must be in [100, 10000] (R@100 needs 100)", depth)
			}
			topics, err := readFile(topicsFile, trec.ReadTopics)
			if err != nil {
				return err
			}
			qrels, err := readFile(qrelsFile, trec.ReadQrels)
			if err != nil {
				return err
			}
			logger := a.logger(cfg)
			db, err := openRepo(dataDir, cfg, logger)
			if err != nil {
				return err
			}
			defer db.Close()
			ix, err := index.Open(indexPath(dataDir), cfg.Index, db, index.Options{Logger: logger})
			if err != nil {
				return err
			}
			defer ix.Close()
			ctx := cmd.Context()
			if _, err := ix.CatchUp(ctx); err != nil {
				return err
			}
			run := trec.Run{}
			skipped, searched := 0, 0
			p := a.tracker()
			p.Stage("ir", len(topics), 1, "topic")
			for _, t := range topics {
				if ctx.Err() != nil {
					break // interrupted: score and write the topics searched
				}
				searched++
				p.Step()
				p.RunDone()
				q, err := index.ParseQuery(t.Query, cfg.Index.Limits())
				if err != nil {
					skipped++
					continue
				}
				res, err := ix.Search(ctx, q, 0, depth)
				if err != nil && ctx.Err() != nil {
					searched--
					break
				}
				if err != nil {
					return err
				}
				hits := make([]trec.Hit, len(res.Hits))
				for i, h := range res.Hits {
					hits[i] = trec.Hit{Doc: h.URL, Score: h.Score}
				}
				run[t.ID] = hits
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			if err := atomicfile.Write(filepath.Join(out, "run.txt"), func(w io.Writer) error { return run.Write(w, "deltaq") }); err != nil {
				return err
			}
			m := trec.Evaluate(run, qrels)
			tb := report.NewTable("Retrieval effectiveness (trec_eval definitions)", "topics", "nDCG@10", "MAP", "MRR", "P@10", "R@100")
			tb.Add(m.Evaluated, m.Mean.NDCG10, m.Mean.MAP, m.Mean.MRR, m.Mean.P10, m.Mean.R100)
			tb.Note("%d topics read, %d not parseable as queries, %d judged topics without a run (left out of the means, as trec_eval does without -c).",
				len(topics), skipped, len(m.Missing))
			header := fmt.Sprintf("# deltaq eval ir\n\nIndex: %s (%s scoring); topics: %s; qrels: %s; depth %d.", dataDir, cfg.Index.Scoring, topicsFile, qrelsFile, depth)
			if searched < len(topics) {
				header += fmt.Sprintf("\n\n**Partial: interrupted after %d of %d topics; the means are over the topics searched.**", searched, len(topics))
			}
			if err := report.WriteMarkdown(filepath.Join(out, "report.md"), header, tb); err != nil {
				return err
			}
			if err := tb.WriteCSV(filepath.Join(out, "results.csv")); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d topics: nDCG@10 %.4f  MAP %.4f  MRR %.4f  P@10 %.4f  R@100 %.4f\nreport: %s\n",
				m.Evaluated, m.Mean.NDCG10, m.Mean.MAP, m.Mean.MRR, m.Mean.P10, m.Mean.R100, filepath.Join(out, "report.md"))
			if searched < len(topics) {
				return fmt.Errorf("eval ir: interrupted: %d of %d topics searched, partial report in %s; missing: the other %d topics: %w",
					searched, len(topics), out, len(topics)-searched, ctx.Err())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory whose index is searched")
	cmd.Flags().StringVar(&topicsFile, "topics", "", "topics file: id<TAB>query lines")
	cmd.Flags().StringVar(&qrelsFile, "qrels", "", "qrels file: topic iteration docno relevance")
	cmd.Flags().StringVar(&out, "out", "", "output directory")
	cmd.Flags().IntVar(&depth, "depth", 1000, "results retrieved per topic")
	return cmd
}

// readFile opens path and parses it with read.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// tracker is the progress reporter of an evaluation, on stderr.
func (a *app) tracker() *progress.Tracker {
	return progress.New(a.stderr, clock.Real{}, progress.DefaultEvery)
}

// interrupted explains an evaluation stopped by a signal before it wrote
// anything: how far it got, and that its report needs every run.
func interrupted(ctx context.Context, p *progress.Tracker, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%v: %w", err, ctx.Err())
	}
	return fmt.Errorf("interrupted (%s); nothing written, the report needs every run: %w", p.Status(), err)
}
