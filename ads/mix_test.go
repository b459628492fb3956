package ads

import (
	"math"
	"testing"
)

func TestMIXPriority(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Candidate
		n    int64
		want float64
	}{
		// (0.2 + √(2 ln 100 / 10))·3 = (0.2 + 0.959705…)·3
		{"adds √(2 ln n_j / n_ij) to the estimate and multiplies by the bid", seen10(), 100, 3.479115547312849},
		{"is infinite for an ad never shown", Candidate{Bid: 3}, 100, math.Inf(1)},
		{"has no exploration bonus on a phrase's first query", seen10(), 1, 0.6},
		// ĉ = (1+3)/(1+99+100) = 0.02, evidence 200: (0.02 + √(2 ln 100 / 200))·3
		{"uses the Beta posterior mean and counts the prior as evidence", Candidate{Bid: 3, Shown: 100, Clicks: 3, Prior: Prior{Alpha: 1, Beta: 99}}, 100, 0.7037898078868041},
		// ĉ = 0.01, evidence 100: (0.01 + √(2 ln 100 / 100))·3
		{"is finite for an ad never shown that has a prior", Candidate{Bid: 3, Prior: Prior{Alpha: 1, Beta: 99}}, 100, 0.9404562776310879},
	} {
		t.Run(tc.name, func(t *testing.T) {
			near(t, "P", MIX{}.Priority(&tc.c, QueryOf(tc.n)), tc.want)
		})
	}
}
