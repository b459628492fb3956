package configs

import (
	"fmt"
	"testing"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestDemoAndReplayUpperBounds: each count of the demo and replay settings
// set past its bound, through the environment as a user would, is refused
// naming the variable, the key and the range; the bound is accepted. The
// demo's budget and split are named as demo keys, not as the frontier's.
func TestDemoAndReplayUpperBounds(t *testing.T) {
	// Each setting is set through its variable, which the error names
	// before the key.
	viaEnv := func(key string, lo, hi int64, limit string) boundstest.Setting[Sources] {
		env := envName(key)
		return boundstest.Setting[Sources]{Key: env + ": " + key, Lo: lo, Hi: hi, Limit: limit,
			Set: func(s *Sources, v int64) { s.Env = []string{fmt.Sprintf("%s=%d", env, v)} }}
	}
	load := func(s *Sources) error { _, err := Load(*s); return err }
	boundstest.Check(t, "", func() Sources { return Sources{} }, load, []boundstest.Setting[Sources]{
		viaEnv("demo.per_host", 1, crawler.MaxFetches, ""),
		viaEnv("demo.budget.fetches", 1, 1_000_000_000, ""),
		viaEnv("demo.split.window", 1, 10_000, ""),
		viaEnv("demo.queries", 1, maxDemoQueries, ""),
		viaEnv("demo.port_tries", 0, maxPortTries, ""),
		viaEnv("web.replay.crawl_per_host", 1, crawler.MaxFetches, ""),
		viaEnv("web.replay.search.max_results", 0, 100_000, "must be in [page_size (10), 100000]"),
	})
}
