package crawler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestConfigUpperBounds: each count the crawler allocates, caches or loops
// up to is refused past its bound with the key and the range, and accepted
// at the bound; the extract and sitemap limits are named under crawler.
func TestConfigUpperBounds(t *testing.T) {
	type C = crawler.Config
	fresh := func() C { return defaults(t).Crawler }
	boundstest.Check(t, "crawler.", fresh, (*C).Validate, []boundstest.Setting[C]{
		{Key: "robots.max_bytes", Lo: 1024, Hi: 64 << 20, Set: func(c *C, v int64) { c.Robots.MaxBytes = int(v) }},
		{Key: "robots.cache_entries", Lo: 1, Hi: 1_000_000, Set: func(c *C, v int64) { c.Robots.MaxCapacity = int(v) }},
		{Key: "politeness.per_host", Lo: 1, Hi: crawler.MaxFetches, Set: func(c *C, v int64) { c.Politeness.PerHost = int(v) }},
		{Key: "politeness.overrides[0].per_host", Lo: 1, Hi: crawler.MaxFetches, Set: func(c *C, v int64) {
			c.Politeness.Overrides = []crawler.HostOverride{{Host: "a.test", PerHost: int(v)}}
		}},
		{Key: "limits.max_redirects", Lo: 0, Hi: 1000, Set: func(c *C, v int64) { c.Limits.MaxRedirects = int(v) }},
		{Key: "limits.max_pages_per_host", Lo: 1, Hi: 1_000_000_000, Set: func(c *C, v int64) { c.Limits.MaxPagesPerHost = int(v) }},
		{Key: "limits.max_depth", Lo: 0, Hi: 100_000, Set: func(c *C, v int64) { c.Limits.MaxDepth = int(v) }},
		{Key: "limits.max_retries", Lo: 0, Hi: 1000, Set: func(c *C, v int64) { c.Limits.MaxRetries = int(v) }},
		{Key: "extract.max_links", Lo: 1, Hi: 1_000_000, Set: func(c *C, v int64) { c.Extract.MaxLinks = int(v) }},
		{Key: "extract.max_depth", Lo: 1, Hi: 100_000, Set: func(c *C, v int64) { c.Extract.MaxDepth = int(v) }},
		{Key: "extract.max_nodes", Lo: 1, Hi: 100_000_000, Set: func(c *C, v int64) { c.Extract.MaxNodes = int(v) }},
		{Key: "sitemap.max_bytes", Lo: 1, Hi: 4 << 30, Set: func(c *C, v int64) { c.Sitemap.MaxBytes = v }},
		{Key: "sitemap.max_urls", Lo: 1, Hi: 5_000_000, Set: func(c *C, v int64) { c.Sitemap.MaxURLs = int(v) }},
	})
}

// TestRobotsOutlastTheWait: robots.txt rules that would expire before the
// page that waited for them is fetched are refused, naming the interval.
func TestRobotsOutlastTheWait(t *testing.T) {
	for _, c := range []struct {
		name     string
		ttl      time.Duration
		minDelay time.Duration
		override time.Duration
		want     string
	}{
		{"a TTL under a minute", 30 * time.Second, 0, 0, "crawler.robots.cache_ttl = 30s: must be >= 1m0s"},
		{"a TTL within twice min_delay", time.Hour, 30 * time.Minute, 0, "crawler.robots.cache_ttl = 1h0m0s: must be more than twice the longest politeness min_delay (30m0s)"},
		{"a TTL within twice an override's", time.Hour, time.Second, 45 * time.Minute, "longest politeness min_delay (45m0s)"},
		{"a TTL past twice the longest", time.Hour, time.Second, 29 * time.Minute, ""},
	} {
		cfg := defaults(t).Crawler
		cfg.Robots.CacheTTL, cfg.Politeness.MinDelay = c.ttl, c.minDelay
		if c.override > 0 {
			cfg.Politeness.Overrides = []crawler.HostOverride{{Host: "a.test", MinDelay: c.override, PerHost: 1}}
		}
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: Validate = %v, want %q", c.name, err, c.want)
		}
	}
}
