package feeds

import (
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	boundstest.Check(t, "feeds.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "starts", Lo: 1, Hi: 10000, Set: func(c *Config, v int64) { c.Starts = int(v) }},
		{Key: "clusters", Lo: 1, Hi: 1000, Set: func(c *Config, v int64) { c.Clusters = int(v) }},
		{Key: "cluster_min_postings", Lo: 1, Hi: 1000000, Set: func(c *Config, v int64) { c.ClusterMinPostings = int(v) }},
		{Key: "cluster_iterations", Lo: 1, Hi: 100000, Set: func(c *Config, v int64) { c.ClusterIterations = int(v) }},
		{Key: "seen_kept", Lo: 1, Hi: 100000, Set: func(c *Config, v int64) { c.SeenKept = int(v) }},
		{Key: "history_kept", Lo: 1, Hi: 1000000, Set: func(c *Config, v int64) { c.HistoryKept = int(v) }},
		{Key: "max_bytes", Lo: 1, Hi: 1 << 30, Set: func(c *Config, v int64) { c.MaxBytes = v }},
		{Key: "rate_count", Hi: 1000000, Limit: "must be in [0, 1000000]", Float: true, Set: func(c *Config, v int64) { c.RateCount = float64(v) }},
		{Key: "polls_per_day", Hi: 86400, Limit: "must be in (0, 86400]", Float: true, Set: func(c *Config, v int64) { c.PollsPerDay = float64(v) }},
		{Key: "rate_holdout_weeks", Lo: 0, Hi: 1000, Set: func(c *Config, v int64) { c.RateHoldoutWeeks = int(v) }},
		{Key: "profile_holdout_weeks", Lo: 0, Hi: 1000, Set: func(c *Config, v int64) { c.ProfileHoldoutWeeks = int(v) }},
	})
}
