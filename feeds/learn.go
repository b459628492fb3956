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
	counts := make([]Counts, len(postings))
	var weekday [7]float64
	total := 0.0
	for i, p := range postings {
		counts[i] = Count(p, from, to)
		for d, v := range counts[i].Weekday {
			weekday[d] += v
			total += v
		}
	}
	for d := range weekday {
		if total > 0 {
			weekday[d] /= total
		} else {
			weekday[d] = 1.0 / 7
		}
	}
	centroids, assign := Cluster(counts, cfg.Clusters, cfg.ClusterMinPostings, cfg.ClusterIterations, rng)
	models := make([]Model, len(postings))
	for i, c := range counts {
		models[i] = Learn(c, Prior{
			Daily: centroids[assign[i]], Weekday: weekday,
			Weight: cfg.PriorWeight, Floor: cfg.Floor, RateCount: cfg.RateCount,
		}, assign[i])
	}
	return models, centroids
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
	RecentRates(models, postings, since, seen, now, cfg.RateHalfLives, cfg.RateHoldoutWeeks, cfg.RateCount)
	return models
}

// RecentRates replaces every model's rate λ̄ by an exponentially weighted
// estimate at now (RecentRate), so the rate follows a feed whose activity
// drifts (a project's busy and quiet spells) where a window's plain count
// lags by half the window. The half-life is the one of halfLives that best
// predicted all feeds' last holdout weeks, one week ahead each, summed over
// the feeds (pooled: one feed's few weeks choose noisily, ChooseHalfLife).
// seen[i] is feed i's last poll: what it posted since is not known yet. No
// halfLives leaves the rates as they are.
func RecentRates(models []Model, postings [][]time.Time, since time.Time, seen []time.Time, now time.Time, halfLives []time.Duration, holdout int, pseudo float64) {
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
	best := ChooseHalfLife(feeds, since, last, halfLives, holdout, pseudo)
	for i, ps := range postings {
		if known(i) {
			models[i].Rate = RecentRate(ps, since, seen[i], now, best, pseudo)
		}
	}
}

// RecentRate is the exponentially weighted posting rate at now of the
// postings in [since, seen]: each counts 2^(−age/halfLife), over the
// exposure weighted alike from since to seen (after seen nothing is known
// yet; counting it as silent would bias a rarely polled feed down), plus
// pseudo postings so a feed gone quiet keeps a small rate.
func RecentRate(ps []time.Time, since, seen, now time.Time, halfLife time.Duration, pseudo float64) float64 {
	if !seen.After(since) || halfLife <= 0 {
		return 0
	}
	tau := halfLife.Seconds() / math.Ln2
	weight := func(t time.Time) float64 { return math.Exp(-now.Sub(t).Seconds() / tau) }
	num := pseudo * weight(seen)
	for _, t := range ps {
		if !t.Before(since) && !t.After(seen) {
			num += weight(t)
		}
	}
	return num / (tau * (weight(seen) - weight(since)))
}

// ChooseHalfLife returns the half-life of candidates whose rates,
// estimated at the start of each of the holdout weeks before each feed's
// last poll seen[i] from what came before it, gave the weeks' counts the
// highest Poisson log-likelihood summed over the weeks and the feeds; the
// longest wins ties, and with no week to test (too short a history) the
// longest is returned.
func ChooseHalfLife(postings [][]time.Time, since time.Time, seen []time.Time, candidates []time.Duration, holdout int, pseudo float64) time.Duration {
	best, bestLL := slices.Max(candidates), math.Inf(-1)
	if len(candidates) == 1 {
		return best
	}
	for _, hl := range candidates {
		ll, tested := 0.0, 0
		for i, ps := range postings[:min(len(postings), len(seen))] {
			l, n := halfLifeLL(ps, since, seen[i], hl, holdout, pseudo)
			ll, tested = ll+l, tested+n
		}
		if tested > 0 && (ll > bestLL+1e-9 || ll >= bestLL-1e-9 && hl > best) {
			best, bestLL = hl, ll
		}
	}
	return best
}

// halfLifeLL is the Poisson log-likelihood of a feed's counts in each of
// the holdout weeks before seen under the rate at the week's start from
// what came before it (RecentRate with halfLife), and the weeks tested.
func halfLifeLL(ps []time.Time, since, seen time.Time, halfLife time.Duration, holdout int, pseudo float64) (float64, int) {
	ll, tested := 0.0, 0
	for k := 1; k <= holdout; k++ {
		from := seen.Add(-time.Duration(k) * Period)
		if from.Sub(since) < Period {
			break
		}
		mean := RecentRate(ps, since, from, from, halfLife, pseudo) * Period.Seconds()
		n := 0
		for _, t := range ps {
			if t.After(from) && !t.After(from.Add(Period)) {
				n++
			}
		}
		ll += float64(n)*math.Log(max(mean, 1e-12)) - mean
		tested++
	}
	return ll, tested
}
