package ranksim

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	tracker "github.com/deltaq/deltaq/internal/progress"
)

// experiment collects the simulations and analyses the figures need, runs
// each once, and hands out the results. The figure code runs twice: first
// to declare what it needs (every lookup registers a job and returns a
// zero result), then, after the jobs have run, to build the report.
type experiment struct {
	plan      plan
	seed      uint64
	declaring bool

	sims     map[string]*simJob
	simOrder []*simJob
	anas     map[string]*anaJob
	anaOrder []*anaJob
	// err records a lookup the declaring pass did not make; the report is
	// then incomplete and Run fails.
	err error
}

type simJob struct {
	label string
	spec  runSpec
	res   runResult
}

type anaJob struct {
	label   string
	c       Community
	p       Policy
	numeric bool
	res     *analysis
}

func newExperiment(p plan, seed uint64) *experiment {
	return &experiment{plan: p, seed: seed, declaring: true, sims: map[string]*simJob{}, anas: map[string]*anaJob{}}
}

func hash64(parts ...any) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		fmt.Fprintf(h, "%v\x00", p)
	}
	return h.Sum64()
}

func communityLabel(c Community) string {
	return fmt.Sprintf("n=%d u=%d m=%d v_u=%g l=%gd", c.Pages, c.Users, c.Monitored, c.VisitsPerDay, c.LifetimeDays)
}

// sim returns the simulation of policy p on community c with a share surf
// of random surfing.
func (e *experiment) sim(c Community, p Policy, surf float64) runResult {
	p = p.normalized()
	key := fmt.Sprintf("%+v|%v|%g", c, p, surf)
	if j, ok := e.sims[key]; ok {
		return j.res
	}
	if !e.declaring {
		e.err = fmt.Errorf("ranksim: simulation %s was not declared", key)
		return runResult{}
	}
	warm, meas := e.plan.days(c)
	j := &simJob{
		label: fmt.Sprintf("%s, x=%g, %s", p, surf, communityLabel(c)),
		spec: runSpec{
			Community: c, Policy: p, Surf: surf, Teleport: e.plan.teleport,
			WarmupDays: warm, MeasureDays: meas,
			Ghosts: e.plan.ghosts, TBPThreshold: tbpThreshold(c.Monitored),
			QPCSample:     e.plan.qpcSample,
			CommunitySeed: hash64(e.seed, "community", fmt.Sprintf("%+v", c)),
			VisitSeed:     hash64(e.seed, "visits", key),
		},
	}
	e.sims[key] = j
	e.simOrder = append(e.simOrder, j)
	return j.res
}

// ana returns the §5.6 analysis of policy p on community c, with F fitted
// by the log-log quadratic or, if numeric, kept numeric.
func (e *experiment) ana(c Community, p Policy, numeric bool) *analysis {
	p = p.normalized()
	key := fmt.Sprintf("%+v|%v|%v", c, p, numeric)
	if j, ok := e.anas[key]; ok {
		return j.res
	}
	if !e.declaring {
		e.err = fmt.Errorf("ranksim: analysis %s was not declared", key)
		return nil
	}
	kind := "log-log quadratic F"
	if numeric {
		kind = "numeric F"
	}
	j := &anaJob{label: fmt.Sprintf("analysis of %s (%s), %s", p, kind, communityLabel(c)), c: c, p: p, numeric: numeric}
	e.anas[key] = j
	e.anaOrder = append(e.anaOrder, j)
	return nil
}

// run executes every declared job on workers goroutines, printing one
// progress line per job.
func (e *experiment) run(ctx context.Context, workers int, progress io.Writer) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	total := len(e.simOrder) + len(e.anaOrder)
	prog := tracker.From(progress)
	// One unit for a simulation and an analysis alike: a run, which the
	// Tracker pluralises by adding "s" ("76 of 177 runs done").
	prog.Stage("ranksim", total, 1, "run")
	var mu sync.Mutex
	done := 0
	report := func(label, result string, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		defer prog.RunDone()
		prog.Step()
		done++
		if progress != nil {
			fmt.Fprintf(progress, "ranksim: [%d/%d] %s: %s (%.1fs)\n", done, total, label, result, took.Seconds())
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	// Analyses first: they are few and their cost is even; the long
	// simulations then keep every worker busy to the end.
	for _, j := range e.anaOrder {
		g.Go(func() error {
			t0 := time.Now()
			a, err := analyze(ctx, j.c, j.p, j.numeric)
			if err != nil {
				return fmt.Errorf("ranksim: %s: %w", j.label, err)
			}
			j.res = a
			report(j.label, fmt.Sprintf("%d iterations, converged %v", a.iters, a.conv), time.Since(t0))
			return nil
		})
	}
	// Longest simulations first, so the last to finish are short ones.
	order := slices.Clone(e.simOrder)
	slices.SortStableFunc(order, func(a, b *simJob) int { return cmp.Compare(b.cost(e.plan), a.cost(e.plan)) })
	for _, j := range order {
		g.Go(func() error {
			t0 := time.Now()
			res, err := simulate(ctx, j.spec)
			if err != nil {
				return fmt.Errorf("ranksim: %s: %w", j.label, err)
			}
			j.res = res
			report(j.label, fmt.Sprintf("QPC %.4f ± %.4f", res.qpc(), res.se()), time.Since(t0))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	e.declaring = false
	return nil
}

// cost estimates a simulation's run time (the uniform rule's visits cost
// more: each draws the pool size and walks the order).
func (j *simJob) cost(p plan) float64 {
	c := j.spec.Community
	f := 1.0
	if j.spec.Policy.Rule == Uniform {
		f = 3
	}
	return f * float64(j.spec.WarmupDays+j.spec.MeasureDays) * p.dayCost(c)
}
