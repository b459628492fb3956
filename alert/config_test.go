package alert

import (
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	boundstest.Check(t, "alert.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "max_alerts", Lo: 1, Hi: 10000000, Set: func(c *Config, v int64) { c.MaxAlerts = int(v) }},
		{Key: "snippet_bytes", Lo: 1, Hi: 1 << 16, Set: func(c *Config, v int64) { c.SnippetBytes = int(v) }},
	})
}
