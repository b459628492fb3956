package feeds

import (
	"math"
	"math/rand/v2"
	"time"
)

// BinProfiles re-learns every model's shape at now bin by bin of the week
// from the postings in the window before now, each feed's own counts
// shrunk towards its model's daily × weekly shape, which counts as weight
// postings (empirical Bayes): a feed that posts at other hours at the
// weekend than on weekdays is planned on what its postings show as far as
// they are many, and on the product of its habits for the rest. Rates are
// kept.
func BinProfiles(models []Model, postings [][]time.Time, now time.Time, window time.Duration, weight, floor float64) {
	for i := range min(len(models), len(postings)) {
		bins, n := weekBins(postings[i], now.Add(-window), now)
		binProfile(&models[i], &bins, n, weight, floor)
	}
}

// weekBins counts the postings in [from, to) by bin of the week.
func weekBins(postings []time.Time, from, to time.Time) (bins [Bins]float64, n float64) {
	for _, t := range postings {
		if !t.Before(from) && t.Before(to) {
			bins[BinOf(t)]++
			n++
		}
	}
	return bins, n
}

// binProfile is BinProfiles for one model, given its feed's n postings
// counted by bin.
func binProfile(m *Model, bins *[Bins]float64, n, weight, floor float64) {
	prior := m.Shape
	for b := range prior {
		v := (bins[b] + weight*prior[b]/Bins) / (n + weight) * Bins
		m.Shape[b] = (1-floor)*v + floor
	}
}

// Profiling is one choice of how profiles are learned: the window of
// postings, the weight of BinProfiles' daily × weekly prior (0: the
// daily × weekly shape alone), and the weight, in postings, of a feed's
// cluster's daily pattern and all feeds' weekday pattern against its own
// (Prior.Weight; 0: its own alone).
type Profiling struct {
	Window time.Duration
	Weight float64
	Prior  float64
}

// Profiles learns every feed's model at now as LearnAll does over p's
// window with p's prior weight, refined bin by bin (BinProfiles) when p
// has a weight.
func Profiles(cfg Config, postings [][]time.Time, now time.Time, p Profiling, rng *rand.Rand) []Model {
	return p.models(cfg, fitWindow(cfg, postings, now.Add(-p.Window), now, rng))
}

// models is Profiles on the window's fit.
func (p Profiling) models(cfg Config, fit windowFit) []Model {
	models := fit.models(cfg, p.Prior)
	if p.Weight > 0 {
		for i := range models {
			binProfile(&models[i], &fit.bins[i], float64(fit.counts[i].N), p.Weight, cfg.Floor)
		}
	}
	return models
}

// ChooseProfiling returns the one of candidates whose profiles best
// predicted the hours of the postings in each of the last holdout weeks
// before now, each week's profiles learned from what came before it (a
// rolling origin: nothing at or after now is used, so the choice can be
// made anew each week without looking at the weeks it then plans). The
// score is the log-likelihood of each posting's hourly bin under its
// feed's shape, over every feed's postings known by then (up to seen[i]);
// the earlier candidate wins ties, and with no week to test the first is
// returned (with no candidate, cfg.LearnWindow's daily × weekly profiles).
func ChooseProfiling(cfg Config, postings [][]time.Time, seen []time.Time, now time.Time, candidates []Profiling, holdout int, rng *rand.Rand) Profiling {
	switch len(candidates) {
	case 0:
		return Profiling{Window: cfg.LearnWindow}
	case 1:
		return candidates[0]
	}
	score := make([]float64, len(candidates))
	for k := 1; k <= holdout; k++ {
		from := now.Add(-time.Duration(k) * Period)
		to := from.Add(Period)
		week := make([][]int, len(postings)) // bins of the week's postings, per feed
		tested := false
		for i, ps := range postings {
			if i >= len(seen) || seen[i].Before(to) {
				continue // the week is not fully known for this feed
			}
			for _, t := range ps {
				if !t.Before(from) && t.Before(to) {
					week[i] = append(week[i], BinOf(t))
					tested = true
				}
			}
		}
		if !tested {
			continue // a week without postings scores every candidate 0: learning them for it is wasted
		}
		// One fit per window, which every candidate of that window
		// shares: clustered once, not once per weight, so that the
		// candidates also differ in their weights alone.
		fits := map[time.Duration]windowFit{}
		for c, p := range candidates {
			fit, ok := fits[p.Window]
			if !ok {
				fit = fitWindow(cfg, postings, from.Add(-p.Window), from, rng)
				fits[p.Window] = fit
			}
			models := p.models(cfg, fit)
			for i, bins := range week {
				for _, b := range bins {
					score[c] += math.Log(models[i].Shape[b])
				}
			}
		}
	}
	best := 0
	for c := range candidates {
		if score[c] > score[best]+1e-9 {
			best = c
		}
	}
	return candidates[best]
}
