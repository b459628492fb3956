package fanouteval

import (
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config is eval.fanout in configs/default.yaml.
type Config struct {
	// Shards is S, the indexes the pages are split over.
	Shards int `mapstructure:"shards"`
	// Week is the archive week indexed.
	Week int `mapstructure:"week"`
	// MaxQueries caps the queries asked (a seeded sample); 0 = all.
	MaxQueries int `mapstructure:"max_queries"`
	// Seed seeds the sample.
	Seed uint64 `mapstructure:"seed"`
	// Depth is the top-k compared.
	Depth int `mapstructure:"depth"`
	// Timeout bounds each shard's answer to each round.
	Timeout time.Duration `mapstructure:"timeout"`
	// StaleWeeks > 0 adds the periodic exchange's case: statistics
	// published at Week, pages searched StaleWeeks weeks later.
	StaleWeeks int `mapstructure:"stale_weeks"`
}

// Upper bounds; Run checks week and week + stale_weeks against the
// archives' own weeks.
const (
	// maxWeek is the last week an archive can hold (eval/archive keeps
	// weeks in 16 bits): it bounds week and stale_weeks, so their sum
	// cannot overflow.
	maxWeek = 1<<16 - 1
	// maxMaxQueries is far above any query log's queries; a cap at or
	// above the log asks every query, as 0 does.
	maxMaxQueries = 10_000_000
)

// Validate reports every problem, each naming its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, v any, limit string) {
		errs = append(errs, fmt.Errorf("eval.fanout.%s = %v: %s", key, v, limit))
	}
	inRange := func(key string, v, lo, hi int, note string) {
		if limit := bounds.Within(int64(v), int64(lo), int64(hi)); limit != "" {
			bad(key, v, limit+note)
		}
	}
	inRange("shards", c.Shards, 1, 64, "")
	inRange("week", c.Week, 0, maxWeek, "")
	inRange("max_queries", c.MaxQueries, 0, maxMaxQueries, " (0 = all)")
	inRange("depth", c.Depth, 1, 1000, "")
	inRange("stale_weeks", c.StaleWeeks, 0, maxWeek, " (0 = off)")
	if c.Timeout <= 0 {
		bad("timeout", c.Timeout, "must be > 0")
	}
	return errors.Join(errs...)
}
