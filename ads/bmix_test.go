package ads

import (
	"math"
	"testing"
)

func TestBMIXPriorityIsMIX(t *testing.T) {
	for _, c := range []Candidate{seen10(), {Bid: 2}, {Bid: 1, Shown: 3, Prior: Prior{Alpha: 2, Beta: 5}}} {
		for _, n := range []int64{1, 2, 1000} {
			near(t, "BMIX P", BMIX{}.Priority(&c, QueryOf(n)), MIX{}.Priority(&c, QueryOf(n)))
		}
	}
	c := Candidate{Bid: 2}
	if p := (BMIX{}).Priority(&c, QueryOf(10)); !math.IsInf(p, 1) {
		t.Errorf("never-shown ad: P = %v, want +Inf", p)
	}
}

func TestBMIXDropsAdvertisersOutOfBudget(t *testing.T) {
	cands := []Candidate{
		{ID: 1, Bid: 9, Shown: 10, Clicks: 5, Budgeted: true, Budget: 10, Remaining: 0},
		{ID: 2, Bid: 1, Shown: 10, Clicks: 1, Budgeted: true, Budget: 10, Remaining: 0.5},
		{ID: 3, Bid: 1, Budgeted: true, Budget: 10, Remaining: -1}, // never shown (∞) but overspent
		{ID: 4, Bid: 0.1, Shown: 10, Clicks: 1},                    // no budget
	}
	got := Select(BMIX{}, cands, 100, 4, nil)
	want := []int{1, 3}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Select = %v, want %v (the exhausted advertisers' ads 0 and 2 dropped)", got, want)
	}
}
