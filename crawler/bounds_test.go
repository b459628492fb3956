package crawler_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/crawler"
)

// TestConfigUpperBounds: each count the crawler allocates, caches or loops
// up to is refused past its bound with the key and the range, and accepted
// at the bound; the extract and sitemap limits are named under crawler.
func TestConfigUpperBounds(t *testing.T) {
	for _, tc := range []struct {
		key       string
		lo, bound int
		set       func(*crawler.Config, int)
	}{
		{"robots.max_bytes", 1024, 64 << 20, func(c *crawler.Config, v int) { c.Robots.MaxBytes = v }},
		{"robots.cache_entries", 1, 1_000_000, func(c *crawler.Config, v int) { c.Robots.MaxCapacity = v }},
		{"politeness.per_host", 1, crawler.MaxFetches, func(c *crawler.Config, v int) { c.Politeness.PerHost = v }},
		{"politeness.overrides[0].per_host", 1, crawler.MaxFetches, func(c *crawler.Config, v int) {
			c.Politeness.Overrides = []crawler.HostOverride{{Host: "a.test", PerHost: v}}
		}},
		{"limits.max_redirects", 0, 1000, func(c *crawler.Config, v int) { c.Limits.MaxRedirects = v }},
		{"limits.max_pages_per_host", 1, 1_000_000_000, func(c *crawler.Config, v int) { c.Limits.MaxPagesPerHost = v }},
		{"limits.max_depth", 0, 100_000, func(c *crawler.Config, v int) { c.Limits.MaxDepth = v }},
		{"limits.max_retries", 0, 1000, func(c *crawler.Config, v int) { c.Limits.MaxRetries = v }},
		{"extract.max_links", 1, 1_000_000, func(c *crawler.Config, v int) { c.Extract.MaxLinks = v }},
		{"extract.max_depth", 1, 100_000, func(c *crawler.Config, v int) { c.Extract.MaxDepth = v }},
		{"extract.max_nodes", 1, 100_000_000, func(c *crawler.Config, v int) { c.Extract.MaxNodes = v }},
		{"sitemap.max_bytes", 1, 4 << 30, func(c *crawler.Config, v int) { c.Sitemap.MaxBytes = int64(v) }},
		{"sitemap.max_urls", 1, 5_000_000, func(c *crawler.Config, v int) { c.Sitemap.MaxURLs = v }},
	} {
		for _, v := range []int{1 << 62, tc.bound + 1} {
			cfg := defaults(t).Crawler
			tc.set(&cfg, v)
			want := fmt.Sprintf("crawler.%s = %d: must be in [%d, %d]", tc.key, v, tc.lo, tc.bound)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Validate() = %v, want %q", err, want)
			}
		}
		cfg := defaults(t).Crawler
		tc.set(&cfg, tc.bound)
		if err := cfg.Validate(); err != nil {
			t.Errorf("crawler.%s = %d (the bound): %v", tc.key, tc.bound, err)
		}
	}
}
