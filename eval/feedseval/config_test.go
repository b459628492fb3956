package feedseval

import (
	"fmt"
	"strings"
	"testing"
)

// TestConfigValidateUpperBounds: workers and crawl_items are refused past
// their bounds, naming the key and the range, and accepted at them.
func TestConfigValidateUpperBounds(t *testing.T) {
	valid := func() Config {
		return Config{Feeds: "unused", CrawlItems: 20, Seed: 1, Seeds: 2, LearnWeeks: 8, PerDay: []float64{1}}
	}
	for _, tc := range []struct {
		key   string
		set   func(*Config, int)
		bound int
		limit string
	}{
		{"workers", func(c *Config, v int) { c.Workers = v }, 256, "must be in [0, 256] (0: GOMAXPROCS)"},
		{"crawl_items", func(c *Config, v int) { c.CrawlItems = v }, 10_000, "must be in [1, 10000]"},
	} {
		for _, v := range []int{1 << 62, tc.bound + 1} {
			cfg := valid()
			tc.set(&cfg, v)
			want := fmt.Sprintf("eval.feeds.%s = %d: %s", tc.key, v, tc.limit)
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
