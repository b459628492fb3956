package adsim

import (
	"strings"
	"testing"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/internal/bounds/boundstest"
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
		"eval.ads.lifetimes[0] = -1: must be in (0, 10000] days",
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
	fresh := func() Config { return smallConfig(t) }
	boundstest.Check(t, "eval.ads.", fresh, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "days", Hi: maxDays, Limit: "must be in [1, 10000]", Set: func(c *Config, v int64) { c.Days = int(v) }},
		{Key: "repetitions", Hi: maxRepetitions, Limit: "must be in [1, 10000]", Set: func(c *Config, v int64) { c.Repetitions = int(v) }},
		{Key: "queries_per_day", Hi: maxQueriesPerDay, Limit: "must be in [0, 100000000] (0: the log's counts)",
			Set: func(c *Config, v int64) { c.QueriesPerDay = int(v) }},
		{Key: "sensitivity_queries_per_day[0]", Hi: maxQueriesPerDay, Limit: "must be in [1, 100000000]",
			Set: func(c *Config, v int64) { c.SensitivityQueriesPerDay = []int{int(v)} }},
		{Key: "ads_per_phrase", Hi: maxAdsPerPhrase, Limit: "must be in (0, 1000]", Float: true,
			Set: func(c *Config, v int64) { c.AdsPerPhrase = float64(v) }},
		{Key: "phrases_per_advertiser", Hi: maxPhrasesPerAdvertiser, Limit: "must be in [1, 10000]", Float: true,
			Set: func(c *Config, v int64) { c.PhrasesPerAdvertiser = float64(v) }},
		{Key: "budget_factor_max", Hi: maxBudgetFactor, Limit: "must be in [eval.ads.budget_factor_min, 10000]", Float: true,
			Set: func(c *Config, v int64) { c.BudgetFactorMax = float64(v) }},
		{Key: "bid_median", Hi: ads.MaxMoneyUnits, Limit: "must be in (0, 1e+09]", Float: true, Set: func(c *Config, v int64) { c.BidMedian = float64(v) }},
		{Key: "lifetimes[0]", Hi: maxDays, Limit: "must be in (0, 10000] days", Float: true, Set: func(c *Config, v int64) { c.Lifetimes = []float64{float64(v)} }},
		{Key: "lifetime_days", Hi: maxDays, Limit: "must be in [2, 10000]", Set: func(c *Config, v int64) { c.LifetimeDays = int(v) }},
		{Key: "workers", Hi: maxWorkers, Limit: "must be in [0, 256] (0: GOMAXPROCS)", Set: func(c *Config, v int64) { c.Workers = int(v) }},
	})
}

// TestConfigValidateRefusesRepeats: a policy listed twice would be
// simulated twice, its column shown twice and its rows counted as two
// repetitions (n = 2, sd 0) of one.
func TestConfigValidateRefusesRepeats(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Policies = []string{"greedy", "bmix", "greedy"}
	want := `eval.ads.policies[2] = greedy: given twice (also policies[0])`
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Validate() = %v, want %q", err, want)
	}
}
