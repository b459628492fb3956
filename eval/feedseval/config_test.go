package feedseval

import (
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestConfigValidateUpperBounds: workers and crawl_items are refused past
// their bounds, naming the key and the range, and accepted at them.
func TestConfigValidateUpperBounds(t *testing.T) {
	valid := func() Config {
		return Config{Feeds: "unused", CrawlItems: 20, Seed: 1, Seeds: 2, LearnWeeks: 8, PerDay: []float64{1}}
	}
	boundstest.Check(t, "eval.feeds.", valid, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "workers", Hi: 256, Limit: "must be in [0, 256] (0: GOMAXPROCS)", Set: func(c *Config, v int64) { c.Workers = int(v) }},
		{Key: "crawl_items", Lo: 1, Hi: 10_000, Set: func(c *Config, v int64) { c.CrawlItems = int(v) }},
	})
}
