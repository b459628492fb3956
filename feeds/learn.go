package feeds

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// LearnAll learns every feed's model from its posting times in [from, to):
// it clusters the feeds' daily patterns, then shrinks each feed's own
// hour-of-day shares towards its cluster's centroid and its weekday shares
// towards all feeds' weekday shares (Sia & Cho §5, learning posting rates
// and patterns; clusters for sparse feeds). It also returns the centroids.
func LearnAll(cfg Config, postings [][]time.Time, from, to time.Time, rng *rand.Rand) ([]Model, []Daily) {
	f := fitWindow(cfg, postings, from, to, rng)
	return f.models(cfg, cfg.PriorWeight), f.centroids
}

// windowFit is what LearnAll draws from a window before any weight
// applies: each feed's counts, by hour and weekday and by bin of the week
// (for BinProfiles), all feeds' weekday shares and the clusters.
// Candidates that differ in their weights alone share one: counting and
// clustering are most of the learning's cost.
type windowFit struct {
	counts    []Counts
	bins      [][Bins]float64
	weekday   [7]float64
	centroids []Daily
	assign    []int
}

func fitWindow(cfg Config, postings [][]time.Time, from, to time.Time, rng *rand.Rand) windowFit {
	f := windowFit{counts: make([]Counts, len(postings)), bins: make([][Bins]float64, len(postings))}
	total := 0.0
	for i, p := range postings {
		f.bins[i], _ = weekBins(p, from, to)
		f.counts[i] = countsOf(&f.bins[i], to.Sub(from))
		for d, v := range f.counts[i].Weekday {
			f.weekday[d] += v
			total += v
		}
	}
	for d := range f.weekday {
		if total > 0 {
			f.weekday[d] /= total
		} else {
			f.weekday[d] = 1.0 / 7
		}
	}
	f.centroids, f.assign = Cluster(f.counts, cfg.Clusters, cfg.ClusterMinPostings, cfg.ClusterIterations, rng)
	return f
}

// models learns every feed's model with the cluster's and weekday prior
// worth priorWeight postings.
func (f windowFit) models(cfg Config, priorWeight float64) []Model {
	models := make([]Model, len(f.counts))
	for i, c := range f.counts {
		models[i] = Learn(c, Prior{
			Daily: f.centroids[f.assign[i]], Weekday: f.weekday,
			Weight: priorWeight, Floor: cfg.Floor, RateCount: cfg.RateCount,
		}, f.assign[i])
	}
	return models
}

// LearnRecent learns every feed's model at now as the live plan
// (PlanAll) and the evaluation's weekly re-learning do: profiles (Profiles)
// learned as the candidate of cfg's profile windows and bin weights that
// best predicted the last weeks (ChooseProfiling), rates that follow
// drift from the postings since since, feed i's known up to its last poll
// seen[i] (RecentRates with cfg.RateHalfLives and cfg.RateHoldoutWeeks).
func LearnRecent(cfg Config, postings [][]time.Time, since time.Time, seen []time.Time, now time.Time, rng *rand.Rand) []Model {
	p := ChooseProfiling(cfg, postings, seen, now, cfg.profilings(), cfg.ProfileHoldoutWeeks, rng)
	models := Profiles(cfg, postings, now, p, rng)
	RecentRates(models, postings, since, seen, now, cfg.RateHalfLives, cfg.RatePriors, cfg.RateHoldoutWeeks, cfg.RateCount)
	return models
}

// RecentRates replaces every model's rate λ̄ by an exponentially weighted
// estimate at now (RateRule.Rates), so the rate follows a feed whose activity
// drifts (a project's busy and quiet spells) where a window's plain count
// lags by half the window, shrunk towards all feeds' pooled rate by a
// prior worth some exposure (empirical Bayes: a feed with few postings is
// known less well than its count says). The half-life among halfLives and
// the prior among priors are the pair that best predicted all feeds' last
// holdout weeks, one week ahead each, summed over the feeds (pooled: one
// feed's few weeks choose noisily, ChooseRates). seen[i] is feed i's last
// poll: what it posted since is not known yet. No halfLives leaves the
// rates as they are.
func RecentRates(models []Model, postings [][]time.Time, since time.Time, seen []time.Time, now time.Time, halfLives, priors []time.Duration, holdout int, pseudo float64) {
	if len(halfLives) == 0 {
		return
	}
	known := func(i int) bool { return i < len(models) && i < len(seen) && seen[i].After(since) }
	var feeds [][]time.Time
	var last []time.Time
	for i, ps := range postings {
		if known(i) {
			feeds, last = append(feeds, ps), append(last, seen[i])
		}
	}
	best := ChooseRates(feeds, since, last, halfLives, priors, holdout, pseudo)
	rates := best.Rates(feeds, since, last, now, pseudo)
	k := 0
	for i := range postings {
		if known(i) {
			models[i].Rate = rates[k]
			k++
		}
	}
}

// RateRule is how RecentRates estimates rates: postings weighted by
// 2^(−age/HalfLife), plus Prior of exposure at all feeds' pooled rate.
type RateRule struct {
	HalfLife, Prior time.Duration
}

// Rates returns each feed's rate at now under the rule from its postings
// in [since, seen[i]] (recentCount), shrunk towards the pooled rate.
func (r RateRule) Rates(postings [][]time.Time, since time.Time, seen []time.Time, now time.Time, pseudo float64) []float64 {
	at := make([]time.Time, len(postings))
	for i := range at {
		at[i] = now
	}
	return r.ratesAt(postings, since, seen, at, pseudo)
}

// ratesAt is Rates with feed i's rate taken at at[i]; the pooled rate is
// all feeds' weighted postings over their weighted exposure.
func (r RateRule) ratesAt(postings [][]time.Time, since time.Time, seen, at []time.Time, pseudo float64) []float64 {
	return countsAt(postings, since, seen, at, r.HalfLife, pseudo).rates(r.Prior)
}

// weightedCounts are each feed's weighted postings and exposure
// (recentCount) under one half-life, and their sums over the feeds: what a
// rate needs but the prior it is shrunk with.
type weightedCounts struct {
	num, exposure           []float64
	totalNum, totalExposure float64
}

func countsAt(postings [][]time.Time, since time.Time, seen, at []time.Time, halfLife time.Duration, pseudo float64) weightedCounts {
	c := weightedCounts{num: make([]float64, len(postings)), exposure: make([]float64, len(postings))}
	for i, ps := range postings {
		c.num[i], c.exposure[i] = recentCount(ps, since, seen[i], at[i], halfLife, pseudo)
		c.totalNum += c.num[i]
		c.totalExposure += c.exposure[i]
	}
	return c
}

// rates are the feeds' rates, each shrunk towards the pooled rate by prior
// (exposure at that rate).
func (c weightedCounts) rates(prior time.Duration) []float64 {
	pooled := 0.0
	if c.totalExposure > 0 {
		pooled = c.totalNum / c.totalExposure
	}
	p := prior.Seconds()
	out := make([]float64, len(c.num))
	for i := range out {
		if c.exposure[i] > 0 {
			out[i] = (c.num[i] + p*pooled) / (c.exposure[i] + p)
		}
	}
	return out
}

// recentCount is a feed's postings in [since, seen] each counted
// 2^(−age/halfLife) at now, and the exposure (seconds) weighted alike from
// since to seen (after seen nothing is known yet; counting it as silent
// would bias a rarely polled feed down): their ratio is its rate. pseudo
// postings at seen keep a feed gone quiet at a small rate.
func recentCount(ps []time.Time, since, seen, now time.Time, halfLife time.Duration, pseudo float64) (num, exposure float64) {
	if !seen.After(since) || halfLife <= 0 {
		return 0, 0
	}
	tau := halfLife.Seconds() / math.Ln2
	weight := func(t time.Time) float64 { return math.Exp(-now.Sub(t).Seconds() / tau) }
	num = pseudo * weight(seen)
	for _, t := range ps {
		if !t.Before(since) && !t.After(seen) {
			num += weight(t)
		}
	}
	return num, tau * (weight(seen) - weight(since))
}

// ChooseRates returns the rule, of every half-life among halfLives and
// prior among 0 and priors, whose rates, estimated at the start of each of
// the holdout weeks before each feed's last poll seen[i] from what came
// before it (the pooled rate too), gave the weeks' counts the highest
// Poisson log-likelihood summed over the weeks and the feeds; the longest
// half-life and then the weakest prior win ties, and with no week to test
// (too short a history) the longest half-life without a prior is returned.
func ChooseRates(postings [][]time.Time, since time.Time, seen []time.Time, halfLives, priors []time.Duration, holdout int, pseudo float64) RateRule {
	best := RateRule{HalfLife: slices.Max(halfLives)}
	if len(halfLives) == 1 && len(priors) == 0 {
		return best
	}
	seen = seen[:min(len(postings), len(seen))]
	postings = postings[:len(seen)]
	priors = append([]time.Duration{0}, priors...)
	bestLL := math.Inf(-1)
	for _, hl := range halfLives {
		lls, tested := holdoutLL(postings, since, seen, holdout, pseudo, hl, priors)
		for k, prior := range priors {
			ll := lls[k]
			better := ll > bestLL+1e-9 || ll >= bestLL-1e-9 && (hl > best.HalfLife || hl == best.HalfLife && prior < best.Prior)
			if tested > 0 && better {
				best, bestLL = RateRule{HalfLife: hl, Prior: prior}, ll
			}
		}
	}
	return best
}

// holdoutLL is, for each of priors, the Poisson log-likelihood of each
// feed's counts in each of the holdout weeks before its last poll seen[i]
// under the rule (halfLife, that prior)'s rate at the week's start from
// what came before it; and the feed-weeks tested. The weighted counts do
// not depend on the prior, so each week's are made once for all of them.
func holdoutLL(postings [][]time.Time, since time.Time, seen []time.Time, holdout int, pseudo float64, halfLife time.Duration, priors []time.Duration) ([]float64, int) {
	lls, tested := make([]float64, len(priors)), 0
	for k := 1; k <= holdout; k++ {
		var feeds [][]time.Time
		var from []time.Time
		for i, ps := range postings {
			if f := seen[i].Add(-time.Duration(k) * Period); f.Sub(since) >= Period {
				feeds, from = append(feeds, ps), append(from, f)
			}
		}
		if len(feeds) == 0 {
			continue
		}
		counts := make([]int, len(feeds)) // postings in the week
		for j, ps := range feeds {
			for _, t := range ps {
				if t.After(from[j]) && !t.After(from[j].Add(Period)) {
					counts[j]++
				}
			}
		}
		c := countsAt(feeds, since, from, from, halfLife, pseudo)
		for p, prior := range priors {
			for j, rate := range c.rates(prior) {
				mean := rate * Period.Seconds()
				lls[p] += float64(counts[j])*math.Log(max(mean, 1e-12)) - mean
			}
		}
		tested += len(feeds)
	}
	return lls, tested
}
