package adsim

import (
	"math"
	"testing"
)

func TestBetaSampleMoments(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b float64
	}{
		{"of a moderate Beta(2, 5)", 2, 5},
		{"of a low-CTR prior Beta(0.045, 8.9) without underflow", 0.045, 8.9},
		{"of a concentrated Beta(46, 9954)", 46, 9954},
	} {
		t.Run("match the mean and variance "+tc.name, func(t *testing.T) {
			rng := newRand(3, streamPriors)
			const n = 100000
			var s, ss float64
			for range n {
				x := betaSample(rng, tc.a, tc.b)
				if !(x >= 0 && x <= 1) || math.IsNaN(x) {
					t.Fatalf("sample %v outside [0, 1]", x)
				}
				s += x
				ss += x * x
			}
			mean, variance := s/n, ss/n-(s/n)*(s/n)
			wantMean := tc.a / (tc.a + tc.b)
			wantVar := tc.a * tc.b / ((tc.a + tc.b) * (tc.a + tc.b) * (tc.a + tc.b + 1))
			if math.Abs(mean-wantMean) > 0.03*wantMean || math.Abs(variance-wantVar) > 0.1*wantVar {
				t.Fatalf("mean %v var %v, want %v and %v", mean, variance, wantMean, wantVar)
			}
		})
	}
}

func TestBetaFromMoments(t *testing.T) {
	a, b := betaFromMoments(0.2, 0.02)
	if math.Abs(a-1.4) > 1e-12 || math.Abs(b-5.6) > 1e-12 {
		t.Fatalf("Beta(%v, %v), want Beta(1.4, 5.6)", a, b)
	}
}

func TestPoissonMean(t *testing.T) {
	rng := newRand(5, streamLifetimes)
	for _, mean := range []float64{0.5, 3, 24, 720} {
		sum := 0
		const n = 20000
		for range n {
			sum += poisson(rng, mean)
		}
		if got := float64(sum) / n; math.Abs(got-mean) > 0.03*mean+0.02 {
			t.Errorf("Poisson(%v) mean %v", mean, got)
		}
	}
}
