package alert

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
		key   string
		bound int
		set   func(*Config, int)
	}{
		{"max_alerts", 10000000, func(c *Config, v int) { c.MaxAlerts = v }},
		{"snippet_bytes", 1 << 16, func(c *Config, v int) { c.SnippetBytes = v }},
	} {
		for _, v := range []int{1 << 62, b.bound + 1} {
			c := testConfig()
			b.set(&c, v)
			want := fmt.Sprintf("alert.%s = %d: must be in [1, %d]", b.key, v, b.bound)
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
