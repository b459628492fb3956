package frontier

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestConfigUpperBounds: a budget or window past its bound is refused with
// the key and the range, adaptive split or not; the bound is accepted.
func TestConfigUpperBounds(t *testing.T) {
	valid := func(adaptive bool) Config {
		return Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour},
			Split:      SplitConfig{Recrawl: 0.4, Discovery: 0.2, Adaptive: adaptive, Step: 0.05, Floor: 0.05, Window: 4},
			HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	}
	for _, tc := range []struct {
		key   string
		bound int
		set   func(*Config, int)
	}{
		{"budget.fetches", maxFetches, func(c *Config, v int) { c.Budget.Fetches = v }},
		{"split.window", maxSplitWindow, func(c *Config, v int) { c.Split.Window = v }},
	} {
		for _, adaptive := range []bool{false, true} {
			for _, v := range []int{1 << 62, tc.bound + 1} {
				c := valid(adaptive)
				tc.set(&c, v)
				want := fmt.Sprintf("frontier.%s = %d: must be in [1, %d]", tc.key, v, tc.bound)
				if err := c.Validate(Policies()); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("adaptive %v: Validate() = %v, want %q", adaptive, err, want)
				}
			}
			c := valid(adaptive)
			tc.set(&c, tc.bound)
			if err := c.Validate(Policies()); err != nil {
				t.Errorf("adaptive %v: frontier.%s = %d (the bound): %v", adaptive, tc.key, tc.bound, err)
			}
		}
	}
}
