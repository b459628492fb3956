package fanouteval

import (
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestValidateUpperBounds: week, stale_weeks and max_queries are refused
// past their bounds, naming the key and the range, and accepted at them.
func TestValidateUpperBounds(t *testing.T) {
	valid := func() Config {
		return Config{Shards: 3, Week: 0, MaxQueries: 0, Seed: 1, Depth: 10, Timeout: 10 * time.Second, StaleWeeks: 1}
	}
	boundstest.Check(t, "eval.fanout.", valid, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "week", Hi: maxWeek, Limit: "must be in [0, 65535]", Set: func(c *Config, v int64) { c.Week = int(v) }},
		{Key: "stale_weeks", Hi: maxWeek, Limit: "must be in [0, 65535] (0 = off)", Set: func(c *Config, v int64) { c.StaleWeeks = int(v) }},
		{Key: "max_queries", Hi: maxMaxQueries, Limit: "must be in [0, 10000000] (0 = all)", Set: func(c *Config, v int64) { c.MaxQueries = int(v) }},
	})
}
