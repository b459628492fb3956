package monitor

import (
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestConfigBoundsLookback: max_lookback past its bound, which a long
// instant lowers so that the lookback fits a time.Duration, is refused with
// the key and the range; the bound is accepted, and the default week of
// minutes fits the longest instant.
func TestConfigBoundsLookback(t *testing.T) {
	valid := func(instant time.Duration) Config {
		return Config{MaxLookback: 10080, Instant: instant, MinUtility: 0.5, Refresh: instant, Replan: 168 * time.Hour}
	}
	for _, tc := range []struct {
		instant time.Duration
		bound   int64
	}{
		{time.Minute, maxLookback},
		{168 * time.Hour, 10428}, // 200 years of weeks
	} {
		t.Run(tc.instant.String(), func(t *testing.T) {
			fresh := func() Config { return valid(tc.instant) }
			boundstest.Check(t, "monitor.", fresh, (*Config).Validate, []boundstest.Setting[Config]{
				{Key: "max_lookback", Lo: 1, Hi: tc.bound, Set: func(c *Config, v int64) { c.MaxLookback = int(v) }},
			})
			if err := valid(tc.instant).Validate(); err != nil {
				t.Errorf("the default max_lookback: %v", err)
			}
		})
	}
}
