package relation

import (
	"errors"
	"fmt"
	"math"
)

// FrequencyG is g(x̃, I) of §4.4 for a plan sent in the ascending order:
//
//	g(x, I) = (1/|L|²) Σ_i Σ_{e_j ∈ g_i} w(e_j)·λ_j·(k − x_i)²·I / (2k)
//
// the expected staleness at the end of a loop, E[F(L;kI)], over the
// staleness kI·|L| a relation growing by one per tuple per unit would
// reach. It is increasing in I.
func FrequencyG(tuples []Tuple, probes []Probe) func(interval float64) float64 {
	return func(interval float64) float64 {
		k := len(probes)
		if k == 0 || len(tuples) == 0 || interval <= 0 {
			return 0
		}
		a := GroupCosts(tuples, probes, interval)
		x := Slots(AscendingOrder(a))
		return ExpectedLoopStaleness(a, x) / (float64(k) * interval * float64(len(tuples)))
	}
}

// ErrNoInterval is returned by SearchInterval when g stays on one side of α
// over the whole searchable range.
var ErrNoInterval = errors.New("relation: no interval meets the staleness target")

// intervalRange bounds the doubling and halving: 2^±60 times I_0.
const intervalRange = 60

// SearchInterval is §4.4's search for the query interval: from I_0 double
// (or halve) until g crosses α, so g(2^{s−1}I_0) ≤ α ≤ g(2^s I_0), then
// binary-search [2^{s−1}I_0, 2^s I_0] for the largest I with g(I) ≤ α, to
// a relative width tol. g must be non-decreasing.
func SearchInterval(g func(float64) float64, alpha, i0, tol float64) (float64, error) {
	switch {
	case !(alpha > 0) || math.IsInf(alpha, 0):
		return 0, fmt.Errorf("relation: staleness target alpha = %v: must be > 0 and finite", alpha)
	case !(i0 > 0) || math.IsInf(i0, 0):
		return 0, fmt.Errorf("relation: initial interval = %v: must be > 0 and finite", i0)
	case !(tol > 0) || tol >= 1:
		return 0, fmt.Errorf("relation: interval tolerance = %v: must be in (0, 1)", tol)
	}
	lo, hi := i0, i0
	if g(i0) <= alpha {
		for s := 0; g(hi) <= alpha; s++ {
			if s == intervalRange {
				return 0, fmt.Errorf("%w: g(%g) = %g is still <= alpha = %g", ErrNoInterval, hi, g(hi), alpha)
			}
			lo, hi = hi, hi*2
		}
	} else {
		for s := 0; g(lo) > alpha; s++ {
			if s == intervalRange {
				return 0, fmt.Errorf("%w: g(%g) = %g is still > alpha = %g", ErrNoInterval, lo, g(lo), alpha)
			}
			lo, hi = lo/2, lo
		}
	}
	for (hi-lo)/lo > tol {
		mid := (lo + hi) / 2
		if g(mid) <= alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
