package relation

import (
	"math"
	"time"

	"github.com/deltaq/deltaq/frontier"
)

// RateObservation is what the syncs of one tuple have seen so far, the
// input of its learned update rate λ̂ (§4.2's Poisson model, fitted online).
type RateObservation struct {
	Syncs   int     // n: re-synchronisations that compared a previous copy
	Changed int     // X: those that found the tuple changed
	Updates float64 // updates counted where the dissimilarity counts them (|Δ| of a numeric field)
	Span    float64 // time the n intervals cover, in time units
	Counted bool    // Updates is a count (numeric field), not only "changed"
}

// Observe adds one re-synchronisation after elapsed time units that saw the
// tuple changed or not and, for a numeric dissimilarity, delta updates.
func (o *RateObservation) Observe(elapsed float64, changed bool, delta float64, counted bool) {
	if elapsed <= 0 {
		return
	}
	o.Syncs++
	o.Span += elapsed
	if changed {
		o.Changed++
	}
	if counted {
		o.Counted = true
		o.Updates += math.Abs(delta)
	}
}

// Rate returns λ̂ in updates per time unit: the estimate below, shrunk
// towards prior as if prior had been observed over priorWeight time
// units (a Gamma prior's posterior mean), so a tuple seen unchanged a few
// times keeps a small positive rate and its expected staleness still
// grows: the trap of a rate of 0 that is never re-checked (thesis §7.2)
// is avoided. Before any observation it is prior. A numeric dissimilarity counts updates, and its estimate is
// the Poisson maximum likelihood Σ updates / Σ time; "changed" sees at
// most one change per interval, and its estimate is Cho and Garcia-Molina's
// bias-reduced −ln((n − X + 0.5)/(n + 0.5)) / mean interval, the one the
// frontier uses for pages.
func (o RateObservation) Rate(prior, priorWeight float64) float64 {
	if o.Syncs == 0 || o.Span <= 0 {
		return prior
	}
	return (o.estimate()*o.Span + prior*priorWeight) / (o.Span + priorWeight)
}

func (o RateObservation) estimate() float64 {
	if o.Counted {
		return o.Updates / o.Span
	}
	// Durations carry the span at nanosecond resolution of one unit.
	r, ok := frontier.ChangeRate(o.Syncs, o.Changed, time.Duration(o.Span*float64(time.Second)), time.Second)
	if !ok {
		return 0
	}
	return r
}
