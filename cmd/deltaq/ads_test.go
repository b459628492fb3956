package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

// TestAdsCreateAdvertiserRefusesADirectoryWithoutARepository: a mistyped
// --data is refused and left uncreated, rather than given a fresh
// repository and a key that the server, which needs a crawled repository,
// never accepts.
func TestAdsCreateAdvertiserRefusesADirectoryWithoutARepository(t *testing.T) {
	data := filepath.Join(t.TempDir(), "typo")
	out, _, err := run(t, "ads", "create-advertiser", "--data", data, "--name", "X")
	if err == nil || !strings.Contains(err.Error(), "--data "+data+": no repository there") {
		t.Fatalf("err = %v (output %q), want it to say %s holds no repository", err, out, data)
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: %v, want it left uncreated", data, err)
	}
}
