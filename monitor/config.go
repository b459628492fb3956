package monitor

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config is the monitor section of configs/default.yaml.
type Config struct {
	MaxLookback int `mapstructure:"max_lookback"`
	// Instant is the length of one WIC instant j when monitoring runs in
	// wall time under the frontier's budget (monitor/poll).
	Instant time.Duration `mapstructure:"instant"`
	// MinUtility is the least summed utility g a poll must be worth; the
	// monitoring share a poll below it would take goes to other fetches.
	MinUtility float64 `mapstructure:"min_utility"`
	// Refresh is how often the demands are read again from the feeds and
	// watches stored (subscriptions, installs, learned posting rates).
	Refresh time.Duration `mapstructure:"refresh"`
	// Replan is the longest the feeds' plan (feeds.PlanAll) is followed
	// before it is made anew from what polling has learned since; a
	// subscription added or removed re-plans at the next Refresh.
	Replan time.Duration `mapstructure:"replan"`
}

// Upper bounds of max_lookback: a demand without an O(1) form keeps a ring
// of that many π (8 MB at maxLookback), and the poller steps back over
// max_lookback × instant, a time.Duration: maxLookbackYears keeps it clear
// of overflow (292 years) while the default week of minutes fits even the
// longest instant, 168h.
const (
	maxLookback      = 1_000_000
	maxLookbackYears = 200
)

// Validate names every bad key, its value and the limit.
func (c Config) Validate() error {
	report := bounds.NewReport("monitor.")
	hi := maxLookback
	if c.Instant >= time.Second {
		hi = min(hi, int(maxLookbackYears*365*24*time.Hour/c.Instant))
	}
	if c.MaxLookback < 1 {
		report.Add("max_lookback", c.MaxLookback, "must be ≥ 1 instant")
	} else if c.MaxLookback > hi {
		report.Add("max_lookback", c.MaxLookback, fmt.Sprintf("must be in [1, %d]: at most %d instants, spanning at most %d years of monitor.instant (%v)", hi, maxLookback, maxLookbackYears, c.Instant))
	}
	if c.Instant < time.Second {
		report.Add("instant", c.Instant, "must be ≥ 1s")
	}
	if !(c.MinUtility >= 0) || c.MinUtility > 1e9 {
		report.Add("min_utility", c.MinUtility, "must be in [0, 1e9]")
	}
	if c.Refresh < c.Instant {
		report.Add("refresh", c.Refresh, fmt.Sprintf("must be ≥ monitor.instant (%v)", c.Instant))
	}
	if c.Replan < c.Refresh || c.Replan > 7*24*time.Hour {
		report.Add("replan", c.Replan, fmt.Sprintf("must be in [monitor.refresh (%v), 168h]: a plan holds one week of polls", c.Refresh))
	}
	return report.Err()
}
