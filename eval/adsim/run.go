package adsim

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/eval/report"
	tracker "github.com/deltaq/deltaq/internal/progress"
)

// Experiments, one per figure (plus the n_j ablation).
const (
	expPerQuery   = "per_query"   // figs. 6.3 and 6.4
	expPrior      = "prior"       // fig. 6.5
	expLifetime   = "lifetime"    // fig. 6.6
	expQueryCount = "query_count" // n_j per day against in total
	expTies       = "ties"        // GREEDY with ties to the oldest ad
	expScale      = "sensitivity" // other traffic and CTR levels
)

// job is one simulation of the plan.
type job struct {
	exp   string
	w     *world
	scale scenario // for expScale
	spec  runSpec
	res   runResult
}

// scenario is a point of the sensitivity grid.
type scenario struct {
	queriesPerDay int
	ctrScale      float64
}

// Run performs the §6.7 simulation and its §6.8 extensions and writes
// report.md, results.csv and the figures (SVG and PNG) into outDir. It
// prints progress lines to progress (nil: none). The same Config gives the
// same report.md and results.csv, byte for byte.
func Run(ctx context.Context, cfg Config, outDir string, progress io.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = io.Discard
	}
	qlog, err := ReadLog(cfg.Log)
	if err != nil {
		return nil, err
	}
	items, err := ReadCTRItems(cfg.CTRFile)
	if err != nil {
		return nil, err
	}
	dist := NewCTRDistribution(items, cfg.CTRPriorStrength)
	w, err := newWorld(cfg, qlog, dist, 1)
	if err != nil {
		return nil, err
	}
	worlds := map[scenario]*world{}
	for _, q := range cfg.SensitivityQueriesPerDay {
		for _, k := range cfg.SensitivityCTRScales {
			sc := scenario{q, k}
			if sc == (scenario{cfg.QueriesPerDay, 1}) {
				continue // the main world's runs serve
			}
			c := cfg
			c.QueriesPerDay = q
			if worlds[sc], err = newWorld(c, qlog, dist, k); err != nil {
				return nil, err
			}
		}
	}
	tidy, err := report.OutDir(outDir)
	if err != nil {
		return nil, fmt.Errorf("adsim: %w", err)
	}
	defer tidy() // interrupted before the report: no empty outDir
	fmt.Fprintf(progress, "adsim: %d phrases, %d queries a day, %d advertisers, %d ads\n",
		len(w.phrases), len(w.base), len(w.budget), w.nAds)

	jobs := plan(cfg, w, worlds)
	if err := execute(ctx, cfg, jobs, progress); err != nil {
		return nil, err
	}
	r := &results{cfg: cfg, w: w, log: qlog, jobs: jobs}
	sum := r.summary()
	if err := r.write(outDir, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// plan lists every simulation, longest first so the workers finish
// together.
func plan(cfg Config, w *world, worlds map[scenario]*world) []*job {
	var jobs []*job
	pol := func(name string) ads.Policy {
		p, _ := ads.PolicyByName(name) // names were validated
		return p
	}
	// The sensitivity grid, heaviest (most traffic) first.
	qs := sortedInts(cfg.SensitivityQueriesPerDay)
	for _, q := range slices.Backward(qs) {
		for _, k := range cfg.SensitivityCTRScales {
			sw := worlds[scenario{q, k}]
			if sw == nil {
				continue
			}
			for _, name := range cfg.ExtensionPolicies {
				for rep := range cfg.Repetitions {
					jobs = append(jobs, &job{exp: expScale, w: sw, scale: scenario{q, k}, spec: runSpec{policy: pol(name), perQuery: 1,
						days: cfg.Days, rep: rep, queryCount: cfg.QueryCount}})
				}
			}
		}
	}
	for _, lambda := range cfg.Lifetimes {
		for _, name := range cfg.ExtensionPolicies {
			for rep := range cfg.Repetitions {
				jobs = append(jobs, &job{exp: expLifetime, spec: runSpec{policy: pol(name), perQuery: 1, days: cfg.LifetimeDays,
					rep: rep, lifetime: lambda, queryCount: cfg.QueryCount}})
			}
		}
	}
	for _, c := range slices.Backward(sortedInts(cfg.PerQuery)) {
		for _, name := range cfg.Policies {
			for rep := range cfg.Repetitions {
				jobs = append(jobs, &job{exp: expPerQuery, spec: runSpec{policy: pol(name), perQuery: c, days: cfg.Days,
					rep: rep, queryCount: cfg.QueryCount}})
			}
		}
	}
	for _, p := range cfg.PriorFractions {
		for _, v := range cfg.PriorAccuracies {
			for _, name := range cfg.ExtensionPolicies {
				for rep := range cfg.Repetitions {
					jobs = append(jobs, &job{exp: expPrior, spec: runSpec{policy: pol(name), perQuery: 1, days: cfg.Days,
						rep: rep, priorP: p, priorV: v, queryCount: cfg.QueryCount}})
				}
			}
		}
	}
	other := otherQueryCount(cfg.QueryCount)
	for _, name := range cfg.Policies {
		if name == "greedy" {
			continue // GREEDY does not use n_j
		}
		for rep := range cfg.Repetitions {
			jobs = append(jobs, &job{exp: expQueryCount, spec: runSpec{policy: pol(name), perQuery: 1, days: cfg.Days,
				rep: rep, queryCount: other}})
		}
	}
	if slices.Contains(cfg.Policies, "greedy") {
		for rep := range cfg.Repetitions {
			jobs = append(jobs, &job{exp: expTies, spec: runSpec{policy: greedyOldest{}, perQuery: 1, days: cfg.Days,
				rep: rep, queryCount: cfg.QueryCount}})
		}
	}
	for _, j := range jobs {
		if j.w == nil {
			j.w = w
		}
	}
	return jobs
}

// greedyOldest is GREEDY with one change, for comparison only: among ads
// of equal priority zero (shown, never clicked) the oldest goes first
// instead of the highest bid. It calls the server's GREEDY and breaks
// those ties through the priority itself.
type greedyOldest struct{}

func (greedyOldest) Name() string { return "greedy-oldest" }

func (greedyOldest) Priority(c *ads.Candidate, q ads.Query) float64 {
	p := ads.Greedy{}.Priority(c, q)
	if p == 0 {
		return -float64(c.ID) * 1e-300
	}
	return p
}

// otherQueryCount is the n_j rule the ablation compares qc with.
func otherQueryCount(qc string) string {
	if qc == ads.QueryCountDay {
		return ads.QueryCountTotal
	}
	return ads.QueryCountDay
}

func sortedInts(v []int) []int {
	s := slices.Clone(v)
	slices.Sort(s)
	return slices.Compact(s)
}

// execute runs the jobs on cfg.Workers goroutines. Each job writes only its
// own result, so the outcome does not depend on scheduling.
func execute(ctx context.Context, cfg Config, jobs []*job, progress io.Writer) error {
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g, ctx := errgroup.WithContext(ctx)
	next := make(chan *job)
	var mu sync.Mutex
	done := 0
	step := max(1, len(jobs)/20)
	prog := tracker.From(progress)
	prog.Stage("adsim", len(jobs), 1, "simulation")
	for range workers {
		g.Go(func() error {
			for j := range next {
				res, err := j.w.simulate(ctx, cfg.Seed, j.spec)
				if err != nil {
					return fmt.Errorf("adsim: %s %s: %w", j.exp, j.spec.policy.Name(), err)
				}
				j.res = res
				prog.Step()
				prog.RunDone()
				mu.Lock()
				done++
				if done%step == 0 || done == len(jobs) {
					fmt.Fprintf(progress, "adsim: %d/%d simulations\n", done, len(jobs))
				}
				mu.Unlock()
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	return g.Wait()
}

// Stat is a mean over repetitions with its sample standard deviation.
type Stat struct {
	Mean, SD float64
	N        int
}

func statOf(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if s.N == 0 {
		return Stat{Mean: math.NaN(), SD: math.NaN()}
	}
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}

// results answers questions about the finished jobs.
type results struct {
	cfg  Config
	w    *world
	log  *QueryLog
	jobs []*job
}

// runs returns the results over repetitions of the jobs matching the key.
func (r *results) runs(exp, policy string, c int, p, v, lambda float64, qc string) []runResult {
	var out []runResult
	for _, j := range r.jobs {
		s := j.spec
		if j.exp == exp && s.policy.Name() == policy && s.perQuery == c && s.priorP == p && s.priorV == v && s.lifetime == lambda && s.queryCount == qc {
			out = append(out, j.res)
		}
	}
	return out
}

// sensitivity is the total revenue at one grid point, C = 1.
func (r *results) sensitivity(sc scenario, policy string) Stat {
	if sc == (scenario{r.cfg.QueriesPerDay, 1}) {
		return r.total(expPerQuery, policy, 1, 0, 0, r.cfg.QueryCount)
	}
	var xs []float64
	for _, j := range r.jobs {
		if j.exp == expScale && j.scale == sc && j.spec.policy.Name() == policy {
			xs = append(xs, sum(j.res.daily))
		}
	}
	return statOf(xs)
}

// total is the revenue over the horizon of fig. 6.3–6.5 runs.
func (r *results) total(exp, policy string, c int, p, v float64, qc string) Stat {
	var xs []float64
	for _, res := range r.runs(exp, policy, c, p, v, 0, qc) {
		xs = append(xs, sum(res.daily))
	}
	return statOf(xs)
}

// day is the revenue of one day at C = 1.
func (r *results) day(policy string, d int) Stat {
	var xs []float64
	for _, res := range r.runs(expPerQuery, policy, 1, 0, 0, 0, r.cfg.QueryCount) {
		xs = append(xs, res.daily[d])
	}
	return statOf(xs)
}

// steady is the mean revenue per day from day steady_from on (fig. 6.6).
func (r *results) steady(policy string, lambda float64) Stat {
	var xs []float64
	for _, res := range r.runs(expLifetime, policy, 1, 0, 0, lambda, r.cfg.QueryCount) {
		xs = append(xs, mean(res.daily[r.cfg.SteadyFrom:]))
	}
	return statOf(xs)
}

// exhausted is the mean fraction of budgeted advertisers out of budget at
// the end of a day, over all days and repetitions, at C = 1.
func (r *results) exhausted(policy string) float64 {
	var sum float64
	var n int
	for _, res := range r.runs(expPerQuery, policy, 1, 0, 0, 0, r.cfg.QueryCount) {
		for _, x := range res.exhausted {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// matchC returns how many ads per query GREEDY needs for the revenue
// target, interpolating linearly between the measured values of C; NaN
// when GREEDY does not reach it within the measured range.
func (r *results) matchC(target float64) float64 {
	cs := sortedInts(r.cfg.PerQuery)
	prevC, prevR := 0.0, 0.0
	for _, c := range cs {
		rev := r.total(expPerQuery, "greedy", c, 0, 0, r.cfg.QueryCount).Mean
		if rev >= target {
			if rev == prevR {
				return float64(c)
			}
			return prevC + (float64(c)-prevC)*(target-prevR)/(rev-prevR)
		}
		prevC, prevR = float64(c), rev
	}
	return math.NaN()
}

// fileName is the log's base name: reports name inputs without the
// machine's paths so they compare equal across checkouts.
func fileName(p string) string { return filepath.Base(p) }
