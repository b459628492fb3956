package monitor

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
		bound   int
	}{
		{time.Minute, maxLookback},
		{168 * time.Hour, 10428}, // 200 years of weeks
	} {
		for _, v := range []int{1 << 62, tc.bound + 1} {
			c := valid(tc.instant)
			c.MaxLookback = v
			want := fmt.Sprintf("monitor.max_lookback = %d: must be in [1, %d]", v, tc.bound)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("instant %v: Validate() = %v, want %q", tc.instant, err, want)
			}
		}
		c := valid(tc.instant)
		c.MaxLookback = tc.bound
		if err := c.Validate(); err != nil {
			t.Errorf("instant %v: max_lookback = %d (the bound): %v", tc.instant, tc.bound, err)
		}
		if err := valid(tc.instant).Validate(); err != nil {
			t.Errorf("instant %v: the default max_lookback: %v", tc.instant, err)
		}
	}
}
