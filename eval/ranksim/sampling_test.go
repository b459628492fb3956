package ranksim

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAliasSamplesItsDistribution(t *testing.T) {
	w := rankWeights(50)
	a := newAlias(w)
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 500000
	counts := make([]int, len(w))
	for range draws {
		counts[a.sample(rng)]++
	}
	for i, p := range w {
		got := float64(counts[i]) / draws
		sd := math.Sqrt(p * (1 - p) / draws)
		if math.Abs(got-p) > 5*sd+1e-9 {
			t.Errorf("rank %d: frequency %.5f, want %.5f", i+1, got, p)
		}
	}
}

func TestBinomialAndNegativeBinomialMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name     string
		draw     func() int
		mean, sd float64
	}{
		{"binomial, exact path", func() int { return binomial(rng, 40, 0.1) }, 4, math.Sqrt(40 * 0.1 * 0.9)},
		{"binomial, p above one half", func() int { return binomial(rng, 40, 0.9) }, 36, math.Sqrt(40 * 0.1 * 0.9)},
		{"binomial, normal path", func() int { return binomial(rng, 5000, 0.3) }, 1500, math.Sqrt(5000 * 0.3 * 0.7)},
		{"negative binomial, exact path", func() int { return negBinomial(rng, 50, 0.9, 1<<30) }, 50 * 0.1 / 0.9, math.Sqrt(50*0.1) / 0.9},
		{"negative binomial, normal path", func() int { return negBinomial(rng, 2000, 0.5, 1<<30) }, 2000, math.Sqrt(2000*0.5) / 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 40000
			sum, ss := 0.0, 0.0
			for range n {
				x := float64(c.draw())
				sum += x
				ss += x * x
			}
			mean := sum / n
			sd := math.Sqrt(ss/n - mean*mean)
			if math.Abs(mean-c.mean) > 5*c.sd/math.Sqrt(n) {
				t.Errorf("mean %.4f, want %.4f", mean, c.mean)
			}
			if math.Abs(sd-c.sd) > 0.05*c.sd {
				t.Errorf("sd %.4f, want %.4f", sd, c.sd)
			}
		})
	}
}
