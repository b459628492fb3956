package discoveryeval

import (
	"testing"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
)

// testConfig is the configuration the tests run with: the thesis's
// parameters and budgets.
func testConfig() Config {
	return Config{
		Alpha:                  1,
		EpsilonB:               0.8,
		TrackedPerSite:         10000,
		Budgets:                []int{1, 10, 100, 1000, 10000},
		CurveBudgets:           []int{1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, 1000, 10000},
		TableRecrawlEvery:      []int{2, 3, 4, 5, 6},
		FigureRecrawlEvery:     []int{1, 4},
		UpperBoundRecrawlEvery: []int{1, 2, 4},
		CoverFractions:         []float64{0.9, 1},
		Workers:                2,
		Extract:                extract.Limits{MaxLinks: 5000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 500000},
	}
}

// openSite opens the archive in dir and builds its H_t, as Run does.
func openSite(tb testing.TB, cfg Config, dir string) (*site, error) {
	a, err := archive.Open(dir)
	if err != nil {
		return nil, err
	}
	return loadSite(tb.Context(), cfg, a, nil)
}
