package feedseval

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor"
)

// Policy names, in the order the report lists them.
const (
	Uniform       = "uniform"
	PlacementOnly = "placement-only"
	AllocOnly     = "allocation-only"
	Combined      = "combined"
	CGMAge        = "cgm-age"
	CGMFreshness  = "cgm-freshness"
	// WICLinear is the prefix of "wic-linear-H": WIC with linear urgency
	// of horizon H, one policy per eval.feeds.wic_horizons.
	WICLinear = "wic-linear"
)

// policies is every policy the evaluation runs: the planners, then WIC at
// each horizon.
func policies(horizons []time.Duration) []string {
	out := []string{Uniform, PlacementOnly, AllocOnly, Combined, CGMAge, CGMFreshness}
	for _, h := range horizons {
		out = append(out, wicName(h))
	}
	return out
}

func wicName(h time.Duration) string { return fmt.Sprintf("%s-%s", WICLinear, days(h)) }

// days writes a horizon in days when it is whole days (1d, 365d).
func days(h time.Duration) string {
	if h%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", h/(24*time.Hour))
	}
	return h.String()
}

// schedule is one policy's polls for every feed: from start, one weekly
// plan of slots per week (the last repeats), or (WIC) explicit poll times.
type schedule struct {
	start time.Time
	step  time.Duration
	weeks [][][]int // weeks[w][feed]: sorted slots of the grid
	times [][]time.Time
}

// planner plans one policy at one budget, week after week, from the models
// it is given.
type planner struct {
	policy string
	cfg    feeds.Config
	grid   feeds.Grid
	bounds []feeds.Bounds
	total  int // polls per week, all feeds
	// phases are the evenly spaced policies' phases, one per feed, kept
	// for the run: a feed whose allocation changes stays evenly spaced
	// across the week's boundary, never more than its longer interval.
	phases []float64
	// WIC's scheduler, kept across weeks: its g carries over.
	wic     *monitor.Scheduler
	index   map[string]int // WIC's URL → feed
	horizon time.Duration
	credit  float64
}

func newPlanner(policy string, cfg feeds.Config, grid feeds.Grid, bounds []feeds.Bounds, total int, horizon time.Duration, rng *rand.Rand) (*planner, error) {
	p := &planner{policy: policy, cfg: cfg, grid: grid, bounds: bounds, total: total, horizon: horizon}
	if policy != wicName(horizon) {
		// Drawn once per feed: no policy gets a lucky or unlucky common
		// clock time.
		p.phases = make([]float64, len(bounds))
		for i := range p.phases {
			p.phases[i] = rng.Float64()
		}
		return p, nil
	}
	s, err := monitor.NewScheduler(1)
	if err != nil {
		return nil, err
	}
	h := max(1, int(horizon/grid.Step))
	p.index = map[string]int{}
	for i := range bounds {
		p.index[feedKey(i)] = i
		if _, err := s.Add(monitor.Demand{URL: feedKey(i), Life: monitor.Life{Kind: monitor.UnboundedAppend},
			Urgency: monitor.Urgency{Kind: monitor.Linear, Window: h}, Weight: 1}); err != nil {
			return nil, fmt.Errorf("feedseval: wic horizon %s: %w", horizon, err)
		}
	}
	p.wic = s
	return p, nil
}

func feedKey(i int) string { return fmt.Sprintf("feed/%06d", i) }

// week adds the plan for the week starting at ws to s.
func (p *planner) week(s *schedule, ws time.Time, models []feeds.Model) error {
	if p.wic != nil {
		p.wicWeek(s, ws, models)
		return nil
	}
	if p.policy == Combined { // allocation and placement at once
		_, plan, err := feeds.Combined(p.total, ones(len(models)), models, p.grid, p.bounds, p.cfg.Starts)
		if err != nil {
			return err
		}
		for i := range plan {
			// From where last week's plan left the feed; the learning
			// weeks count as retrieved up to s.start (relearn).
			last := p.grid.SlotOf(ws, clock.Later(s.lastPoll(i, ws), s.start))
			plan[i] = feeds.Continue(models[i], p.grid, plan[i], 0, last, p.longest())
		}
		s.weeks = append(s.weeks, plan)
		return nil
	}
	alloc, err := p.allocate(models)
	if err != nil {
		return err
	}
	var last [][]int
	if len(s.weeks) > 0 {
		last = s.weeks[len(s.weeks)-1]
	}
	plan := make([][]int, len(models))
	for i, m := range alloc {
		var prev []int
		if last != nil {
			prev = last[i]
		}
		plan[i] = p.place(i, m, models[i], prev)
	}
	s.weeks = append(s.weeks, plan)
	return nil
}

// allocate spreads the week's polls over the feeds by the policy's rule.
func (p *planner) allocate(models []feeds.Model) ([]int, error) {
	n := len(models)
	rates := make([]float64, n)
	for i, m := range models {
		rates[i] = m.Rate
	}
	switch p.policy {
	case Uniform, PlacementOnly:
		alloc := make([]int, n)
		for i := range alloc {
			alloc[i] = p.total / n
			if i < p.total%n {
				alloc[i]++
			}
		}
		return alloc, nil
	case AllocOnly, Combined:
		return feeds.SqrtAllocation(p.total, ones(n), rates, p.bounds)
	case CGMAge:
		return feeds.Fit(p.total, p.bounds, ageOptimal(rates, feeds.Period.Seconds()))
	case CGMFreshness:
		return feeds.Fit(p.total, p.bounds, freshnessOptimal(rates, feeds.Period.Seconds()))
	}
	return nil, fmt.Errorf("feedseval: unknown policy %q", p.policy)
}

func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// place returns feed i's weekly slots for m polls; prev is its last plan.
func (p *planner) place(i, m int, model feeds.Model, prev []int) []int {
	if p.policy == PlacementOnly {
		if len(prev) == m {
			return feeds.Refine(model, p.grid, prev)
		}
		return feeds.Place(model, p.grid, m, p.cfg.Starts)
	}
	// Evenly spaced from the feed's phase (phases).
	if len(prev) == m {
		return prev
	}
	return feeds.UniformPlan(p.grid, m, p.phases[i])
}

// wicWeek runs the monitor package's scheduler over the week's instants
// with append life and linear urgency: π of a feed at an instant is its
// learned expected postings in it, and the budget is the same polls per
// week, spent as whole polls as the credit accrues. Each feed's bounds hold
// as in every other policy (and in the live poller): every feed whose last
// poll is its max interval ago is polled at once, on credit if the instant
// has none; WIC picks the rest among the feeds polled at least their min
// interval ago. Without the floor WIC starves slow feeds: its linear
// urgency values a feed by the postings its model expects since the last
// poll, and a feed never polled keeps the rate learned at its last poll,
// so a low estimate is never corrected (at 4 polls a day with a 7-day
// horizon, re-learned weekly, three feeds got no poll in 43 weeks and two
// got one).
func (p *planner) wicWeek(s *schedule, ws time.Time, models []feeds.Model) {
	if s.times == nil {
		s.times = make([][]time.Time, len(models))
	}
	perInstant := float64(p.total) / float64(p.grid.Slots())
	step := p.grid.Step
	last := func(i int) time.Time {
		if n := len(s.times[i]); n > 0 {
			return s.times[i][n-1]
		}
		return s.start
	}
	for k := 1; k <= p.grid.Slots(); k++ {
		t := ws.Add(time.Duration(k) * step)
		mid := t.Add(-step / 2)
		p.wic.Advance(func(url string) float64 {
			return models[p.index[url]].RateAt(mid) * step.Seconds()
		})
		p.credit += perInstant
		var due []int
		for i, b := range p.bounds {
			if b.Min > 0 && t.Sub(last(i)) >= feeds.Period/time.Duration(b.Min) {
				due = append(due, i)
			}
		}
		for _, i := range due {
			s.times[i] = append(s.times[i], t)
			p.wic.Fetched(feedKey(i))
		}
		p.credit -= float64(len(due))
		c := max(0, int(math.Floor(p.credit)))
		p.credit -= float64(c)
		ready := func(url string) bool {
			b := p.bounds[p.index[url]]
			return b.Max <= 0 || t.Sub(last(p.index[url])) >= feeds.Period/time.Duration(b.Max)
		}
		picks := p.wic.Pick(c, ready)
		p.credit += float64(c - len(picks)) // polls no feed could take wait
		for _, ch := range picks {
			i := p.index[ch.URL]
			s.times[i] = append(s.times[i], t)
		}
	}
}

// weekStart returns the Monday 00:00 UTC at or before t.
func weekStart(t time.Time) time.Time {
	t = t.UTC()
	day := (int(t.Weekday()) + 6) % 7
	return time.Date(t.Year(), t.Month(), t.Day()-day, 0, 0, 0, 0, time.UTC)
}

// nextPoll returns the first poll of feed i at or after t.
func (s *schedule) nextPoll(i int, t time.Time) (time.Time, bool) {
	if s.times != nil {
		ts := s.times[i]
		j, _ := slices.BinarySearchFunc(ts, t, func(a, b time.Time) int { return a.Compare(b) })
		if j == len(ts) {
			return time.Time{}, false
		}
		return ts[j], true
	}
	if len(s.weeks) == 0 || t.Before(s.start) {
		return time.Time{}, false
	}
	w := int(t.Sub(s.start) / feeds.Period)
	ws := s.start.Add(time.Duration(w) * feeds.Period)
	off := t.Sub(ws)
	// Look in this week's plan, then the following weeks' (a feed may have
	// no poll left this week).
	for k := 0; k < 3; k++ {
		plan := s.weeks[min(w+k, len(s.weeks)-1)][i]
		for _, slot := range plan {
			if at := time.Duration(slot) * s.step; at >= off {
				return ws.Add(at), true
			}
		}
		ws, off = ws.Add(feeds.Period), 0
	}
	return time.Time{}, false
}

// pollsIn yields feed i's polls in [from, to), in order.
func (s *schedule) pollsIn(i int, from, to time.Time) iter.Seq[time.Time] {
	return func(yield func(time.Time) bool) {
		for t, ok := s.nextPoll(i, from); ok && t.Before(to); t, ok = s.nextPoll(i, t.Add(time.Nanosecond)) {
			if !yield(t) {
				return
			}
		}
	}
}

// polls counts feed i's polls in [from, to).
func (s *schedule) polls(i int, from, to time.Time) int {
	n := 0
	for range s.pollsIn(i, from, to) {
		n++
	}
	return n
}

// longest is the most slots between a feed's polls, its max interval.
func (p *planner) longest() int { return int(p.cfg.MaxInterval / p.grid.Step) }
