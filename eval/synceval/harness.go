package synceval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/clock"
	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// week is the replay's period: one archive week, the budget period of B.
const week = 7 * 24 * time.Hour

// oneBatch is index.batch_size in the harness: every week's change feed
// is applied as one Bleve batch (the thesis's batch of re-downloads,
// §4.6.2), so the ΔQ_A measurement does not depend on where batch
// boundaries happened to fall in a crawl whose fetches run in parallel.
const oneBatch = 100000

// harness is what every run over one archive shares: the archive, its
// analysed corpus, the filtered workload, the ideal side of eq. 4.5 and
// the week-0 checkpoint every run starts from.
type harness struct {
	cfg     Config
	arch    *archive.Archive
	c       *corpus
	wl      *workload
	model   model            // what a query means (eval.sync.semantics)
	queries []querylog.Query // wl as a query log, for the index's Q′
	ideal   *ideal
	// work holds the indexes: base/index (week 0) and run-NNN/index.
	work string
	// mem holds the repositories: week0/repo and run-NNN/repo. They live
	// in memory: an evaluation needs no durability, and the crawler syncs
	// every commit, which on a disk costs more than the crawl itself.
	mem vfs.FS
	// baseDB is week 0's repository, kept open so that every run starts
	// from a checkpoint of it (repo.DB.Checkpoint: hard-linked tables).
	baseDB *repo.DB
	// The week-0 crawl, and μ(p) of each archive URL over its answers.
	base       Week0Summary
	baseStakes []float64
	// whole is every page's history from the all-pages run, which the
	// policies estimate from when eval.sync.history is "whole".
	whole map[string]pageHistory
	// prog counts weeks and runs for the progress line (nil: none).
	prog *tracker.Tracker
}

// env is one run's components, each with its own directories and replay
// server, driven week by week on a manual clock.
type env struct {
	h     *harness
	spec  runSpec
	rs    *replay.Server
	srv   *httptest.Server
	clk   *clock.Manual
	db    *repo.DB
	cr    *crawler.Crawler
	fr    *frontier.Frontier
	ix    *index.Index
	local *localAnswers
	// mu is the importance μ(p) of each archive URL (by URL id) under the
	// workload over the local index, for EBR and LambdaCrawl (localAnswers.importance).
	mu []float64
	// took is the wall time spent in each stage of the weekly loop.
	took stageTimes
	// yieldErr is the first error recording a discovery yield (split.go).
	yieldErr error
}

// stageTimes is a run's wall time by stage of the weekly loop.
type stageTimes struct {
	Plan, Crawl, Index, Compact, Rank time.Duration
}

func (s *stageTimes) add(o stageTimes) {
	s.Plan += o.Plan
	s.Crawl += o.Crawl
	s.Index += o.Index
	s.Compact += o.Compact
	s.Rank += o.Rank
}

// since adds the time since start to *d and returns now.
func since(d *time.Duration, start time.Time) time.Time {
	now := time.Now()
	*d += now.Sub(start)
	return now
}

// budgetAll is B for the run that re-fetches everything every week: more
// than every URL the archive ever has (plus its sitemap).
func (h *harness) budgetAll() int { return 2*len(h.c.urls) + 16 }

// open starts a run's components on dir/repo in memory and dir/index
// under the work directory (checkpoints of week 0, or empty for the
// week-0 crawl).
func (h *harness) open(ctx context.Context, dir string, spec runSpec) (e *env, err error) {
	e = &env{h: h, spec: spec, mu: make([]float64, len(h.c.urls))}
	defer func() {
		if err != nil {
			e.close()
			e = nil
		}
	}()
	if e.rs, err = replay.New([]*archive.Archive{h.arch}, replay.Options{}); err != nil {
		return e, fmt.Errorf("synceval: replay: %w", err)
	}
	e.srv = httptest.NewServer(e.rs)
	_, port, err := net.SplitHostPort(e.srv.Listener.Addr().String())
	if err != nil {
		return e, fmt.Errorf("synceval: replay address: %w", err)
	}
	e.clk = clock.NewManual(h.c.dates[0])

	ccfg := h.cfg.Crawler
	ccfg.AllowPrivate = true
	ccfg.Sitemaps = true
	ccfg.Resolve = append(slices.Clone(ccfg.Resolve), h.c.host+"=127.0.0.1:"+port)
	ccfg.Politeness.Overrides = append(slices.Clone(ccfg.Politeness.Overrides),
		crawler.HostOverride{Host: h.c.host, MinDelay: 0, PerHost: h.cfg.CrawlParallel})
	ccfg.Politeness.Global = h.cfg.CrawlParallel

	fcfg := h.frontierConfig(spec)

	icfg := h.cfg.Index
	icfg.BatchSize = oneBatch

	rcfg := h.cfg.Repo
	if spec.All {
		// Fig. 4.3 and eval.sync.history "whole" need every
		// re-download's fetch record and ΔQ_A.
		rcfg.FetchLogKept = max(rcfg.FetchLogKept, h.c.weeks()+1)
		rcfg.StatsKept = max(rcfg.StatsKept, h.c.weeks()+1)
	}

	if e.db, err = repo.Open(filepath.Join(dir, "repo"), rcfg, repo.Options{FS: h.mem}); err != nil {
		return e, err
	}
	copts, fopts := crawler.Options{Clock: e.clk}, frontier.Options{Clock: e.clk}
	if err := e.discoveryWiring(ctx, &copts, &fopts); err != nil {
		return e, err
	}
	if e.cr, err = crawler.New(ccfg, e.db, copts); err != nil {
		return e, err
	}
	policy, err := frontier.NewPolicy(spec.Policy, fcfg, e.importance)
	if err != nil {
		return e, err
	}
	if h.whole != nil && !spec.All {
		policy = wholeHistory{Policy: policy, pages: h.whole}
	}
	if e.fr, err = frontier.New(ctx, e.db, fcfg, e.cr.Gate(), policy, fopts); err != nil {
		return e, err
	}
	if e.ix, err = index.Open(filepath.Join(h.work, dir, "index"), icfg, e.db, index.Options{Clock: e.clk.Now, Workload: h.queries, MergeOnlyOnCompact: true}); err != nil {
		return e, err
	}
	e.local = newLocalAnswers(h)
	if err := e.local.load(ctx, e.db); err != nil {
		return e, err
	}
	return e, nil
}

// seeded reports whether policy's runs draw at random, so that they are
// repeated with eval.sync.seeds seeds: deltaq unless it ranks by its
// posterior means alone, as frontierConfig sets it up (with hindsight it
// draws nothing). The other policies plan the same from the same history.
func (h *harness) seeded(policy string) bool {
	return h.frontierConfig(runSpec{Policy: policy}).DrawsAtRandom()
}

// frontierConfig is the frontier of one run: the configured one with the
// run's policy, τ, budget and split.
func (h *harness) frontierConfig(spec runSpec) frontier.Config {
	fcfg := h.cfg.Frontier
	fcfg.Policy = spec.Policy
	fcfg.Tau = spec.Tau
	if spec.Seeded {
		fcfg.Seed = spec.Seed
	}
	fcfg.Budget = frontier.BudgetConfig{Fetches: spec.Budget, Period: week}
	fcfg.Split = h.frontierSplit(spec.Split)
	fcfg.Spread = false
	// One host holds every page: refill its queue from Pebble in large
	// steps (each refill scans past the entries already dequeued).
	fcfg.HostBuffer = 1024
	// The replay's sitemap dates each page by the week its archived copy
	// changed: read each week, it would tell the deltaq policy, and no
	// other, the true change of every page, fetched or not. Every policy
	// learns from its own page re-downloads alone.
	fcfg.SitemapLastMod = false
	if h.whole != nil {
		// Estimates from every re-download of the archive (§4.7.2). No
		// page's estimate depends on the run's own re-downloads, so there
		// is no §7.2 trap to explore out of: deltaq ranks by its
		// posterior means.
		fcfg.Window = max(fcfg.Window, h.c.weeks())
		fcfg.Exploration = "mean"
	}
	return fcfg
}

// close stops the run's components.
func (e *env) close() error {
	var errs []error
	if e.ix != nil {
		errs = append(errs, e.ix.Close())
	}
	if e.db != nil {
		errs = append(errs, e.db.Close())
	}
	if e.srv != nil {
		e.srv.Close()
	}
	return errors.Join(errs...)
}

// importance is μ(p) for EBR and LambdaCrawl (frontier.Importance).
func (e *env) importance(url string) float64 {
	u, ok := e.h.c.byURL[url]
	if !ok {
		return 0
	}
	return e.mu[u]
}

// crawl fetches until the frontier drains (the week's budget spent or
// nothing left to fetch) and returns the page fetches committed and how
// many of them found the page changed.
func (e *env) crawl(ctx context.Context) (fetched, changed int, err error) {
	// With a discovery share the crawl admits new URLs and credits their
	// finders: it commits in rounds, in queue order (split.go).
	sum, err := e.cr.Run(ctx, e.fr, crawler.RunOptions{Drain: true, DrainHorizon: 0, Rounds: e.spec.Split != ""})
	if err != nil {
		return 0, 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	return int(sum.Fetched()), int(sum.Changed), nil
}

// settle brings the index up to the repository (measuring ΔQ_A, §4.6.2),
// makes its BM25 statistics those of its content (compact), ranks every
// query on it and returns Q(W^L) against week w. Under both semantics
// the index's ΔQ_A measurement and its histograms H_q score with Bleve's
// statistics, whose average field length is the text field's vocabulary
// summed over the segments: without the (real or assumed) compaction
// they would depend on how many weekly segments the run has piled up;
// under SemanticsThesis so would A(q, W^L).
func (e *env) settle(ctx context.Context, w int) (float64, error) {
	t := time.Now()
	seq := e.ix.Watermark()
	if _, err := e.ix.CatchUp(ctx); err != nil {
		return 0, err
	}
	if err := e.local.follow(ctx, e.db, seq); err != nil {
		return 0, err
	}
	t = since(&e.took.Index, t)
	if err := e.compact(ctx); err != nil {
		return 0, err
	}
	t = since(&e.took.Compact, t)
	if err := e.local.rank(ctx, e.ix); err != nil {
		return 0, err
	}
	e.local.importance(e.mu)
	since(&e.took.Rank, t)
	return e.h.ideal.quality(w, e.local.answers), nil
}

// compact makes the index's BM25 statistics those of its content alone.
// When the corpus accounts for every indexed copy, the vocabulary of the
// compacted index is known (ownStats.vocab) and the index assumes the
// compaction (index.AssumeCompacted) instead of rewriting every segment;
// otherwise it compacts.
func (e *env) compact(ctx context.Context) error {
	own := &e.local.own
	if !own.lost {
		n, err := e.ix.Count()
		if err != nil {
			return err
		}
		if uint64(own.n) == n {
			return e.ix.AssumeCompacted(own.vocab)
		}
	}
	return e.ix.Compact(ctx)
}

// prepareBase crawls week 0 completely into a fresh repository and index
// (sitemaps on, so pages no link reaches are found too) and compacts the
// index. The repository stays open as baseDB and the index is copied to
// work/base/index: every run starts from checkpoints of both.
func (h *harness) prepareBase(ctx context.Context, progress io.Writer) error {
	start := time.Now()
	// A work directory reused after an interrupted evaluation may hold an
	// old week-0 index; the repository is new (in memory), so must it be.
	if err := os.RemoveAll(filepath.Join(h.work, "week0")); err != nil {
		return fmt.Errorf("synceval: %w", err)
	}
	e, err := h.open(ctx, "week0", runSpec{Policy: "uniform", Budget: h.budgetAll()})
	if err != nil {
		return err
	}
	defer func() {
		if e.db != h.baseDB {
			e.close()
		}
	}()
	if _, err := e.cr.Seed(ctx, e.fr, []string{"http://" + h.c.host + "/"}); err != nil {
		return err
	}
	n, _, err := e.crawl(ctx)
	if err != nil {
		return err
	}
	q, err := e.settle(ctx, 0)
	if err != nil {
		return err
	}
	// Every run starts from a copy of this index: it is compacted for
	// real, so that its statistics need no assumption (env.compact).
	if err := e.ix.Compact(ctx); err != nil {
		return err
	}
	indexed, err := e.ix.Count()
	if err != nil {
		return err
	}
	h.base = Week0Summary{Fetched: n, Indexed: indexed, Live: len(h.c.live[0]), Q: q}
	h.baseStakes = slices.Clone(e.mu)
	if err := e.ix.Close(); err != nil {
		return err
	}
	e.ix = nil
	// A reused work directory may hold an older base: CopyFS does not
	// overwrite.
	dst := filepath.Join(h.work, "base", "index")
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("synceval: %w", err)
	}
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(h.work, "week0", "index"))); err != nil {
		return fmt.Errorf("synceval: copy the week-0 index: %w", err)
	}
	if err := os.RemoveAll(filepath.Join(h.work, "week0")); err != nil {
		return fmt.Errorf("synceval: %w", err)
	}
	e.srv.Close()
	h.baseDB = e.db
	h.base.Took = time.Since(start)
	fmt.Fprintf(progress, "%s: week 0 crawled: %d fetches, %d pages indexed of %d live, Q = %.6f (%v)\n",
		h.c.name, n, indexed, h.base.Live, q, h.base.Took.Round(time.Millisecond))
	return nil
}

// close releases what the harness holds.
func (h *harness) close() error {
	if h.baseDB == nil {
		return nil
	}
	err := h.baseDB.Close()
	h.baseDB = nil
	return err
}
