package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/adsim"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/discoveryeval"
	"github.com/deltaq/deltaq/eval/ireval"
	"github.com/deltaq/deltaq/eval/ranksim"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/eval/trec"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

func (a *app) newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run an offline evaluation; each writes report.md, results.csv and plots into --out",
	}
	cmd.AddCommand(a.newEvalDiscoveryCmd(), a.newEvalRankingCmd(), a.newEvalAdsCmd(), a.newEvalIRCmd(), a.newEvalSyncCmd(), a.newEvalRelationCmd(), a.newEvalFeedsCmd(), a.newEvalMonitorCmd(), a.newEvalSentinelsCmd(), a.newEvalFanoutCmd())
	return cmd
}

func (a *app) newEvalRankingCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "ranking --out DIR [--quick]",
		Short: "Randomized rank promotion: the §5.7 simulator beside the §5.6 analytic model, figs. 5.4–5.11 (thesis ch. 5)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, out, nil)
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
			cfg, err := a.loadEval(cmd, out, func(c *configs.Config) map[string][]string {
				return map[string][]string{"archive": {c.Eval.Sync.Archive}, "log": {c.Eval.Sync.Log}}
			})
			if err != nil {
				return err
			}
			p := a.tracker()
			sum, err := synceval.Run(cmd.Context(), cfg.Eval.Sync, out, p)
			if err != nil {
				// Interrupted, synceval writes the runs that finished and
				// says so (or that none had); only how far it got is added.
				if st := p.Status(); sum == nil && cmd.Context().Err() != nil && st != "" {
					return fmt.Errorf("interrupted (%s): %w", st, err)
				}
				return err
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
	cmd.Flags().Int("seeds", 0, "runs of a policy that draws at random, one per seed (eval.sync.seeds)")
	cmd.Flags().String("history", "", "whole or own (eval.sync.history)")
	cmd.Flags().String("pages", "", "persistent or all (eval.sync.pages)")
	cmd.Flags().String("semantics", "", "searcher or thesis (eval.sync.semantics)")
	cmd.Flags().StringSlice("splits", nil, "discovery shares of B and/or adaptive (eval.sync.splits)")
	cmd.Flags().Int("workers", 0, "runs at once, 0 = one per CPU (eval.sync.workers)")
	bind(cmd.Flags(), map[string]string{
		"archive":   "eval.sync.archive",
		"log":       "eval.sync.log",
		"policies":  "eval.sync.policies",
		"budgets":   "eval.sync.budgets",
		"taus":      "eval.sync.taus",
		"seed":      "eval.sync.seed",
		"seeds":     "eval.sync.seeds",
		"history":   "eval.sync.history",
		"pages":     "eval.sync.pages",
		"semantics": "eval.sync.semantics",
		"splits":    "eval.sync.splits",
		"workers":   "eval.sync.workers",
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
			cfg, err := a.loadEval(cmd, out, func(*configs.Config) map[string][]string {
				return map[string][]string{"archive": dirs}
			})
			if err != nil {
				return err
			}
			if len(dirs) == 0 {
				return errors.New("--archive: at least one archive directory is required")
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
			cfg, err := a.loadEval(cmd, out, func(c *configs.Config) map[string][]string {
				return map[string][]string{"log": {c.Eval.Ads.Log}, "ctr": {c.Eval.Ads.CTRFile}}
			})
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
	var f irFlags
	cmd := &cobra.Command{
		Use:   "ir --data DIR [--archive DIR] --topics FILE --qrels FILE --out DIR [--bare]",
		Short: "Score what users get against relevance judgements: nDCG@10, MAP, MRR, P@10, R@100 (trec_eval 9), judged@10",
		Long: `ir asks every topic (id<TAB>query lines) through the searcher deltaq serve
answers with (best-match retrieval, popularity blend, randomized promotion)
over the index under --data, writes TREC run files (docno = page URL) and
scores them against the qrels with trec_eval 9's definitions. Three
variants: relevance alone, the blend without promotion, and the ranking as
served (promotion averaged over --users simulated users). With --archive,
week 0 of the archive is first crawled into --data through a replay server
on loopback, with the real crawler and index (skipped if --data already
holds pages); without it, --data must hold a crawled repository. --order,
--blend-weight and --promotion override the ranking.* settings, as they
would for deltaq serve. --bare adds the baseline: bare Bleve BM25 with the
words ORed over the same pages. judged@10 is the share of the first 10
places that the qrels judge: an unjudged page counts as not relevant, so
compare variants whose judged@10 differ with care.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadEval(cmd, f.out, func(*configs.Config) map[string][]string {
				return map[string][]string{"archive": {f.archiveDir}} // --topics and --qrels are read below, their errors named
			})
			if err != nil {
				return err
			}
			if f.topicsFile == "" {
				return errors.New("--topics: a topics file (qid<TAB>query) is required")
			}
			if f.qrelsFile == "" {
				return errors.New("--qrels: a qrels file is required")
			}
			if err := ireval.CheckUsers(f.users); err != nil {
				return fmt.Errorf("--%w", err)
			}
			topics, err := readFile(f.topicsFile, trec.ReadTopics)
			if err != nil {
				return fmt.Errorf("--topics: %w", err)
			}
			qrels, err := readFile(f.qrelsFile, trec.ReadQrels)
			if err != nil {
				return fmt.Errorf("--qrels: %w", err)
			}
			return a.evalIR(cmd.Context(), cfg, f, topics, qrels)
		},
	}
	cmd.Flags().StringVar(&f.dataDir, "data", "", "data directory whose index is searched")
	cmd.Flags().StringVar(&f.archiveDir, "archive", "", "archive whose week 0 is crawled into --data first")
	cmd.Flags().StringVar(&f.topicsFile, "topics", "", "topics file: id<TAB>query lines")
	cmd.Flags().StringVar(&f.qrelsFile, "qrels", "", "qrels file: topic iteration docno relevance")
	cmd.Flags().StringVar(&f.out, "out", "", "output directory")
	cmd.Flags().IntVar(&f.depth, "depth", 100, "results kept per topic, 100..ranking.candidates")
	cmd.Flags().IntVar(&f.users, "users", 10, "simulated users per topic under promotion")
	cmd.Flags().BoolVar(&f.withBare, "bare", false, "also score bare Bleve BM25 (words ORed) on the same pages, as the baseline")
	cmd.Flags().String("order", "", "result order (ranking.order)")
	cmd.Flags().Float64("blend-weight", 0, "popularity weight (ranking.blend_weight)")
	cmd.Flags().String("promotion", "", "promotion rule (ranking.promotion.rule)")
	bind(cmd.Flags(), map[string]string{
		"order": "ranking.order", "blend-weight": "ranking.blend_weight", "promotion": "ranking.promotion.rule",
	})
	return cmd
}

// irFlags are the flags of deltaq eval ir.
type irFlags struct {
	dataDir, archiveDir, topicsFile, qrelsFile, out string
	depth, users                                    int
	withBare                                        bool
}

// evalIR crawls the archive's week 0 into the repository if asked, brings
// its index and PageRank up to date, and scores the searcher's variants
// (and with --bare the baseline) on the topics against the qrels.
func (a *app) evalIR(ctx context.Context, cfg *configs.Config, f irFlags, topics []trec.Topic, qrels trec.Qrels) error {
	logger := a.logger(cfg)
	// With --archive the pages are crawled into --data, which may be
	// new; without, they must be there already.
	open := openCrawledRepo
	if f.archiveDir != "" {
		open = openRepo
	}
	db, err := open(f.dataDir, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	if f.archiveDir != "" {
		if err := a.crawlArchive(ctx, f.archiveDir, db, cfg, logger); err != nil {
			return err
		}
	}
	ix, err := openIndex(f.dataDir, cfg, db, index.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer ix.Close()
	if _, err := ix.CatchUp(ctx); err != nil {
		return err
	}
	if err := ix.Compact(ctx); err != nil {
		return err
	}
	store, err := ranking.NewStore(db, cfg.Ranking, ranking.StoreOptions{Logger: logger})
	if err != nil {
		return err
	}
	if _, err := store.ComputePageRank(ctx); err != nil {
		return err
	}
	pages, err := ix.Count()
	if err != nil {
		return err
	}
	var bare *ireval.Bare
	if f.withBare {
		dir, err := os.MkdirTemp("", "deltaq-bare-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if bare, err = ireval.NewBare(ctx, filepath.Join(dir, "index"), db); err != nil {
			return err
		}
		defer bare.Close()
	}
	header := fmt.Sprintf("# deltaq eval ir\n\nIndex: %s, %d pages; topics: %s; qrels: %s; depth %d; index.retrieval %+v.",
		f.dataDir, pages, f.topicsFile, f.qrelsFile, f.depth, cfg.Index.Retrieval)
	sum, err := ireval.Run(ctx, ireval.Options{
		Retriever: web.Retriever{Index: ix, Limits: cfg.Index.Limits()}, Stats: store, Ranking: cfg.Ranking,
		Secret: []byte("deltaq eval ir: fixed promotion secret"), Topics: topics, Qrels: qrels,
		Depth: f.depth, Users: f.users, Bare: bare, Header: header, Logger: logger,
	}, f.out, a.tracker())
	if err != nil {
		return err
	}
	for _, v := range sum.Variants {
		fmt.Fprintf(a.stdout, "%s: %d topics: %s  refused %d\n", v.Name, sum.Judged, v.Mean, len(v.Refused))
	}
	fmt.Fprintf(a.stdout, "done in %s; report: %s\n", sum.Took.Round(time.Millisecond), filepath.Join(f.out, "report.md"))
	return nil
}

// crawlArchive crawls week 0 of the archive in dir into db through a
// replay server on loopback, unless db already holds pages: then they
// must be the archive's (its front page among them), or the evaluation
// would judge pages the qrels do not name, and a crawl of them that was
// interrupted (URLs still queued) is resumed, not judged part-done.
func (a *app) crawlArchive(ctx context.Context, dir string, db *repo.DB, cfg *configs.Config, logger *slog.Logger) error {
	ar, err := archive.Open(dir)
	if err != nil {
		return fmt.Errorf("--archive %s: %w", dir, err)
	}
	srv, err := replay.New([]*archive.Archive{ar}, replay.Options{Logger: logger})
	if err != nil {
		return err
	}
	held := false
	for page, err := range db.Pages(ctx) {
		if err != nil {
			return err
		}
		for _, h := range srv.Hosts() {
			if _, err := db.Page("http://" + h + "/"); err != nil {
				return fmt.Errorf("--data holds pages (%s, …) but not --archive %s's front page http://%s/ (%v): give an empty --data, or the one the archive was crawled into",
					page.URL, dir, h, err)
			}
		}
		held = true
		break
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("eval ir: replay server: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	ccfg := *cfg
	ccfg.Crawler.AllowPrivate = true
	var seeds []string
	for _, h := range srv.Hosts() {
		ccfg.Crawler.Resolve = append(slices.Clone(ccfg.Crawler.Resolve), h+"="+ln.Addr().String())
		ccfg.Crawler.Politeness.Overrides = append(slices.Clone(ccfg.Crawler.Politeness.Overrides),
			crawler.HostOverride{Host: h, MinDelay: 0, PerHost: 4})
		seeds = append(seeds, "http://"+h+"/")
	}
	cr, err := newCrawl(ctx, db, &ccfg, logger, nil, nil)
	if err != nil {
		return err
	}
	switch {
	case held && cr.f.Drained(drainHorizon):
		fmt.Fprintln(a.stderr, "eval ir: --data already holds the archive's pages; not crawling --archive again")
		return nil
	case held:
		// An earlier crawl into --data was interrupted: judging its
		// pages would score part of the archive as the whole.
		fmt.Fprintln(a.stderr, "eval ir: --data holds part of the archive's crawl, URLs still queued; resuming it")
	default:
		if _, err := cr.c.Seed(ctx, cr.f, seeds); err != nil {
			return err
		}
	}
	sum, err := cr.c.Run(ctx, cr.f, crawler.RunOptions{Drain: true, DrainHorizon: drainHorizon, Progress: a.stderr, ProgressEvery: time.Second})
	fmt.Fprint(a.stderr, sum)
	return err
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
	if st := p.Status(); st != "" {
		return fmt.Errorf("interrupted (%s); nothing written, the report needs every run: %w", st, err)
	}
	return fmt.Errorf("interrupted; nothing written, the report needs every run: %w", err)
}
