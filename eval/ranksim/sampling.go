package ranksim

import (
	"math"
	"math/rand/v2"
)

// alias samples from a fixed discrete distribution in O(1) (Vose's alias
// method); the simulator draws every visit's rank position from it.
type alias struct {
	prob  []float64
	alias []int32
}

func newAlias(w []float64) *alias {
	n := len(w)
	a := &alias{prob: make([]float64, n), alias: make([]int32, n)}
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		scaled[i] = x * float64(n)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s], a.alias[s] = scaled[s], l
		scaled[l] += scaled[s] - 1
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		a.prob[i], a.alias[i] = 1, i
	}
	return a
}

func (a *alias) sample(rng *rand.Rand) int {
	i := rng.IntN(len(a.prob))
	if rng.Float64() < a.prob[i] {
		return i
	}
	return int(a.alias[i])
}

// geometric returns the number of failures before the first success of
// independent trials with success probability p (0 < p ≤ 1), capped at
// limit.
func geometric(rng *rand.Rand, p float64, limit int) int {
	if p >= 1 {
		return 0
	}
	g := math.Floor(math.Log(1-rng.Float64()) / math.Log1p(-p))
	if g >= float64(limit) {
		return limit
	}
	return int(g)
}

// exactBelow is the expected count below which binomial and negative
// binomial draws are made exactly, trial by trial; above it a rounded
// normal approximation is used (its error is far below the simulation's
// own noise at that size).
const exactBelow = 30

// binomial draws Binomial(n, p).
func binomial(rng *rand.Rand, n int, p float64) int {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	}
	q := min(p, 1-p)
	var k int
	if float64(n)*q < exactBelow {
		// Skip from success to success: O(successes) draws.
		for i := geometric(rng, q, n); i < n; i += 1 + geometric(rng, q, n) {
			k++
		}
	} else {
		mean, sd := float64(n)*q, math.Sqrt(float64(n)*q*(1-q))
		k = int(max(0, min(float64(n), math.Round(mean+sd*rng.NormFloat64()))))
	}
	if q != p {
		return n - k
	}
	return k
}

// negBinomial draws the number of failures before the t-th success of
// trials with success probability p.
func negBinomial(rng *rand.Rand, t int, p float64, limit int) int {
	if t <= 0 || p >= 1 {
		return 0
	}
	mean := float64(t) * (1 - p) / p
	if mean < exactBelow {
		// Skip from failure to failure: each draw is the number of
		// successes before the next failure, so the cost is O(failures).
		failures, successes := 0, 0
		for {
			successes += geometric(rng, 1-p, t)
			if successes >= t || failures >= limit {
				return min(failures, limit)
			}
			failures++
		}
	}
	sd := math.Sqrt(float64(t)*(1-p)) / p
	return int(max(0, min(float64(limit), math.Round(mean+sd*rng.NormFloat64()))))
}
