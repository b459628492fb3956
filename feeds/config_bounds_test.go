package feeds

import (
	"fmt"
	"strings"
	"testing"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	for _, b := range []struct {
		key, limit string
		bound      int64
		set        func(*Config, int64) any // sets the value, returns it as stored
	}{
		{"starts", "must be in [1, 10000]", 10000, func(c *Config, v int64) any { c.Starts = int(v); return c.Starts }},
		{"clusters", "must be in [1, 1000]", 1000, func(c *Config, v int64) any { c.Clusters = int(v); return c.Clusters }},
		{"cluster_min_postings", "must be in [1, 1000000]", 1000000, func(c *Config, v int64) any { c.ClusterMinPostings = int(v); return c.ClusterMinPostings }},
		{"cluster_iterations", "must be in [1, 100000]", 100000, func(c *Config, v int64) any { c.ClusterIterations = int(v); return c.ClusterIterations }},
		{"seen_kept", "must be in [1, 100000]", 100000, func(c *Config, v int64) any { c.SeenKept = int(v); return c.SeenKept }},
		{"history_kept", "must be in [1, 1000000]", 1000000, func(c *Config, v int64) any { c.HistoryKept = int(v); return c.HistoryKept }},
		{"max_bytes", "must be in [1, 1073741824]", 1 << 30, func(c *Config, v int64) any { c.MaxBytes = v; return c.MaxBytes }},
		{"polls_per_day", "must be in (0, 86400]", 86400, func(c *Config, v int64) any { c.PollsPerDay = float64(v); return c.PollsPerDay }},
		{"rate_holdout_weeks", "must be in [0, 1000]", 1000, func(c *Config, v int64) any { c.RateHoldoutWeeks = int(v); return c.RateHoldoutWeeks }},
		{"profile_holdout_weeks", "must be in [0, 1000]", 1000, func(c *Config, v int64) any { c.ProfileHoldoutWeeks = int(v); return c.ProfileHoldoutWeeks }},
	} {
		for _, v := range []int64{1 << 62, b.bound + 1} {
			c := testConfig()
			want := fmt.Sprintf("feeds.%s = %v: %s", b.key, b.set(&c, v), b.limit)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %d: Validate() = %v, want %q", b.key, v, err, want)
			}
		}
		c := testConfig()
		b.set(&c, b.bound)
		if err := c.Validate(); err != nil {
			t.Errorf("%s = %d (the bound): Validate() = %v, want nil", b.key, b.bound, err)
		}
	}
}
