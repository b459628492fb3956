package notify_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/notify"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	for _, b := range []struct {
		key   string
		bound int64
		set   func(*notify.Config, int64)
	}{
		{"max_attempts", 1000, func(c *notify.Config, v int64) { c.MaxAttempts = int(v) }},
		{"batch", 10000, func(c *notify.Config, v int64) { c.Batch = int(v) }},
		{"feed_entries", 10000, func(c *notify.Config, v int64) { c.FeedEntries = int(v) }},
		{"max_targets", 1000, func(c *notify.Config, v int64) { c.MaxTargets = int(v) }},
	} {
		for _, v := range []int64{1 << 62, b.bound + 1} {
			c := testConfig()
			b.set(&c, v)
			want := fmt.Sprintf("notify.%s = %d: must be in [1, %d]", b.key, v, b.bound)
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
