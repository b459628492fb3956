package ads

import (
	"math"
	"testing"
)

// near fails unless got is within 1e-9 (relative) of want, or both are the
// same infinity.
func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsInf(want, 0) {
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
		return
	}
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

// seen10 is an ad shown 10 times with 2 clicks and bid 3: ĉ = 0.2.
func seen10() Candidate { return Candidate{ID: 1, Bid: 3, Shown: 10, Clicks: 2} }
