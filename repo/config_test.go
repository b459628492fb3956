package repo

import (
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestValidateUpperBounds: a huge count or size is refused with its key and
// range, not taken as a limit to read or cache up to; the bound itself is
// accepted.
func TestValidateUpperBounds(t *testing.T) {
	boundstest.Check(t, "repo.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "versions_kept", Lo: 1, Hi: maxVersionsKept, Set: func(c *Config, v int64) { c.VersionsKept = int(v) }},
		{Key: "fetch_log_kept", Lo: 2, Hi: maxFetchLogKept, Set: func(c *Config, v int64) { c.FetchLogKept = int(v) }},
		{Key: "stats_kept", Lo: 1, Hi: maxStatsKept, Set: func(c *Config, v int64) { c.StatsKept = int(v) }},
		{Key: "cache_bytes", Lo: 1 << 20, Hi: maxCacheBytes, Set: func(c *Config, v int64) { c.CacheBytes = v }},
	})
}
