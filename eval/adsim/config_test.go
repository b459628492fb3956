package adsim

import (
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
		"eval.ads.days = 0: must be >= 1",
		"eval.ads.repetitions = 0: must be >= 1",
		`eval.ads.query_count = "week": must be day or total`,
		`eval.ads.policies[0] = "ucb": must be one of`,
		"eval.ads.extension_policies = []: must list at least one policy",
		"eval.ads.per_query = [2 40]: must list the values of C, including 1",
		"eval.ads.per_query[1] = 40: must be in [1, 32]",
		"eval.ads.prior_accuracies[0] = 1: must be in (0, 1)",
		"eval.ads.lifetimes[0] = -1: must be > 0 days",
		"eval.ads.lifetime_days = 1: must be >= 2",
		"eval.ads.steady_from = 5: must be in [0, eval.ads.lifetime_days)",
		"eval.ads.budget_factor_max = 1: must be >= eval.ads.budget_factor_min",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
