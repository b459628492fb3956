package adsim

import (
	"math/rand/v2"

	"github.com/deltaq/deltaq/internal/randdist"
)

// betaSample draws from Beta(a, b), a, b > 0.
func betaSample(rng *rand.Rand, a, b float64) float64 { return randdist.Beta(rng, a, b) }

// betaFromMoments returns the Beta parameters with the given mean and
// variance; var must be below mean·(1 − mean).
func betaFromMoments(mean, variance float64) (alpha, beta float64) {
	k := mean*(1-mean)/variance - 1
	return mean * k, (1 - mean) * k
}
