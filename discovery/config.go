package discovery

import (
	"fmt"
	"math"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the discovery settings; the defaults live in
// configs/default.yaml under the key "discovery".
type Config struct {
	// Alpha is α of §3.6.4: the weight of a full re-crawl one period older
	// than another in the estimate p_x^t. 1 weighs all history evenly (the
	// thesis's choice), 0 keeps only the most recent re-crawl (OD-1).
	Alpha float64 `mapstructure:"alpha"`
	// EpsilonB is ε_b of §3.6.2: page i joins cluster C when
	// max_{j∈C} J_ij ≥ 1 − ε_b. The thesis uses 0.8.
	EpsilonB float64 `mapstructure:"epsilon_b"`
	// FullRecrawlEvery is Δ of §3.6.4, in periods: every known page of a
	// site is re-fetched once every Δ periods to refresh the statistics.
	FullRecrawlEvery int `mapstructure:"full_recrawl_every"`
	// PerSite is k of §3.2.2: the most old pages of one site re-fetched for
	// discovery in one period.
	PerSite int `mapstructure:"per_site"`
	// TrackedPerSite bounds the old pages whose yield estimate Stats keeps
	// for one site; past it the lowest estimates are forgotten.
	TrackedPerSite int `mapstructure:"tracked_per_site"`
}

// Upper bounds, far above any real use. Δ is in periods of the frontier's
// budget, at least a second each; the pages tracked are held in memory for
// every site.
const (
	MaxFullRecrawlEvery = 100_000
	MaxTrackedPerSite   = 1_000_000
)

// Validate reports every setting out of range, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("discovery.")
	report.Include(c.ValidateEstimates())
	report.Add("full_recrawl_every", c.FullRecrawlEvery, bounds.Limit(c.FullRecrawlEvery, 1, MaxFullRecrawlEvery))
	if c.PerSite < 1 {
		report.Add("per_site", c.PerSite, "must be >= 1")
	}
	// per_site is at most tracked_per_site, and so bounded too.
	if c.TrackedPerSite < c.PerSite || c.TrackedPerSite < 1 {
		report.Add("tracked_per_site", c.TrackedPerSite, fmt.Sprintf("must be >= discovery.per_site (%d) and >= 1", c.PerSite))
	} else if c.TrackedPerSite > MaxTrackedPerSite {
		report.Add("tracked_per_site", c.TrackedPerSite, fmt.Sprintf("must be in [discovery.per_site (%d), %d]", c.PerSite, MaxTrackedPerSite))
	}
	return report.Err()
}

// ValidateEstimates reports α and ε_b out of range: the settings of the
// estimates alone, which the discovery evaluation runs with its own
// budgets and intervals.
func (c Config) ValidateEstimates() error {
	report := bounds.NewReport("discovery.")
	report.Add("alpha", c.Alpha, bounds.Within(c.Alpha, 0, 1))
	if math.IsNaN(c.EpsilonB) || c.EpsilonB < 0 || c.EpsilonB >= 1 {
		report.Add("epsilon_b", c.EpsilonB, "must be in [0, 1)")
	}
	return report.Err()
}
