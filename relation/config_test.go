package relation

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
	for _, b := range []struct {
		key, limit string
		bound      int64
		set        func(*Config, int64)
	}{
		{"budget", "must be in [1, 1000000]", 1000000, func(c *Config, v int64) { c.Budget = int(v) }},
		{"pool", "must be in [1, 10000]", 10000, func(c *Config, v int64) { c.Pool = int(v) }},
		{"max_results", "must be in [10, 1000000]", 1000000, func(c *Config, v int64) { c.MaxResults = int(v) }},
		{"quota", "must be in [0, 1000000]", 1000000, func(c *Config, v int64) { c.Quota = int(v) }},
		{"max_bytes", "must be in [1, 1073741824]", 1 << 30, func(c *Config, v int64) { c.MaxBytes = v }},
		{"retries", "must be in [0, 30]", 30, func(c *Config, v int64) { c.Retries = int(v) }},
		{"api_max_rows", "must be in [1, 100000]", 100000, func(c *Config, v int64) { c.APIMaxRows = int(v) }},
	} {
		for _, v := range []int64{1 << 62, b.bound + 1} {
			c := validConfig()
			b.set(&c, v)
			want := fmt.Sprintf("relation.%s = %d: %s", b.key, v, b.limit)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %d: Validate() = %v, want %q", b.key, v, err, want)
			}
		}
		c := validConfig()
		b.set(&c, b.bound)
		if err := c.Validate(); err != nil {
			t.Errorf("%s = %d (the bound): Validate() = %v, want nil", b.key, b.bound, err)
		}
	}
}
