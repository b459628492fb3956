package synceval

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/index"
	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/internal/querylog"
)

// Summary is what Run measured on one archive.
type Summary struct {
	Archive  string
	Workload WorkloadSummary
	// Week0 is the fully synchronized repository every run starts from.
	Week0 Week0Summary
	// Runs are every run of the sweep, in sweep order (policies, budgets,
	// taus as configured; the all-pages run last).
	Runs []RunSummary
	// Best is, per policy and budget, the run reported in the quality
	// table: the only one, or for SBR and EBR the best τ.
	Best []RunSummary
	// Target is deltaq against the best baseline (target.go).
	Target Target
	// Margins are deltaq against the best baseline at each budget, week
	// by week (target.go). In a split sweep Target and Margins compare the
	// runs at the first split of eval.sync.splits.
	Margins []Margin
	// SplitMargins are, in a split sweep, every run against the best fixed
	// split of its policy and budget (split.go).
	SplitMargins []SplitMargin
	// Forecast summarizes fig. 4.3 (zero value without the all-pages run).
	Forecast ForecastSummary
	// Took is the wall time of the whole evaluation; SweepTook that of
	// the policy × budget runs (with the all-pages run, which runs among
	// them, except under history "whole", where it goes first, alone),
	// Prepare that of reading the archive, the workload, the ideal side
	// and the week-0 crawl.
	Took, SweepTook, Prepare time.Duration
	Workers                  int
	// Missing names the runs an interrupted sweep did not finish; the
	// report then holds the finished runs only and says so.
	Missing []string
	// MaxRSS is the process's peak resident memory in bytes at the end
	// (0 where the system does not report it).
	MaxRSS int64
	// IdealBytes is the memory the ideal side of eq. 4.5 holds (quality.go).
	IdealBytes int
	// plots are the figures written, and those not, for report.md.
	plots plots
}

// WorkloadSummary describes the filtered workload (§4.7).
type WorkloadSummary struct {
	LogStrings  int     // distinct query strings in the log
	LogTotal    float64 // Σ counts
	NoTerms     int     // strings with no searchable token
	UnknownTerm int     // term lists with a term no archived page has
	NoMatch     int     // term lists no week-0 page matches
	Candidates  int     // term lists with a positive week-0 score
	Threshold   float64 // the knee (0 with filter "none")
	Kept        int     // queries kept
	KeptStrings int     // log strings they stand for
	KeptTotal   float64 // Σ f_q of the kept queries
	MultiTerm   int     // kept queries with more than one distinct term
	Terms       int     // |Q′|: distinct terms of the kept queries
	Sampled     bool    // capped by eval.sync.max_queries
	Filtered    int     // queries the filter kept, before the sample
}

// Week0Summary is the week-0 crawl: the fully synchronized repository
// every run starts from.
type Week0Summary struct {
	Fetched int     // pages fetched
	Indexed uint64  // documents in the index
	Live    int     // indexable pages of week 0
	Q       float64 // Q(W^L) at week 0: 1 when the crawl found everything
	Took    time.Duration
}

// RunSummary is one run.
type RunSummary struct {
	Policy  string
	Tau     float64 // SBR and EBR only
	Budget  int     // B, fetches per week
	All     bool    // the run re-fetching every page every week
	MeanQ   float64 // over weeks 1..W−1
	Q       []float64
	Fetched []int
	Changed []int // fetches per week that found the page changed
	Took    time.Duration
	// Reranked and Kept count the weekly answers ranked afresh and
	// reused (local.go).
	Reranked, Kept int
	// Split is the run's split of B (eval.sync.splits; "" re-crawl only),
	// Shares the discovery share of B planned each week, NewFetched and
	// DiscFetched the first fetches and discovery re-fetches per week.
	Split                   string
	Shares                  []float64
	NewFetched, DiscFetched []int
	// Seeded marks a run of a policy that draws at random, Seed its
	// frontier.seed.
	Seeded bool
	Seed   uint64
	// Refetches are the pages the run fetched, in week and URL order
	// (Config.Refetches; nil without it).
	Refetches []Refetch
	// Seeds, in a reported run of a seeded policy (Summary.Best), are the
	// runs of every seed it stands for. Its Q, MeanQ and Shares are then
	// their means; Fetched, Changed, NewFetched, DiscFetched, Took,
	// Reranked and Kept their sums (ChangedShare pools them).
	Seeds []RunSummary
}

// Refetch is one page a run fetched in a week.
type Refetch struct {
	Week    int
	URL     string
	Changed bool // the fetch found content different from the copy's
}

// runs is how many runs r stands for: its seeds, or itself.
func (r RunSummary) runs() int { return max(1, len(r.Seeds)) }

// ChangedShare is the fraction of the run's fetches over weeks 1..W−1
// that found the page changed.
func (r RunSummary) ChangedShare() float64 {
	var f, c int
	for w := 1; w < len(r.Fetched); w++ {
		f += r.Fetched[w]
		c += r.Changed[w]
	}
	if f == 0 {
		return 0
	}
	return float64(c) / float64(f)
}

// meanOfSeeds is the one run the runs of every seed of a policy, τ,
// budget and split stand for in the tables (RunSummary.Seeds).
func meanOfSeeds(runs []RunSummary) RunSummary {
	m := runs[0]
	m.Seed, m.Seeds = 0, runs
	n := len(runs[0].Q)
	m.Q, m.Shares = make([]float64, n), make([]float64, n)
	m.Fetched, m.Changed, m.NewFetched, m.DiscFetched = make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	m.MeanQ, m.Took, m.Reranked, m.Kept = 0, 0, 0, 0
	k := float64(len(runs))
	for _, r := range runs {
		for w := range n {
			m.Q[w] += r.Q[w] / k
			m.Shares[w] += r.Shares[w] / k
			m.Fetched[w] += r.Fetched[w]
			m.Changed[w] += r.Changed[w]
			m.NewFetched[w] += r.NewFetched[w]
			m.DiscFetched[w] += r.DiscFetched[w]
		}
		m.MeanQ += r.MeanQ / k
		m.Took += r.Took
		m.Reranked += r.Reranked
		m.Kept += r.Kept
	}
	return m
}

// Run replays one archive week by week under every policy and budget of
// cfg and writes report.md, results.csv and the plots into outDir.
// progress receives a line per stage and per run (nil discards).
func Run(ctx context.Context, cfg Config, outDir string, progress io.Writer) (sum *Summary, err error) {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("synceval: invalid config:\n%w", err)
	}
	if progress == nil {
		progress = io.Discard
	}
	tidy, err := report.OutDir(outDir)
	if err != nil {
		return nil, fmt.Errorf("synceval: %w", err)
	}
	defer tidy() // interrupted before any run finished: no empty outDir
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := cfg.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "deltaq-synceval-*"); err != nil {
			return nil, fmt.Errorf("synceval: %w", err)
		}
		defer func() {
			if rerr := os.RemoveAll(work); rerr != nil && err == nil {
				err = fmt.Errorf("synceval: %w", rerr)
			}
		}()
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fmt.Errorf("synceval: %w", err)
	}

	h, err := prepare(ctx, cfg, work, workers, progress)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := h.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := h.prepareBase(ctx, progress); err != nil {
		return nil, err
	}
	prepared := time.Since(start)
	h.prog = tracker.From(progress)
	progress = h.prog

	var all *runResult
	allSpec := runSpec{Policy: "uniform", Budget: h.budgetAll(), All: true}
	if cfg.History == "whole" {
		// First, alone: every other run estimates from it.
		spec := allSpec
		h.prog.Stage(h.c.name+": forecast run (every page every week)", 1, h.c.weeks()-1, "week")
		if all, err = h.run(ctx, 0, spec); err != nil {
			return nil, fmt.Errorf("synceval: run %s: %w", spec, err)
		}
		fmt.Fprintf(progress, "%s: %s: mean Q %.6f in %s\n", h.c.name, spec, all.MeanQ, all.costs())
		h.prog.RunDone()
		h.whole = all.History
	}
	specs := h.specs()
	if cfg.Forecast && cfg.History != "whole" {
		// No run depends on it: it goes with the others (first, as the
		// costliest), rather than alone on one core.
		specs = append(specs, allSpec)
	}
	results := make([]*runResult, len(specs))
	sweepStart := time.Now()
	h.prog.Stage(h.c.name+": sweep", len(specs), h.c.weeks()-1, "week")
	if err := h.runAll(ctx, specs, results, workers, progress); err != nil {
		if ctx.Err() == nil {
			return nil, err
		}
		return h.writePartial(ctx, specs, results, all, outDir)
	}
	sweepTook := time.Since(sweepStart)
	if all != nil {
		specs, results = append(specs, all.Spec), append(results, all)
	}
	sum = h.summarize(specs, results)
	sum.Workers = workers
	sum.Prepare = prepared
	sum.SweepTook = sweepTook
	sum.Took = time.Since(start)
	sum.MaxRSS = maxRSS()
	sum.IdealBytes = h.ideal.size()
	if err := h.write(sum, results, outDir); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "%s: done in %v (sweep %v); report in %s\n", h.c.name,
		sum.Took.Round(time.Second), sum.SweepTook.Round(time.Second), outDir)
	return sum, nil
}

// prepare reads the archive and the log, analyses the corpus, filters the
// workload and computes the ideal side.
func prepare(ctx context.Context, cfg Config, work string, workers int, progress io.Writer) (*harness, error) {
	t0 := time.Now()
	a, err := archive.Open(cfg.Archive)
	if err != nil {
		return nil, fmt.Errorf("synceval: %w", err)
	}
	if cfg.Pages == "persistent" {
		a = a.Persistent()
	}
	m, err := index.NewMapping(cfg.Index.Scoring)
	if err != nil {
		return nil, err
	}
	an := m.AnalyzerNamed(index.AnalyzerName)
	c, err := loadCorpus(ctx, a, an, cfg.Crawler.Extract, workers)
	if err != nil {
		return nil, err
	}
	format, err := querylog.ParseFormat(cfg.LogFormat)
	if err != nil {
		return nil, fmt.Errorf("synceval: eval.sync.log_format: %w", err)
	}
	qs, err := querylog.Load(cfg.Log, format)
	if err != nil {
		return nil, fmt.Errorf("synceval: %w", err)
	}
	wl := buildWorkload(c, qs, an, newModel(cfg), cfg.Filter == "knee")
	if cfg.MaxQueries > 0 {
		wl.sample(cfg.MaxQueries, cfg.Seed)
	}
	if len(wl.queries) == 0 {
		return nil, fmt.Errorf("synceval: no query of %s matches a page of %s in week 0", cfg.Log, c.name)
	}
	fmt.Fprintf(progress, "%s: %d bodies analysed, %d weeks; workload: %d of %d queries kept (%d term lists matched week 0; knee at %.4g) in %v\n",
		c.name, len(c.bodies), c.weeks(), len(wl.queries), wl.logStrings, wl.candidates, wl.threshold, time.Since(t0).Round(time.Millisecond))
	t1 := time.Now()
	id, err := buildIdeal(ctx, c, wl, newModel(cfg), cfg.Index.InspectionC, workers)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "%s: ideal answers of %d weeks computed in %v (%.1f MB held)\n", c.name, c.weeks(), time.Since(t1).Round(time.Millisecond), float64(id.size())/1e6)
	return &harness{cfg: cfg, arch: a, c: c, wl: wl, model: newModel(cfg), queries: wl.logQueries(), ideal: id, work: work, mem: vfs.NewMem()}, nil
}

// specs lists the sweep's runs: every policy at every budget and split,
// SBR and EBR at every τ, a seeded policy with every seed.
func (h *harness) specs() []runSpec {
	var out []runSpec
	for _, p := range h.cfg.Policies {
		for _, b := range h.cfg.Budgets {
			for _, s := range h.splits() {
				switch {
				case usesTau(p):
					for _, t := range h.cfg.Taus {
						out = append(out, runSpec{Policy: p, Budget: b, Tau: t, Split: s})
					}
				case h.seeded(p):
					for i := range h.cfg.Seeds {
						out = append(out, runSpec{Policy: p, Budget: b, Split: s, Seeded: true, Seed: h.cfg.Frontier.Seed + uint64(i)})
					}
				default:
					out = append(out, runSpec{Policy: p, Budget: b, Split: s})
				}
			}
		}
	}
	return out
}

// runAll runs specs on workers goroutines, the costliest first (largest
// budget) so that the last ones to finish are short; results land by
// position, so the output does not depend on the schedule. Run ids start
// at 1 (0 is the all-pages run's).
func (h *harness) runAll(ctx context.Context, specs []runSpec, results []*runResult, workers int, progress io.Writer) error {
	order := make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(specs[b].Budget, specs[a].Budget) })
	var mu sync.Mutex // serializes the progress lines
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, i := range order {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r, err := h.run(gctx, i+1, specs[i])
			if err != nil {
				return fmt.Errorf("synceval: run %s: %w", specs[i], err)
			}
			results[i] = r
			mu.Lock()
			defer mu.Unlock()
			done++
			defer h.prog.RunDone()
			fmt.Fprintf(progress, "%s: [%d/%d] %s: mean Q %.4f in %s\n", h.c.name, done, len(specs), specs[i], r.MeanQ, r.costs())
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// writePartial writes the report of an interrupted sweep: the runs that
// finished, marked partial, and the ones missing. The error it returns
// wraps the context's, and says where the partial report is.
func (h *harness) writePartial(ctx context.Context, specs []runSpec, results []*runResult, all *runResult, outDir string) (*Summary, error) {
	var doneSpecs []runSpec
	var done []*runResult
	var missing []string
	for i, r := range results {
		if r == nil {
			missing = append(missing, specs[i].String())
			continue
		}
		doneSpecs, done = append(doneSpecs, specs[i]), append(done, r)
	}
	if len(done) == 0 {
		return nil, fmt.Errorf("synceval: interrupted before any of %d runs finished; nothing written: %w", len(specs), ctx.Err())
	}
	if all != nil {
		doneSpecs, done = append(doneSpecs, all.Spec), append(done, all)
	}
	sum := h.summarize(doneSpecs, done)
	sum.Missing = missing
	if err := h.writeCSVs(sum, outDir); err != nil {
		return nil, err
	}
	// A plot may need runs that are missing (a policy at two budgets); the
	// tables do not. The report lists the plots drawn, and the warning
	// those not, with why.
	sum.plots = h.writePlots(sum, done, outDir)
	plots := ""
	if nd := sum.plots.notDrawn; len(nd) > 0 {
		plots = fmt.Sprintf(" (plots not drawn: %s)", strings.Join(nd, "; "))
	}
	if err := h.writeReport(sum, done, outDir); err != nil {
		return nil, err
	}
	return sum, fmt.Errorf("synceval: interrupted: %d of %d runs finished, partial report in %s%s; missing: %s: %w",
		len(specs)-len(missing), len(specs), outDir, plots, strings.Join(missing, ", "), ctx.Err())
}

// costs is a run's wall time, its answers re-ranked and reused, and its
// time by stage, for the progress lines.
func (r *runResult) costs() string {
	st := r.Stages
	return fmt.Sprintf("%v (%d answers ranked, %d reused; plan %v, crawl %v, index %v, compact %v, rank %v)",
		r.Took.Round(time.Millisecond), r.Reranked, r.Kept,
		st.Plan.Round(time.Millisecond), st.Crawl.Round(time.Millisecond), st.Index.Round(time.Millisecond),
		st.Compact.Round(time.Millisecond), st.Rank.Round(time.Millisecond))
}
