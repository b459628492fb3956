package ads

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestUnitsInRefusesWhatWouldRound: every amount with at most six decimals
// converts exactly; an amount finer than one micro is refused naming the
// field, the value and the smallest amount, never rounded (a positive
// budget rounded to 0 would mean no budget).
func TestUnitsInRefusesWhatWouldRound(t *testing.T) {
	for _, c := range []struct {
		u    float64
		want Money
	}{
		{0, 0}, {0.000001, Micro}, {0.1, 100_000}, {0.29, 290_000}, {100, 100 * Unit},
		{123.456789, 123_456_789}, {MaxMoneyUnits - 0.000001, MaxMoneyUnits*Unit - 1}, {MaxMoneyUnits, MaxMoneyUnits * Unit},
	} {
		if got, err := UnitsIn("bid", c.u); err != nil || got != c.want {
			t.Errorf("UnitsIn(%v) = %v, %v; want %v", c.u, got, err, c.want)
		}
	}
	cfg := testConfig()
	for _, c := range []struct {
		u     float64
		value string
		limit string
	}{
		{0.0000001, "1e-07", "must be 0 or at least 0.000001"},
		{0.0000005, "5e-07", "must be 0 or at least 0.000001"},
		{100.0000001, "100.0000001", "must have at most 6 decimals"},
		{0.0000015, "1.5e-06", "must have at most 6 decimals"},
		{-0.5, "-0.5", "must be 0 (no budget) or in (0, 1000] (ads.max_daily_budget)"},
		{math.NaN(), "NaN", "must be 0 (no budget) or in (0, 1000] (ads.max_daily_budget)"},
		{1e300, "1e+300", "must be 0 (no budget) or in (0, 1000] (ads.max_daily_budget)"},
	} {
		_, err := cfg.BudgetIn("daily_budget", c.u)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "daily_budget" || fe.Value != c.value || !strings.HasPrefix(fe.Limit, c.limit) {
			t.Errorf("BudgetIn(%v): %v, want daily_budget = %s: %s", c.u, err, c.value, c.limit)
		}
	}
}

// TestMoneyErrorsStateTheConfiguredRange: a bid or a budget out of range
// is refused with the range that applies, ads.min_bid to ads.max_bid or
// up to ads.max_daily_budget, whether it is also beyond what Money can
// hold or not.
func TestMoneyErrorsStateTheConfiguredRange(t *testing.T) {
	cfg := testConfig()
	const bidLimit = "must be in [0.01, 10] (ads.min_bid, ads.max_bid)"
	const budgetLimit = "must be 0 (no budget) or in (0, 1000] (ads.max_daily_budget)"
	for _, c := range []struct {
		name  string
		in    func(string, float64) (Money, error)
		u     float64
		value string
		limit string
	}{
		{"bid", cfg.BidIn, -1, "-1", bidLimit},
		{"bid", cfg.BidIn, 0, "0", bidLimit},
		{"bid", cfg.BidIn, 0.001, "0.001", bidLimit},
		{"bid", cfg.BidIn, 11, "11", bidLimit},
		{"bid", cfg.BidIn, 1e300, "1e+300", bidLimit},
		{"bid", cfg.BidIn, math.Inf(1), "+Inf", bidLimit},
		{"bid", cfg.BidIn, math.NaN(), "NaN", bidLimit},
		{"budget", cfg.BudgetIn, -1, "-1", budgetLimit},
		{"budget", cfg.BudgetIn, 1e7, "1e+07", budgetLimit},
		{"budget", cfg.BudgetIn, 1e300, "1e+300", budgetLimit},
	} {
		_, err := c.in(c.name, c.u)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.name || fe.Value != c.value || fe.Limit != c.limit {
			t.Errorf("%s %v: %v, want %s = %s: %s", c.name, c.u, err, c.name, c.value, c.limit)
		}
	}
	if m, err := cfg.BidIn("bid", 10); err != nil || m != 10*Unit {
		t.Errorf("BidIn(10) = %v, %v; want 10", m, err)
	}
	if m, err := cfg.BudgetIn("budget", 0); err != nil || m != 0 {
		t.Errorf("BudgetIn(0) = %v, %v; want 0 (no budget)", m, err)
	}
}
