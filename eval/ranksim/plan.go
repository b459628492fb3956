package ranksim

import "math"

// plan is the set of experiments one run performs: the thesis's figures
// and the grid of each.
type plan struct {
	name string
	base Community
	// Simulated time, in lifetimes of the community simulated: warm-up
	// first (at least minWarmupDays), then measurement.
	warmupLifetimes, measureLifetimes float64
	minWarmupDays                     int
	ghosts                            int // TBP probes per run
	qpcSample                         int // visits per day QPC is measured on, at least the monitored ones
	// workBudget caps the work of one run's measurement, in units of
	// dayCost: a big community, or one with many visits a day, is measured
	// for fewer lifetimes, but at least minMeasureLifetimes (its QPC is
	// steadier: more visits make the dynamics faster, more pages average
	// more of them).
	workBudget          float64
	minMeasureLifetimes float64

	rTBP      []float64 // fig. 5.4 (k = 1)
	rQPC      []float64 // fig. 5.5 (k = 1)
	kGrid     []int     // fig. 5.6
	rGrid     []float64 // fig. 5.6
	sizes     []int     // fig. 5.7: n, with u = n/10, m = u/10, v_u = u
	lifetimes []float64 // fig. 5.8: l in years
	visits    []float64 // fig. 5.9: v_u, with u = v_u, m = u/10
	users     []int     // fig. 5.10: u, with m = u/10
	surf      []float64 // fig. 5.11: x
	teleport  float64   // c of §5.9
	// analysisR are the r of the analytic curves (k = 1); the thesis's
	// analysis is meant for small r (§5.7.2, footnote 4).
	analysisR []float64
}

// recommended are the policies of §5.8's robustness study: the thesis's
// recipe, selective promotion with r = 0.1 at k = 1 and k = 2, against the
// nonrandomized ranking.
var recommended = []Policy{
	{Rule: Nonrandomized},
	{Rule: Selective, K: 1, R: 0.1},
	{Rule: Selective, K: 2, R: 0.1},
}

func fullPlan() plan {
	return plan{
		name:                "full",
		base:                DefaultCommunity(),
		warmupLifetimes:     4,
		measureLifetimes:    40,
		minWarmupDays:       365,
		ghosts:              256,
		qpcSample:           100,
		workBudget:          2e7,
		minMeasureLifetimes: 8,
		rTBP:                []float64{0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2},
		rQPC:                []float64{0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.3, 0.4, 0.6, 0.8, 1},
		kGrid:               []int{1, 2, 3, 6, 11, 21},
		rGrid:               []float64{0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1},
		sizes:               []int{1000, 3000, 10000, 30000, 100000},
		lifetimes:           []float64{0.25, 0.5, 1, 1.5, 3, 6},
		visits:              []float64{10, 100, 1000, 10000, 100000},
		users:               []int{100, 1000, 10000, 100000, 1000000},
		surf:                []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1},
		teleport:            0.15,
		analysisR:           []float64{0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2},
	}
}

// quickPlan scales the default community down tenfold in pages, users and
// visits (keeping every ratio of §5.7.1) and thins the grids.
func quickPlan() plan {
	base := DefaultCommunity()
	base.Pages, base.Users, base.Monitored, base.VisitsPerDay = 1000, 100, 10, 100
	return plan{
		name:                "quick",
		base:                base,
		warmupLifetimes:     2,
		measureLifetimes:    6,
		minWarmupDays:       365,
		ghosts:              32,
		qpcSample:           10,
		workBudget:          1e6,
		minMeasureLifetimes: 4,
		rTBP:                []float64{0, 0.1, 0.2},
		rQPC:                []float64{0, 0.1, 0.2, 1},
		kGrid:               []int{1, 2, 6},
		rGrid:               []float64{0.1, 0.4, 1},
		sizes:               []int{300, 1000, 3000},
		lifetimes:           []float64{0.5, 1.5, 3},
		visits:              []float64{10, 100, 1000},
		users:               []int{10, 100, 1000},
		surf:                []float64{0, 0.5, 1},
		teleport:            0.15,
		analysisR:           []float64{0, 0.1, 0.2},
	}
}

// days returns the warm-up and measurement lengths for a community.
func (p plan) days(c Community) (warmup, measure int) {
	warmup = max(p.minWarmupDays, int(math.Ceil(p.warmupLifetimes*c.LifetimeDays)))
	lifetimes := p.measureLifetimes
	if budget := p.workBudget / p.dayCost(c) / c.LifetimeDays; budget < lifetimes {
		lifetimes = max(p.minMeasureLifetimes, budget)
	}
	measure = int(math.Ceil(lifetimes * c.LifetimeDays))
	return warmup, measure
}

// dayCost estimates the work of one simulated day: a pass over the pages
// to rebuild the ranking, and the visits.
func (p plan) dayCost(c Community) float64 {
	return 0.03*float64(c.Pages) + max(c.MonitoredVisits(), min(c.VisitsPerDay, float64(p.qpcSample)))
}

// tbpThreshold is the awareness count at which popularity A·Q exceeds
// 99 % of quality Q (§5.4.2): A > 0.99.
func tbpThreshold(m int) int {
	return min(m, int(math.Floor(0.99*float64(m)))+1)
}

// sizeCommunity is §5.8.1's community of n pages: u/n = 10 %, m/u = 10 %,
// one visit per user per day.
func (p plan) sizeCommunity(n int) Community {
	c := p.base
	c.Pages, c.Users = n, max(1, n/10)
	c.Monitored = max(1, c.Users/10)
	c.VisitsPerDay = float64(c.Users)
	return c
}

// lifetimeCommunity is §5.8.2's: the default with lifetime l years.
func (p plan) lifetimeCommunity(years float64) Community {
	c := p.base
	c.LifetimeDays = years * daysPerYear
	return c
}

// visitCommunity is §5.8.3's: v_u visits a day by u = v_u users, m/u = 10 %.
func (p plan) visitCommunity(vu float64) Community {
	c := p.base
	c.VisitsPerDay = vu
	c.Users = max(1, int(vu))
	c.Monitored = max(1, c.Users/10)
	return c
}

// userCommunity is §5.8.4's: u users making the default v_u visits, m/u = 10 %.
func (p plan) userCommunity(u int) Community {
	c := p.base
	c.Users = u
	c.Monitored = max(1, u/10)
	return c
}
