package ads

import (
	"math"
	"testing"
)

func TestThrottle(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Candidate
		want float64
	}{
		{"is 1 − e^(−d′/d) with half the budget left", Candidate{Budgeted: true, Budget: 100, Remaining: 50}, 1 - math.Exp(-0.5)},
		{"is 1 − 1/e with the whole budget left", Candidate{Budgeted: true, Budget: 100, Remaining: 100}, 1 - 1/math.E},
		{"is 0 with nothing left", Candidate{Budgeted: true, Budget: 100, Remaining: 0}, 0},
		{"treats an unbudgeted advertiser as one that has spent nothing", Candidate{}, 1 - 1/math.E},
	} {
		t.Run(tc.name, func(t *testing.T) {
			near(t, "φ", Throttle(&tc.c), tc.want)
		})
	}
}

func TestBMIXTPriority(t *testing.T) {
	c := seen10()
	c.Budgeted, c.Budget, c.Remaining = true, 100, 50
	// MIX priority with b = φ·3, φ = 1 − e^(−1/2).
	near(t, "P", BMIXT{}.Priority(&c, QueryOf(100)), 1.368925299184707)
	fresh := Candidate{Bid: 3, Budgeted: true, Budget: 100, Remaining: 50}
	near(t, "P never shown", BMIXT{}.Priority(&fresh, QueryOf(100)), math.Inf(1))
}
