package ads

import (
	"math"
	"testing"
)

func TestBMIXEPriority(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Candidate
		n    int64
		want float64
	}{
		// V = 0.16 + 0.9597 > 1/4, so the term is √(ln 100 / 10 · 1/4).
		{"caps the variance at 1/4", seen10(), 100, 1.6179210636622667},
		// ĉ = 0.005: V = 0.004975 + √(2 ln 20000 / 10000) = 0.04948 < 1/4.
		{"uses ĉ(1−ĉ) + √(2 ln n_j/n_ij) when that is below 1/4", Candidate{Bid: 2, Shown: 10000, Clicks: 50}, 20000, 0.024000354861838262},
		{"is infinite for an ad never shown", Candidate{Bid: 2}, 20000, math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			near(t, "P", BMIXE{}.Priority(&tc.c, QueryOf(tc.n)), tc.want)
		})
	}
}

func TestBMIXEExploresLessThanBMIXForSmallCTRs(t *testing.T) {
	c := Candidate{Bid: 1, Shown: 1000, Clicks: 5}
	if e, m := (BMIXE{}).Priority(&c, QueryOf(5000)), (BMIX{}).Priority(&c, QueryOf(5000)); !(e < m) {
		t.Fatalf("BMIX-E P = %v, BMIX P = %v; want BMIX-E smaller", e, m)
	}
}
