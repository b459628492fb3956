package feedseval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/eval/feedtrace"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/internal/clock"
	tracker "github.com/deltaq/deltaq/internal/progress"
)

// Config is eval.feeds in configs/default.yaml.
type Config struct {
	// Feeds is the folder of the posting trace (feeds.tsv, commit-feeds.tsv.zst).
	Feeds string `mapstructure:"feeds"`
	// Seed is the first seed; every run is repeated with Seeds seeds,
	// Seed, Seed+1, …: the k-means starts of the learning and the evenly
	// spaced policies' phases move the mean delays by several percent,
	// so one seed can flatter or harm a policy.
	Seed  uint64 `mapstructure:"seed"`
	Seeds int    `mapstructure:"seeds"`
	// Workers is how many runs go at once (0: GOMAXPROCS).
	Workers    int       `mapstructure:"workers"`
	LearnWeeks int       `mapstructure:"learn_weeks"`
	PerDay     []float64 `mapstructure:"per_day"`
	// WICHorizons are the horizons of WIC's linear urgency, one policy each.
	WICHorizons []time.Duration `mapstructure:"wic_horizons"`
	// Relearn adds a second run in which every policy re-learns weekly.
	Relearn bool `mapstructure:"relearn"`
	// Hindsight adds a run in which every policy plans on models fitted to
	// the evaluation weeks themselves: what no scheduler can know, the
	// bound that shows how much of a policy's delay is its learning's.
	Hindsight bool `mapstructure:"hindsight"`
	// CrawlWeeks of the combined schedule at one poll per feed per day are
	// also played through the real crawler (0: not), against feeds showing
	// their latest CrawlItems postings.
	CrawlWeeks int `mapstructure:"crawl_weeks"`
	CrawlItems int `mapstructure:"crawl_items"`
}

// Validate names every bad key, its value and the limit.
func (c Config) Validate() error {
	// Upper bounds, far beyond the defaults (configs/default.yaml).
	const (
		// maxWorkers bounds the runs at once, each with its own schedules.
		maxWorkers = 256
		// maxCrawlItems bounds the postings a replayed feed shows (GitHub's
		// commit feeds show 20): the feed is rendered afresh on every poll.
		maxCrawlItems = 10_000
	)
	report := bounds.NewReport("eval.feeds.")
	if c.Feeds == "" {
		report.Add("feeds", `""`, "give the posting trace's folder")
	}
	report.Add("seeds", c.Seeds, bounds.Within(c.Seeds, 1, 100))
	report.Add("workers", c.Workers, bounds.Note(bounds.Within(c.Workers, 0, maxWorkers), "(0: GOMAXPROCS)"))
	report.Add("learn_weeks", c.LearnWeeks, bounds.Within(c.LearnWeeks, 1, 40))
	if len(c.PerDay) == 0 {
		report.Add("per_day", "[]", "give at least one budget")
	}
	for _, p := range c.PerDay {
		if !(p > 0) || p > 96 {
			report.Add("per_day", p, "must be in (0, 96] polls per feed per day")
		}
	}
	bounds.Distinct(report, "per_day", c.PerDay)
	bounds.Distinct(report, "wic_horizons", c.WICHorizons)
	report.Add("crawl_weeks", c.CrawlWeeks, bounds.Within(c.CrawlWeeks, 0, 40))
	report.Add("crawl_items", c.CrawlItems, bounds.Within(c.CrawlItems, 1, maxCrawlItems))
	for _, h := range c.WICHorizons {
		if h < time.Minute {
			report.Add("wic_horizons", h, "must be ≥ 1m")
		}
	}
	return report.Err()
}

// The learnings a policy's models come from (Result.Learning).
const (
	// Once learns on the first weeks and keeps the models (the paper's
	// protocol).
	Once = "once"
	// Weekly re-learns every Monday from what the policy's polls retrieved.
	Weekly = "weekly"
	// Hindsight fits the models to the evaluation weeks themselves, once:
	// the stationary model a perfect learner would reach, with look-ahead.
	Hindsight = "hindsight"
)

// Result is one policy at one budget, measured on the evaluation weeks.
type Result struct {
	// Learning is Once, Weekly or Hindsight.
	Learning string
	Policy   string
	PerDay   float64
	Seed     uint64
	Mean     time.Duration // mean delay per posting
	Max      time.Duration
	P50, P90 time.Duration
	// SlowMean is the mean delay of the postings of the slowest quarter of
	// the feeds (by learned rate): what allocation takes from them.
	SlowMean time.Duration
	// Expected is the first learned model's own prediction of the mean
	// delay of the first week's plan (Lemma 1); zero for WIC.
	Expected time.Duration
	// PollsPerFeedDay is the measured spend, to check every policy used the
	// same budget.
	PollsPerFeedDay float64
	Postings        int
	// FeedDelay is each feed's postings' delays summed, in seconds, in the
	// trace's feed order: where a policy's mean delay comes from.
	FeedDelay []float64
}

// Summary is what Run measured.
type Summary struct {
	Feeds, LearnPostings, EvalPostings int
	LearnFrom, EvalFrom, EvalTo        time.Time
	Clusters                           []feeds.Daily
	Results                            []Result
	// FeedNames and FeedPostings are each feed's name and postings in the
	// evaluation weeks, in the trace's feed order.
	FeedNames    []string
	FeedPostings []int
	// Crawl is the check through the real crawler, when run.
	Crawl   *CrawlResult
	Elapsed time.Duration
}

// Run learns on the first LearnWeeks of the trace's year, plans every
// policy at every budget and measures each posting's delay on the rest of
// the year, trace-driven as in Sia & Cho §5. With Relearn, every policy
// re-learns each Monday from the postings its own polls have retrieved by
// then (no look-ahead; relearn), all policies alike; otherwise the first
// model serves the whole year. With Hindsight, every policy also plans the
// whole year on models fitted to the evaluation weeks (hindsightModels).
// Every run is repeated for each of the Seeds seeds, Workers at once;
// Results keeps them in a fixed order.
// progress (a *progress.Tracker, or any writer; nil for none) gets a line
// per finished run and, every few seconds, the weeks done and an ETA.
func Run(ctx context.Context, cfg Config, fcfg feeds.Config, tr *feedtrace.Trace, progress io.Writer) (*Summary, error) {
	start := time.Now()
	sum, grid, bounds, err := prepare(cfg, fcfg, tr)
	if err != nil {
		return nil, err
	}
	e := &evaluation{cfg: cfg, fcfg: fcfg, tr: tr, sum: sum, grid: grid, bounds: bounds,
		postings: postingTimes(tr), names: policies(cfg.WICHorizons), weeks: sum.weekStarts(), prog: tracker.From(progress)}
	e.learnFirst()
	if err := e.runAll(ctx, e.runs()); err != nil {
		return nil, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// evaluation is what Run's runs share, read-only once learnFirst is done.
type evaluation struct {
	cfg      Config
	fcfg     feeds.Config
	tr       *feedtrace.Trace
	sum      *Summary
	grid     feeds.Grid
	bounds   []feeds.Bounds
	postings [][]time.Time // each feed's posting times
	names    []string      // the policies, base ones first, then WIC's horizons
	weeks    []time.Time   // the Mondays planned at
	prog     *tracker.Tracker
	// Each seed's first models, the slowest quarter of the feeds by them,
	// and with Hindsight its models fitted to the evaluation weeks.
	first, hindsight [][]feeds.Model
	slow             [][]bool
}

// run is one policy at one budget, learned one way, with one seed.
type run struct {
	mode   string
	perDay float64
	pi     int // the policy's index in names
	k      int // the seed's index
}

// learnFirst learns every seed's first models from the learning weeks.
// The first seed's clusters are the ones the report shows.
func (e *evaluation) learnFirst() {
	e.first = make([][]feeds.Model, e.cfg.Seeds)
	e.slow = make([][]bool, e.cfg.Seeds)
	for k := range e.first {
		var clusters []feeds.Daily
		e.first[k], clusters = learnModels(e.fcfg, e.postings, e.sum, e.cfg.Seed+uint64(k))
		e.slow[k] = slowQuarter(e.first[k])
		if k == 0 {
			e.sum.Clusters = clusters
		}
		if e.cfg.Hindsight {
			e.hindsight = append(e.hindsight, hindsightModels(e.fcfg, e.postings, e.sum, e.cfg.Seed+uint64(k)))
		}
	}
}

// runs lists every run, in the order Results keeps them: by learning
// mode, budget, policy and seed.
func (e *evaluation) runs() []run {
	modes := []string{Once}
	if e.cfg.Relearn {
		modes = append(modes, Weekly)
	}
	if e.cfg.Hindsight {
		modes = append(modes, Hindsight)
	}
	var runs []run
	for _, mode := range modes {
		for _, perDay := range e.cfg.PerDay {
			for pi := range e.names {
				for k := range e.cfg.Seeds {
					runs = append(runs, run{mode, perDay, pi, k})
				}
			}
		}
	}
	return runs
}

// runAll makes runs, Workers at once, into sum.Results in their order,
// with a progress line per finished run.
func (e *evaluation) runAll(ctx context.Context, runs []run) error {
	e.sum.Results = make([]Result, len(runs))
	e.prog.Stage("feeds", len(runs), len(e.weeks), "week")
	var mu sync.Mutex // the runs' lines
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(e.cfg.Workers, runtime.GOMAXPROCS(0)))
	for i, j := range runs {
		g.Go(func() error {
			r, err := e.one(gctx, j)
			if err != nil {
				return err
			}
			e.sum.Results[i] = r
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(e.prog, "feeds: %-14s %-17s %4g/day seed %-3d mean %-10s max %-12s polls/feed/day %.2f\n",
				learnedAs(r.Learning), r.Policy, r.PerDay, r.Seed, r.Mean.Round(time.Second), r.Max.Round(time.Second), r.PollsPerFeedDay)
			e.prog.RunDone()
			return nil
		})
	}
	return g.Wait()
}

// one plans run j's policy week by week over the evaluation weeks, on its
// mode's models (re-learned each Monday but the first when Weekly), and
// measures the delays. Its random streams depend on the run alone, so
// that results do not depend on which runs go at once.
func (e *evaluation) one(ctx context.Context, j run) (Result, error) {
	policy := e.names[j.pi]
	seed := e.cfg.Seed + uint64(j.k)
	runSeed := seed ^ uint64(j.perDay*1000)<<8 ^ uint64(j.pi)
	var horizon time.Duration
	if base := len(policies(nil)); j.pi >= base {
		horizon = e.cfg.WICHorizons[j.pi-base]
	}
	total := feeds.WeeklyPolls(j.perDay, len(e.tr.Feeds))
	pl, err := newPlanner(policy, e.fcfg, e.grid, e.bounds, total, horizon, rand.New(rand.NewPCG(runSeed, 2)))
	if err != nil {
		return Result{}, err
	}
	s := &schedule{start: e.sum.EvalFrom, step: e.grid.Step}
	known := make([]int, len(e.tr.Feeds)) // postings retrieved so far, a prefix
	models := e.first[j.k]
	if j.mode == Hindsight {
		models = e.hindsight[j.k]
	}
	firstWeek := models // what the first week is planned on, for Result.Expected
	learnRNG := rand.New(rand.NewPCG(runSeed, 3))
	for _, ws := range e.weeks {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if j.mode == Weekly && ws.After(e.sum.EvalFrom) {
			models = relearn(e.fcfg, s, e.postings, known, e.sum.LearnFrom, e.sum.EvalFrom, ws, learnRNG)
		}
		if err := pl.week(s, ws, models); err != nil {
			return Result{}, fmt.Errorf("feedseval: %s at %g/day, seed %d, week of %s: %w", policy, j.perDay, seed, ws.Format(time.DateOnly), err)
		}
		e.prog.Step()
	}
	r := measure(s, e.tr, firstWeek, e.grid, e.sum.EvalFrom, e.sum.EvalTo, e.slow[j.k])
	r.Learning, r.Policy, r.PerDay, r.Seed = j.mode, policy, j.perDay, seed
	return r, nil
}

// weekStarts are the Mondays a schedule is planned at: from EvalFrom
// through the week EvalTo falls in.
func (s *Summary) weekStarts() []time.Time {
	var weeks []time.Time
	for ws := s.EvalFrom; ws.Before(s.EvalTo.Add(feeds.Period)); ws = ws.Add(feeds.Period) {
		weeks = append(weeks, ws)
	}
	return weeks
}

// lastPoll returns feed i's last poll before t (zero if none).
func (s *schedule) lastPoll(i int, t time.Time) time.Time {
	if s.times != nil {
		ts := s.times[i]
		j, _ := slices.BinarySearchFunc(ts, t, func(a, b time.Time) int { return a.Compare(b) })
		if j == 0 {
			return time.Time{}
		}
		return ts[j-1]
	}
	if len(s.weeks) == 0 || !t.After(s.start) {
		return time.Time{}
	}
	w := int(t.Sub(s.start) / feeds.Period)
	for k := w; k >= max(0, w-2); k-- { // a feed is polled at least weekly
		ws := s.start.Add(time.Duration(k) * feeds.Period)
		plan := s.weeks[min(k, len(s.weeks)-1)][i]
		for j := len(plan) - 1; j >= 0; j-- {
			if at := ws.Add(time.Duration(plan[j]) * s.step); at.Before(t) {
				return at
			}
		}
	}
	return time.Time{}
}

// relearn learns the models at ws from what the schedule s has retrieved
// by then: a posting is known once a poll at or after it has happened, and
// since the next poll never comes earlier for a later posting, the known
// postings of a feed are a prefix (known[i] long), advanced here. Profiles
// come from the window and refinement chosen on the weeks before ws
// (feeds.ChooseProfiling); rates, with
// feeds.rate_half_lives, from every posting retrieved since the year's
// start (from), weighted by age and shrunk towards the pooled rate
// (feeds.rate_priors), each feed's known up to its last poll
// (the learning weeks count as retrieved up to evalFrom).
func relearn(fcfg feeds.Config, s *schedule, postings [][]time.Time, known []int, from, evalFrom, ws time.Time, rng *rand.Rand) []feeds.Model {
	seen := make([][]time.Time, len(postings))
	polled := make([]time.Time, len(postings))
	for i, ps := range postings {
		for known[i] < len(ps) {
			p := ps[known[i]]
			if p.Before(s.start) {
				known[i]++ // the learning weeks: retrieved before the evaluation
				continue
			}
			next, ok := s.nextPoll(i, p)
			if !ok || next.After(ws) {
				break
			}
			known[i]++
		}
		seen[i] = ps[:known[i]]
		polled[i] = clock.Later(s.lastPoll(i, ws), evalFrom)
	}
	return feeds.LearnRecent(fcfg, seen, from, polled, ws, rng)
}

// prepare validates and finds the learning and evaluation windows of the
// trace's year, the planning grid and the feeds' bounds.
func prepare(cfg Config, fcfg feeds.Config, tr *feedtrace.Trace) (*Summary, feeds.Grid, []feeds.Bounds, error) {
	fail := func(err error) (*Summary, feeds.Grid, []feeds.Bounds, error) {
		return nil, feeds.Grid{}, nil, err
	}
	if err := cfg.Validate(); err != nil {
		return fail(err)
	}
	if err := fcfg.Validate(); err != nil {
		return fail(err)
	}
	if len(tr.Feeds) == 0 {
		return fail(errors.New("feedseval: the trace has no feeds"))
	}
	first := time.Time{}
	for _, f := range tr.Feeds {
		if len(f.Postings) > 0 && (first.IsZero() || f.Postings[0].Before(first)) {
			first = f.Postings[0]
		}
	}
	sum := &Summary{Feeds: len(tr.Feeds)}
	sum.LearnFrom = time.Date(first.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	// Plans are weekly from Monday 00:00 UTC, so evaluation starts on the
	// first Monday after LearnWeeks of learning.
	sum.EvalFrom = weekStart(sum.LearnFrom.Add(time.Duration(cfg.LearnWeeks)*feeds.Period - time.Nanosecond)).Add(feeds.Period)
	sum.EvalTo = sum.LearnFrom.AddDate(1, 0, 0)
	sum.FeedPostings = make([]int, len(tr.Feeds))
	late, lateFeed, lateAt := 0, "", time.Time{}
	for i, f := range tr.Feeds {
		sum.FeedNames = append(sum.FeedNames, f.Name)
		for _, p := range f.Postings {
			switch {
			case p.Before(sum.EvalFrom):
				sum.LearnPostings++
			case p.Before(sum.EvalTo):
				sum.EvalPostings++
				sum.FeedPostings[i]++
			default:
				if late == 0 {
					lateFeed, lateAt = f.Name, p
				}
				late++
			}
		}
	}
	if late > 0 {
		// The evaluation is one calendar year, the first posting's: a
		// posting past it would be dropped unmeasured, and a stray early
		// one would move the whole evaluation to its year.
		return fail(fmt.Errorf("feedseval: %d postings (the first: feed %s at %s) fall after %s, the end of the first posting's year %d (first posting %s): the trace must cover one calendar year",
			late, lateFeed, lateAt.Format(time.RFC3339), sum.EvalTo.Format(time.DateOnly), first.Year(), first.Format(time.RFC3339)))
	}
	if sum.EvalPostings == 0 {
		return fail(fmt.Errorf("feedseval: no posting of the trace falls in the evaluation weeks, %s to %s (eval.feeds.learn_weeks = %d after the first posting's year begins): there is nothing to measure",
			sum.EvalFrom.Format(time.DateOnly), sum.EvalTo.Format(time.DateOnly), cfg.LearnWeeks))
	}
	grid, err := feeds.NewGrid(fcfg.Step)
	if err != nil {
		return fail(err)
	}
	bounds := make([]feeds.Bounds, len(tr.Feeds))
	for i := range bounds {
		if bounds[i], err = feeds.BoundsFor(fcfg.MinInterval, fcfg.MaxInterval); err != nil {
			return fail(err)
		}
	}
	return sum, grid, bounds, nil
}

// postingTimes are the trace's feeds' posting times, feed by feed.
func postingTimes(tr *feedtrace.Trace) [][]time.Time {
	out := make([][]time.Time, len(tr.Feeds))
	for i, f := range tr.Feeds {
		out[i] = f.Postings
	}
	return out
}

// learnModels learns every feed's model for one seed as the live planner
// (feeds.PlanAll) does, from the learning weeks: LearnRecent at the
// evaluation's start, every feed's postings known up to then. It also
// returns the clusters of those weeks, for the report.
func learnModels(fcfg feeds.Config, postings [][]time.Time, sum *Summary, seed uint64) ([]feeds.Model, []feeds.Daily) {
	rng := rand.New(rand.NewPCG(seed, 1))
	_, clusters := feeds.LearnAll(fcfg, postings, sum.LearnFrom, sum.EvalFrom, rng)
	known := make([]time.Time, len(postings))
	for i := range known {
		known[i] = sum.EvalFrom
	}
	return feeds.LearnRecent(fcfg, postings, sum.LearnFrom, known, sum.EvalFrom, rng), clusters
}

// hindsightModels fits every feed's model to the evaluation weeks
// themselves, for one seed: the rate of the whole evaluation and the
// profile of all its postings, as feeds.LearnAll learns a window.
func hindsightModels(fcfg feeds.Config, postings [][]time.Time, sum *Summary, seed uint64) []feeds.Model {
	models, _ := feeds.LearnAll(fcfg, postings, sum.EvalFrom, sum.EvalTo, rand.New(rand.NewPCG(seed, 4)))
	return models
}

// slowQuarter marks the quarter of the feeds with the lowest learned rate.
func slowQuarter(models []feeds.Model) []bool {
	idx := make([]int, len(models))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case models[a].Rate < models[b].Rate:
			return -1
		case models[a].Rate > models[b].Rate:
			return 1
		}
		return 0
	})
	out := make([]bool, len(models))
	for _, i := range idx[:max(1, len(idx)/4)] {
		out[i] = true
	}
	return out
}

func measure(s *schedule, tr *feedtrace.Trace, models []feeds.Model, grid feeds.Grid, from, to time.Time, slow []bool) Result {
	r := Result{FeedDelay: make([]float64, len(tr.Feeds))}
	var delays []time.Duration
	var total, slowTotal float64 // seconds: a year of week-long delays overflows a Duration
	slowN := 0
	polls := 0
	expected, rateSum := 0.0, 0.0
	for i, f := range tr.Feeds {
		polls += s.polls(i, from, to)
		for _, p := range f.Postings {
			if p.Before(from) || !p.Before(to) {
				continue
			}
			next, ok := s.nextPoll(i, p)
			if !ok {
				next = to.Add(feeds.Period) // never polled again in the run
			}
			d := next.Sub(p)
			delays = append(delays, d)
			total += d.Seconds()
			r.FeedDelay[i] += d.Seconds()
			if slow[i] {
				slowTotal += d.Seconds()
				slowN++
			}
		}
		if s.weeks != nil {
			w := models[i].Rate
			expected += w * float64(feeds.ExpectedDelay(models[i], grid, s.weeks[0][i]))
			rateSum += w
		}
	}
	r.Postings = len(delays)
	days := to.Sub(from).Hours() / 24
	r.PollsPerFeedDay = float64(polls) / float64(len(tr.Feeds)) / days
	if rateSum > 0 {
		r.Expected = time.Duration(expected / rateSum)
	}
	if len(delays) == 0 {
		return r
	}
	slices.Sort(delays)
	r.Mean = seconds(total / float64(len(delays)))
	r.Max = delays[len(delays)-1]
	r.P50 = delays[len(delays)/2]
	r.P90 = delays[len(delays)*9/10]
	if slowN > 0 {
		r.SlowMean = seconds(slowTotal / float64(slowN))
	}
	return r
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
