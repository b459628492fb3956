package notify_test

import (
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"github.com/deltaq/deltaq/notify"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	boundstest.Check(t, "notify.", testConfig, (*notify.Config).Validate, []boundstest.Setting[notify.Config]{
		{Key: "max_attempts", Lo: 1, Hi: 1000, Set: func(c *notify.Config, v int64) { c.MaxAttempts = int(v) }},
		{Key: "batch", Lo: 1, Hi: 10000, Set: func(c *notify.Config, v int64) { c.Batch = int(v) }},
		{Key: "feed_entries", Lo: 1, Hi: 10000, Set: func(c *notify.Config, v int64) { c.FeedEntries = int(v) }},
		{Key: "max_targets", Lo: 1, Hi: 1000, Set: func(c *notify.Config, v int64) { c.MaxTargets = int(v) }},
	})
}
