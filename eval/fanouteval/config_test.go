package fanouteval

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestValidateUpperBounds: week, stale_weeks and max_queries are refused
// past their bounds, naming the key and the range, and accepted at them.
func TestValidateUpperBounds(t *testing.T) {
	valid := func() Config {
		return Config{Shards: 3, Week: 0, MaxQueries: 0, Seed: 1, Depth: 10, Timeout: 10 * time.Second, StaleWeeks: 1}
	}
	for _, tc := range []struct {
		key   string
		set   func(*Config, int)
		bound int
		limit string
	}{
		{"week", func(c *Config, v int) { c.Week = v }, maxWeek, "must be in [0, 65535]"},
		{"stale_weeks", func(c *Config, v int) { c.StaleWeeks = v }, maxWeek, "must be in [0, 65535] (0 = off)"},
		{"max_queries", func(c *Config, v int) { c.MaxQueries = v }, maxMaxQueries, "must be in [0, 10000000] (0 = all)"},
	} {
		for _, v := range []int{1 << 62, tc.bound + 1} {
			cfg := valid()
			tc.set(&cfg, v)
			want := fmt.Sprintf("eval.fanout.%s = %d: %s", tc.key, v, tc.limit)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %d: %v, want %q", tc.key, v, err, want)
			}
		}
		cfg := valid()
		tc.set(&cfg, tc.bound)
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s = %d (the bound): %v", tc.key, tc.bound, err)
		}
	}
}
