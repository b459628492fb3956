package ads

import (
	"math"
	"testing"
)

func TestGreedyPriority(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Candidate
		want float64
	}{
		{"is the estimated CTR times the bid", seen10(), 0.2 * 3},
		{"ignores the query count", seen10(), 0.6},
		{"is infinite for an ad never shown", Candidate{Bid: 3}, math.Inf(1)},
		{"uses the prior mean for an ad never shown with a prior", Candidate{Bid: 3, Prior: Prior{Alpha: 1, Beta: 99}}, 0.01 * 3},
		{"is zero for an ad shown and never clicked", Candidate{Bid: 3, Shown: 5}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			near(t, "P", Greedy{}.Priority(&tc.c, QueryOf(100)), tc.want)
		})
	}
}
