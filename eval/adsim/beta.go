package adsim

import (
	"math"
	"math/rand/v2"
)

// logGamma returns the logarithm of a Gamma(a, 1) sample (Marsaglia and
// Tsang 2000; for a < 1 the boost G(a) = G(a+1)·U^(1/a)). Working in logs
// keeps the tiny samples of shapes far below 1 (the α ≈ 0.04 of a
// low-CTR prior, §6.8.1) from underflowing to zero.
func logGamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return logGamma(rng, a+1) + math.Log(u)/a
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

// betaSample draws from Beta(a, b), a, b > 0, as X/(X+Y) with X ~ Γ(a),
// Y ~ Γ(b), computed from the logarithms.
func betaSample(rng *rand.Rand, a, b float64) float64 {
	lx, ly := logGamma(rng, a), logGamma(rng, b)
	return 1 / (1 + math.Exp(ly-lx))
}

// betaFromMoments returns the Beta parameters with the given mean and
// variance; var must be below mean·(1 − mean).
func betaFromMoments(mean, variance float64) (alpha, beta float64) {
	k := mean*(1-mean)/variance - 1
	return mean * k, (1 - mean) * k
}
