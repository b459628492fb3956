package adsim

import (
	"fmt"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	if err := smallConfig(t).Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	bad := Config{QueryCount: "week", Policies: []string{"ucb"}, PerQuery: []int{2, 40}, PriorAccuracies: []float64{1},
		Lifetimes: []float64{-1}, LifetimeDays: 1, SteadyFrom: 5, BudgetFactorMin: 2, BudgetFactorMax: 1}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{
		`eval.ads.log = "": must name a query log`,
		"eval.ads.days = 0: must be in [1, 10000]",
		"eval.ads.repetitions = 0: must be in [1, 10000]",
		`eval.ads.query_count = "week": must be day or total`,
		`eval.ads.policies[0] = "ucb": must be one of`,
		"eval.ads.extension_policies = []: must list at least one policy",
		"eval.ads.per_query = [2 40]: must list the values of C, including 1",
		"eval.ads.per_query[1] = 40: must be in [1, 32]",
		"eval.ads.prior_accuracies[0] = 1: must be in (0, 1)",
		"eval.ads.lifetimes[0] = -1: must be > 0 days",
		"eval.ads.lifetime_days = 1: must be in [2, 10000]",
		"eval.ads.steady_from = 5: must be in [0, eval.ads.lifetime_days)",
		"eval.ads.budget_factor_max = 1: must be in [eval.ads.budget_factor_min, 10000]",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// TestConfigValidateUpperBounds: each size the simulation allocates, loops
// over or multiplies is refused past its bound, naming the key and the
// range, and accepted at the bound.
func TestConfigValidateUpperBounds(t *testing.T) {
	for _, tc := range []struct {
		key   string
		set   func(*Config, int) any // sets the key to v, returns it as stored
		bound int
		limit string
	}{
		{"days", func(c *Config, v int) any { c.Days = v; return c.Days }, maxDays, "must be in [1, 10000]"},
		{"repetitions", func(c *Config, v int) any { c.Repetitions = v; return c.Repetitions }, maxRepetitions, "must be in [1, 10000]"},
		{"queries_per_day", func(c *Config, v int) any { c.QueriesPerDay = v; return c.QueriesPerDay }, maxQueriesPerDay, "must be in [0, 100000000] (0: the log's counts)"},
		{"sensitivity_queries_per_day[0]", func(c *Config, v int) any { c.SensitivityQueriesPerDay = []int{v}; return v }, maxQueriesPerDay, "must be in [1, 100000000]"},
		{"ads_per_phrase", func(c *Config, v int) any { c.AdsPerPhrase = float64(v); return c.AdsPerPhrase }, maxAdsPerPhrase, "must be in (0, 1000]"},
		{"phrases_per_advertiser", func(c *Config, v int) any { c.PhrasesPerAdvertiser = float64(v); return c.PhrasesPerAdvertiser }, maxPhrasesPerAdvertiser, "must be in [1, 10000]"},
		{"budget_factor_max", func(c *Config, v int) any { c.BudgetFactorMax = float64(v); return c.BudgetFactorMax }, maxBudgetFactor, "must be in [eval.ads.budget_factor_min, 10000]"},
		{"lifetime_days", func(c *Config, v int) any { c.LifetimeDays = v; return c.LifetimeDays }, maxDays, "must be in [2, 10000]"},
		{"workers", func(c *Config, v int) any { c.Workers = v; return c.Workers }, maxWorkers, "must be in [0, 256] (0: GOMAXPROCS)"},
	} {
		for _, v := range []int{1 << 62, tc.bound + 1} {
			cfg := smallConfig(t)
			want := fmt.Sprintf("eval.ads.%s = %v: %s", tc.key, tc.set(&cfg, v), tc.limit)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %d: %v, want %q", tc.key, v, err, want)
			}
		}
		cfg := smallConfig(t)
		tc.set(&cfg, tc.bound)
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s = %d (the bound): %v", tc.key, tc.bound, err)
		}
	}
}
