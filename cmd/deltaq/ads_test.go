package main

import (
	"strings"
	"testing"
)

// TestAdsCreateAdvertiserNamesItsFlagAndTheRange: a budget out of range is
// refused naming --daily-budget and the configured maximum, whichever side
// of it the value is on.
func TestAdsCreateAdvertiserNamesItsFlagAndTheRange(t *testing.T) {
	const limit = "must be 0 (no budget) or in (0, 1000000] (ads.max_daily_budget)"
	for _, c := range []struct{ budget, want string }{
		{"-1", "--daily-budget = -1: " + limit},
		{"1e7", "--daily-budget = 1e+07: " + limit},
		{"1e300", "--daily-budget = 1e+300: " + limit},
	} {
		t.Run(c.budget, func(t *testing.T) {
			_, _, err := run(t, "ads", "create-advertiser", "--data", t.TempDir(), "--name", "a", "--daily-budget", c.budget)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}
