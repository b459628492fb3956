package ranking

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

func TestConfigValidate(t *testing.T) {
	if err := testConfig().Validate(); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"an unknown order is named", func(c *Config) { c.Order = "random" }, `ranking.order = "random": must be blend or popularity`},
		{"a blend weight above one is rejected", func(c *Config) { c.BlendWeight = 1.5 }, "ranking.blend_weight = 1.5: must be in [0, 1]"},
		{"an unknown popularity source is named", func(c *Config) { c.Popularity = "hits" }, `ranking.popularity = "hits": must be pagerank, inlinks or clicks`},
		{"an unknown pool rule is named", func(c *Config) { c.Promotion.Rule = "all" }, `ranking.promotion.rule = "all": must be selective, uniform or none`},
		{"k below one is rejected", func(c *Config) { c.Promotion.K = 0 }, "ranking.promotion.k = 0: must be >= 1"},
		{"r above one is rejected", func(c *Config) { c.Promotion.R = 1.1 }, "ranking.promotion.r = 1.1: must be in [0, 1]"},
		{"a negative monitored fraction is rejected", func(c *Config) { c.MonitoredFraction = -0.1 }, "ranking.monitored_fraction = -0.1: must be in [0, 1]"},
		{"damping one is rejected", func(c *Config) { c.PageRank.Damping = 1 }, "ranking.pagerank.damping = 1: must be in (0, 1)"},
		{"zero tolerance is rejected", func(c *Config) { c.PageRank.Tolerance = 0 }, "ranking.pagerank.tolerance = 0: must be in (0, 1)"},
		{"zero iterations are rejected", func(c *Config) { c.PageRank.MaxIterations = 0 }, "ranking.pagerank.max_iterations = 0: must be >= 1"},
		{"a sub-minute interval is rejected", func(c *Config) { c.PageRank.Interval = time.Second }, "ranking.pagerank.interval = 1s: must be >= 1m"},
		{"zero candidates are rejected", func(c *Config) { c.Candidates = 0 }, "ranking.candidates = 0: must be in [1, 100000]"},
		{"a short secret is rejected without echoing it", func(c *Config) { c.Secret = "hunter2" }, "ranking.secret = (7 bytes): must be empty or at least 32 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig()
			c.change(&cfg)
			err := cfg.Validate()
			if err == nil || err.Error() != c.want {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
	t.Run("every problem is reported at once", func(t *testing.T) {
		cfg := testConfig()
		cfg.Order, cfg.Promotion.K, cfg.Candidates = "x", 0, -1
		err := cfg.Validate()
		if err == nil || strings.Count(err.Error(), "\n") != 2 {
			t.Fatalf("Validate() = %v, want three problems", err)
		}
	})
}

// TestConfigUpperBounds: k or the iteration cap past its bound is refused
// with the key and the range, and accepted at the bound.
func TestConfigUpperBounds(t *testing.T) {
	boundstest.CheckExact(t, "ranking.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "promotion.k", Lo: 1, Hi: MaxCandidates, Set: func(c *Config, v int64) { c.Promotion.K = int(v) }},
		{Key: "pagerank.max_iterations", Lo: 1, Hi: maxIterations, Set: func(c *Config, v int64) { c.PageRank.MaxIterations = int(v) }},
	})
}
