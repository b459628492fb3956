package randdist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGammaMoments draws 200k samples per shape, below and above 1, and
// checks the mean and variance of Gamma(a, 1) (both a) within 2 %.
func TestGammaMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, a := range []float64{0.3, 1, 2, 9.5} {
		const n = 200000
		var s, ss float64
		for range n {
			x := math.Exp(LogGamma(rng, a))
			s += x
			ss += x * x
		}
		mean := s / n
		v := ss/n - mean*mean
		if math.Abs(mean-a) > 0.02*a || math.Abs(v-a) > 0.02*a+0.01 {
			t.Errorf("Gamma(%g): mean %.4f, variance %.4f; want both %g", a, mean, v, a)
		}
	}
}
