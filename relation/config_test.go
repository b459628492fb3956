package relation

import (
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// validConfig is configs/default.yaml's relation section.
func validConfig() Config {
	return Config{Budget: 50, SyncEvery: 24 * time.Hour, Method: 1, MaxKeywords: 2, Pool: 50, Alpha: 0.1, RatePrior: 0.1, RatePriorWeight: 7,
		Unit: 24 * time.Hour, PageSize: 10, MaxResults: 100, Quota: 10, QuotaPeriod: time.Minute, Timeout: 30 * time.Second,
		MaxBytes: 4 << 20, Retries: 3, Backoff: 2 * time.Second, APIMaxRows: 1000}
}

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	if err := validConfig().Validate(); err != nil {
		t.Fatalf("validConfig().Validate() = %v", err)
	}
	boundstest.Check(t, "relation.", validConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "budget", Lo: 1, Hi: 1000000, Set: func(c *Config, v int64) { c.Budget = int(v) }},
		{Key: "pool", Lo: 1, Hi: 10000, Set: func(c *Config, v int64) { c.Pool = int(v) }},
		{Key: "max_results", Lo: 10, Hi: 1000000, Set: func(c *Config, v int64) { c.MaxResults = int(v) }},
		{Key: "quota", Lo: 0, Hi: 1000000, Set: func(c *Config, v int64) { c.Quota = int(v) }},
		{Key: "max_bytes", Lo: 1, Hi: 1 << 30, Set: func(c *Config, v int64) { c.MaxBytes = v }},
		{Key: "retries", Lo: 0, Hi: 30, Set: func(c *Config, v int64) { c.Retries = int(v) }},
		{Key: "api_max_rows", Lo: 1, Hi: 100000, Set: func(c *Config, v int64) { c.APIMaxRows = int(v) }},
		{Key: "rate_prior", Hi: MaxRatePrior, Limit: "must be in [0, 1e+06]", Float: true, Set: func(c *Config, v int64) { c.RatePrior = float64(v) }},
	})
	// A sync's own options, which eval relation builds without a Config.
	opts := func() SyncOptions { return validConfig().SyncOptions(false) }
	boundstest.Check(t, "relation.", opts, (*SyncOptions).Validate, []boundstest.Setting[SyncOptions]{
		{Key: "rate_prior", Hi: MaxRatePrior, Limit: "must be in [0, 1e+06]", Float: true, Set: func(o *SyncOptions, v int64) { o.RatePrior = float64(v) }},
	})
}
