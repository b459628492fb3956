package frontier

import (
	"fmt"
	"slices"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the frontier's settings; defaults live in
// configs/default.yaml under "frontier".
type Config struct {
	Policy     string       `mapstructure:"policy"`
	Budget     BudgetConfig `mapstructure:"budget"`
	Split      SplitConfig  `mapstructure:"split"`
	HostBuffer int          `mapstructure:"host_buffer"`
	Spread     bool         `mapstructure:"spread"`
	Tau        float64      `mapstructure:"tau"`
	Window     int          `mapstructure:"window"`
	// The deltaq policy's exploration (policy_deltaq.go): thompson,
	// untried or mean, the hard bound on a page's revisit interval (0:
	// none) and the seed of its posterior draws.
	Exploration string `mapstructure:"exploration"`
	// Changes says how a page's changes since LR add up in the deltaq
	// policy's estimate: accumulate or overwrite (policy_deltaq.go).
	Changes     string        `mapstructure:"changes"`
	MaxInterval time.Duration `mapstructure:"max_interval"`
	Seed        uint64        `mapstructure:"seed"`
	// SitemapLastMod makes the deltaq policy re-read sitemaps each period
	// and take their <lastmod> as evidence of change.
	SitemapLastMod bool `mapstructure:"sitemap_lastmod"`
}

// BudgetConfig is the fetch budget: at most Fetches page fetches per Period.
type BudgetConfig struct {
	Fetches int           `mapstructure:"fetches"`
	Period  time.Duration `mapstructure:"period"`
}

// SplitConfig reserves shares of each period's budget for re-fetches. What
// is left goes to first fetches of new URLs; a share its plan does not use
// flows to the others.
type SplitConfig struct {
	Recrawl   float64 `mapstructure:"recrawl"`
	Discovery float64 `mapstructure:"discovery"`
	// Monitor is the share of monitoring polls (feeds, watches), spread
	// over the period's monitor instants (monitor.go).
	Monitor float64 `mapstructure:"monitor"`
	// Adaptive splits the pool Recrawl + Discovery anew each period,
	// toward the side whose fetches gained more quality per fetch
	// (split.go); Recrawl and Discovery are the first period's shares.
	// Step is the most the discovery share moves in a period, Floor the
	// least share of the budget either side keeps, and Window the periods
	// the gains are averaged over.
	Adaptive bool    `mapstructure:"adaptive"`
	Step     float64 `mapstructure:"step"`
	Floor    float64 `mapstructure:"floor"`
	Window   int     `mapstructure:"window"`
}

// Upper bounds, far above any real use.
const (
	// MaxFetches bounds budget.fetches: ten thousand times the default
	// budget, over a 1h period 280,000 fetches a second.
	MaxFetches = 1_000_000_000
	// maxSplitWindow is periods of gains kept and averaged.
	maxSplitWindow = 10_000
)

// DrawsAtRandom reports whether the re-fetch policy ranks any page by a
// random draw, so that its plans differ with Seed: under every
// exploration that draws at all, a page never re-fetched is drawn.
func (c Config) DrawsAtRandom() bool {
	return c.Policy == "deltaq" && (&DeltaQ{Exploration: c.Exploration}).draws(evidence{})
}

// Validate reports every problem in c, each naming its key.
func (c Config) Validate(policies []string) error {
	report := bounds.NewReport("frontier.")
	// Below 1 each key has its own message.
	if !slices.Contains(policies, c.Policy) {
		report.Add("policy", fmt.Sprintf("%q", c.Policy), fmt.Sprintf("must be one of %v", policies))
	}
	report.Add("budget.fetches", c.Budget.Fetches, bounds.Limit(c.Budget.Fetches, 1, MaxFetches))
	if c.Budget.Period < time.Second {
		report.Add("budget.period", c.Budget.Period, "must be >= 1s")
	}
	if c.Split.Recrawl < 0 || c.Split.Recrawl > 1 {
		report.Add("split.recrawl", c.Split.Recrawl, "must be in [0, 1]")
	}
	if c.Split.Discovery < 0 || c.Split.Discovery > 1 {
		report.Add("split.discovery", c.Split.Discovery, "must be in [0, 1]")
	}
	if c.Split.Monitor < 0 || c.Split.Monitor > 1 {
		report.Add("split.monitor", c.Split.Monitor, "must be in [0, 1]")
	}
	if s := c.Split.Recrawl + c.Split.Discovery; s > 1 {
		report.Add("split.recrawl + split.discovery", s, "must be <= 1")
	} else if s += c.Split.Monitor; s > 1 {
		report.Add("split.recrawl + split.discovery + split.monitor", s, "must be <= 1")
	}
	if c.Split.Adaptive {
		if c.Split.Step <= 0 || c.Split.Step > 1 {
			report.Add("split.step", c.Split.Step, "must be in (0, 1] with split.adaptive")
		}
		if pool := c.Split.Recrawl + c.Split.Discovery; c.Split.Floor < 0 || 2*c.Split.Floor > pool {
			report.Add("split.floor", c.Split.Floor, fmt.Sprintf("must be in [0, (split.recrawl + split.discovery)/2 = %v] with split.adaptive", pool/2))
		}
		if c.Split.Window < 1 {
			report.Add("split.window", c.Split.Window, "must be >= 1 with split.adaptive")
		}
	} else {
		// Unused with adaptive off, yet refused past what adaptive could
		// ever take, so that turning it on finds no nonsense waiting.
		if c.Split.Step < 0 || c.Split.Step > 1 {
			report.Add("split.step", c.Split.Step, "must be in [0, 1]")
		}
		if c.Split.Floor < 0 || c.Split.Floor > 0.5 {
			report.Add("split.floor", c.Split.Floor, "must be in [0, 0.5]")
		}
	}
	// Refused with adaptive off too: no use of the setting needs more.
	report.Add("split.window", c.Split.Window, bounds.Over(c.Split.Window, 1, maxSplitWindow))
	if c.Tau < 0 || c.Tau > 1 {
		report.Add("tau", c.Tau, "must be in [0, 1]")
	}
	if !slices.Contains(ChangeModels(), c.Changes) {
		report.Add("changes", fmt.Sprintf("%q", c.Changes), fmt.Sprintf("must be one of %v", ChangeModels()))
	}
	if !slices.Contains(Explorations(), c.Exploration) {
		report.Add("exploration", fmt.Sprintf("%q", c.Exploration), fmt.Sprintf("must be one of %v", Explorations()))
	}
	if c.MaxInterval < 0 {
		report.Add("max_interval", c.MaxInterval, "must be >= 0 (0: no bound)")
	}
	if c.Window < 1 {
		report.Add("window", c.Window, "must be >= 1")
	}
	if c.HostBuffer < 1 || c.HostBuffer > 1024 {
		report.Add("host_buffer", c.HostBuffer, "must be in [1, 1024]")
	}
	return report.Err()
}
