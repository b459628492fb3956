package discoveryeval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the settings of the discovery evaluation; the defaults live
// in configs/default.yaml under the key "eval.discovery".
type Config struct {
	// Alpha is α of §3.6.4 for OD-WIN, OD-ALL and CLIQ-WIN (the thesis
	// adopts 1, even weighting of all history); set from discovery.alpha.
	Alpha float64 `mapstructure:"-"`
	// EpsilonB is ε_b of §3.6.2 for CLIQ-WIN (the thesis uses 0.8); set
	// from discovery.epsilon_b.
	EpsilonB float64 `mapstructure:"-"`
	// TrackedPerSite bounds the pages the live Stats keeps per site in the
	// "OD-WIN (Stats)" row (discovery.tracked_per_site).
	TrackedPerSite int `mapstructure:"tracked_per_site"`
	// Budgets are the per-site budgets k of Table 3.2.
	Budgets []int `mapstructure:"budgets"`
	// CurveBudgets are the budgets swept for the coverage curves of
	// figs. 3.5 and 3.6.
	CurveBudgets []int `mapstructure:"curve_budgets"`
	// TableRecrawlEvery are the full re-crawl intervals Δ (weeks) that
	// Table 3.2 averages over for CLIQ-WIN, COV, OD-WIN and OD-1 (the
	// thesis: 2 to 6). OD-ALL always uses Δ = 1.
	TableRecrawlEvery []int `mapstructure:"table_recrawl_every"`
	// FigureRecrawlEvery are the intervals Δ drawn as coverage curves
	// (fig. 3.5: 1, fig. 3.6: 4).
	FigureRecrawlEvery []int `mapstructure:"figure_recrawl_every"`
	// UpperBoundRecrawlEvery are the intervals w of §3.6.5's upper bound
	// (full: 1, periodic: 2 and 4).
	UpperBoundRecrawlEvery []int `mapstructure:"upper_bound_recrawl_every"`
	// CoverFractions are the ρ of GREEDY's ρ-partial covers (§3.5.3.3:
	// 0.9 and 1).
	CoverFractions []float64 `mapstructure:"cover_fractions"`
	// Workers parse archive pages in parallel.
	Workers int `mapstructure:"workers"`
	// Extract bounds the HTML parse of each archived page.
	Extract extract.Limits `mapstructure:"extract"`
}

// maxWorkers bounds the goroutines parsing archive pages.
const maxWorkers = 256

// Validate reports every setting out of range, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.discovery.")
	// α and ε_b are the discovery section's own keys, checked here as the
	// runs use them.
	report.Include(discovery.Config{Alpha: c.Alpha, EpsilonB: c.EpsilonB}.ValidateEstimates())
	// The live Stats of the "OD-WIN (Stats)" row keeps as many pages as
	// discovery.tracked_per_site may.
	report.Add("tracked_per_site", c.TrackedPerSite, bounds.Within(c.TrackedPerSite, 1, discovery.MaxTrackedPerSite))
	positive := func(key string, v []int) {
		if len(v) == 0 {
			report.Add(key, "[]", "must list at least one value")
		}
		if slices.ContainsFunc(v, func(x int) bool { return x < 1 }) {
			report.Add(key, v, "every value must be >= 1")
		}
	}
	positive("budgets", c.Budgets)
	positive("curve_budgets", c.CurveBudgets)
	// The intervals are Δ of discovery.full_recrawl_every (§3.6.4–5),
	// bounded as it is, and refused here at once rather than when a run
	// reaches them.
	for _, r := range []struct {
		key string
		v   []int
	}{{"table_recrawl_every", c.TableRecrawlEvery}, {"figure_recrawl_every", c.FigureRecrawlEvery}, {"upper_bound_recrawl_every", c.UpperBoundRecrawlEvery}} {
		positive(r.key, r.v)
		if slices.ContainsFunc(r.v, func(d int) bool { return d > discovery.MaxFullRecrawlEvery }) {
			report.Add(r.key, r.v, fmt.Sprintf("every value must be in [1, %d]", discovery.MaxFullRecrawlEvery))
		}
	}
	if len(c.CoverFractions) == 0 {
		report.Add("cover_fractions", "[]", "must list at least one value")
	}
	if slices.ContainsFunc(c.CoverFractions, func(r float64) bool { return math.IsNaN(r) || r <= 0 || r > 1 }) {
		report.Add("cover_fractions", c.CoverFractions, "every value must be in (0, 1]")
	}
	report.Add("workers", c.Workers, bounds.Within(c.Workers, 1, maxWorkers))
	if err := c.Extract.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			report.Include(errors.New("eval.discovery." + line))
		}
	}
	return report.Err()
}
