package fanouteval

import (
	"errors"
	"fmt"
	"time"
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

// Validate reports every problem, each naming its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, v any, limit string) {
		errs = append(errs, fmt.Errorf("eval.fanout.%s = %v: %s", key, v, limit))
	}
	if c.Shards < 1 || c.Shards > 64 {
		bad("shards", c.Shards, "must be in [1, 64]")
	}
	if c.Week < 0 {
		bad("week", c.Week, "must be >= 0")
	}
	if c.MaxQueries < 0 {
		bad("max_queries", c.MaxQueries, "must be >= 0 (0 = all)")
	}
	if c.Depth < 1 || c.Depth > 1000 {
		bad("depth", c.Depth, "must be in [1, 1000]")
	}
	if c.StaleWeeks < 0 {
		bad("stale_weeks", c.StaleWeeks, "must be >= 0 (0 = off)")
	}
	if c.Timeout <= 0 {
		bad("timeout", c.Timeout, "must be > 0")
	}
	return errors.Join(errs...)
}
