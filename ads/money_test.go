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
	for _, c := range []struct {
		u     float64
		value string
		limit string
	}{
		{0.0000001, "1e-07", "must be 0 or at least 0.000001"},
		{0.0000005, "5e-07", "must be 0 or at least 0.000001"},
		{100.0000001, "100.0000001", "must have at most 6 decimals"},
		{0.0000015, "1.5e-06", "must have at most 6 decimals"},
		{-0.5, "-0.5", "must be in [0, 1e+09]"},
		{math.NaN(), "NaN", "must be in [0, 1e+09]"},
	} {
		_, err := UnitsIn("daily_budget", c.u)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "daily_budget" || fe.Value != c.value || !strings.HasPrefix(fe.Limit, c.limit) {
			t.Errorf("UnitsIn(%v): %v, want daily_budget = %s: %s", c.u, err, c.value, c.limit)
		}
	}
}
