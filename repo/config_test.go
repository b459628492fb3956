package repo

import (
	"fmt"
	"strings"
	"testing"
)

// TestValidateUpperBounds: a huge count or size is refused with its key and
// range, not taken as a limit to read or cache up to; the bound itself is
// accepted.
func TestValidateUpperBounds(t *testing.T) {
	for _, tc := range []struct {
		key       string
		lo, bound int64
		set       func(*Config, int64)
	}{
		{"repo.versions_kept", 1, maxVersionsKept, func(c *Config, v int64) { c.VersionsKept = int(v) }},
		{"repo.fetch_log_kept", 2, maxFetchLogKept, func(c *Config, v int64) { c.FetchLogKept = int(v) }},
		{"repo.stats_kept", 1, maxStatsKept, func(c *Config, v int64) { c.StatsKept = int(v) }},
		{"repo.cache_bytes", 1 << 20, maxCacheBytes, func(c *Config, v int64) { c.CacheBytes = v }},
	} {
		for _, v := range []int64{1 << 62, tc.bound + 1} {
			c := testConfig()
			tc.set(&c, v)
			want := fmt.Sprintf("%s = %d: must be in [%d, %d]", tc.key, v, tc.lo, tc.bound)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Validate() = %v, want %q", err, want)
			}
		}
		c := testConfig()
		tc.set(&c, tc.bound)
		if err := c.Validate(); err != nil {
			t.Errorf("%s = %d (the bound): %v", tc.key, tc.bound, err)
		}
	}
}
