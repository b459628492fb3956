// Package randdist draws from the distributions the project's Bayesian
// policies sample their posteriors from (Beta for click-through rates,
// Gamma for change rates and impacts). It holds no state: every draw
// takes the caller's seeded *rand.Rand.
//
//	x := randdist.Beta(rng, 2, 5)
//	g := math.Exp(randdist.LogGamma(rng, 3)) // a Gamma(3, 1) sample
package randdist

import (
	"math"
	"math/rand/v2"
)

// LogGamma returns the logarithm of a Gamma(a, 1) sample, a > 0 (Marsaglia
// and Tsang 2000; for a < 1 the boost G(a) = G(a+1)·U^(1/a)). Working in
// logs keeps the tiny samples of shapes far below 1 (the α ≈ 0.04 of a
// low-CTR prior) from underflowing to zero.
func LogGamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return LogGamma(rng, a+1) + math.Log(u)/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return math.Log(d * v)
		}
	}
}

// Beta draws from Beta(a, b), a, b > 0, as X/(X+Y) with X ~ Γ(a),
// Y ~ Γ(b), computed from the logarithms.
func Beta(rng *rand.Rand, a, b float64) float64 {
	lx, ly := LogGamma(rng, a), LogGamma(rng, b)
	return 1 / (1 + math.Exp(ly-lx))
}
