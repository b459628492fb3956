package configs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/crawler"
)

// TestDemoAndReplayUpperBounds: each count of the demo and replay settings
// set past its bound, through the environment as a user would, is refused
// naming the variable, the key and the range; the bound is accepted. The
// demo's budget and split are named as demo keys, not as the frontier's.
func TestDemoAndReplayUpperBounds(t *testing.T) {
	for _, tc := range []struct {
		key, lo string
		bound   int
	}{
		{"demo.per_host", "1", crawler.MaxFetches},
		{"demo.budget.fetches", "1", 1_000_000_000},
		{"demo.split.window", "1", 10_000},
		{"demo.queries", "1", maxDemoQueries},
		{"demo.port_tries", "0", maxPortTries},
		{"web.replay.crawl_per_host", "1", crawler.MaxFetches},
		{"web.replay.search.max_results", "page_size (10)", 100_000},
	} {
		env := envName(tc.key)
		for _, v := range []int{1 << 62, tc.bound + 1} {
			_, err := Load(Sources{Env: []string{fmt.Sprintf("%s=%d", env, v)}})
			want := fmt.Sprintf("%s: %s = %d: must be in [%s, %d]", env, tc.key, v, tc.lo, tc.bound)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Load() = %v, want %q", err, want)
			}
		}
		if _, err := Load(Sources{Env: []string{fmt.Sprintf("%s=%d", env, tc.bound)}}); err != nil {
			t.Errorf("%s = %d (the bound): %v", tc.key, tc.bound, err)
		}
	}
}
