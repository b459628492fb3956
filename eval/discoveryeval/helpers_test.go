package discoveryeval

import (
	"github.com/deltaq/deltaq/crawler/extract"
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
