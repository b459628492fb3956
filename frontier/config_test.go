package frontier

import (
	"fmt"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestConfigUpperBounds: a budget or window past its bound is refused with
// the key and the range, adaptive split or not; the bound is accepted.
func TestConfigUpperBounds(t *testing.T) {
	valid := func(adaptive bool) Config {
		return Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour},
			Split:      SplitConfig{Recrawl: 0.4, Discovery: 0.2, Adaptive: adaptive, Step: 0.05, Floor: 0.05, Window: 4},
			HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	}
	for _, adaptive := range []bool{false, true} {
		t.Run(fmt.Sprintf("adaptive %v", adaptive), func(t *testing.T) {
			fresh := func() Config { return valid(adaptive) }
			validate := func(c *Config) error { return c.Validate(Policies()) }
			boundstest.Check(t, "frontier.", fresh, validate, []boundstest.Setting[Config]{
				{Key: "budget.fetches", Lo: 1, Hi: MaxFetches, Set: func(c *Config, v int64) { c.Budget.Fetches = int(v) }},
				{Key: "split.window", Lo: 1, Hi: maxSplitWindow, Set: func(c *Config, v int64) { c.Split.Window = int(v) }},
			})
		})
	}
}
