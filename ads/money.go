package ads

import (
	"fmt"
	"math"
	"strconv"
)

// Money is an amount in micros (millionths of a currency unit). Bids,
// budgets and spend are kept as integers so that "never overspend" is exact
// arithmetic, not a float comparison.
type Money int64

// Micro is one millionth of a currency unit; Unit is one unit.
const (
	Micro Money = 1
	Unit  Money = 1_000_000
)

// MaxMoneyUnits bounds any amount, in units, so that sums of a day's
// charges cannot overflow int64 micros.
const MaxMoneyUnits = 1e9

// MoneyFromUnits converts an amount in currency units to micros, rounding
// to the nearest micro. Amounts someone typed go through UnitsIn instead,
// which refuses what would round.
func MoneyFromUnits(u float64) Money { return Money(math.Round(u * float64(Unit))) }

// wholeMicros reports whether u is a whole number of micros: whether it
// has at most six decimals, as far as a float64 can tell. u must be in
// [0, MaxMoneyUnits], where micros are exact float64 integers, so the
// round trip through Money gives back u exactly when nothing was rounded.
func wholeMicros(u float64) bool { return MoneyFromUnits(u).Units() == u }

// UnitsIn converts an amount in currency units given for field (a request
// or command-line field) to Money, refusing NaN and amounts outside
// [0, MaxMoneyUnits], which Money cannot hold, and amounts finer than one
// micro. A bid or a budget goes through Config.BidIn or Config.BudgetIn,
// which check the configured range first, so that the error names the
// range that applies. Money is never
// rounded silently: a bid of 100.0000001 is a typo or a misunderstanding,
// not 100, and a budget of 0.0000001 would round to 0, which means no
// budget at all.
func UnitsIn(field string, u float64) (Money, error) {
	value := formatUnits(u)
	if !(u >= 0 && u <= MaxMoneyUnits) {
		return 0, &FieldError{Field: field, Value: value, Limit: fmt.Sprintf("must be in [0, %g]", MaxMoneyUnits)}
	}
	if !wholeMicros(u) {
		limit := "must have at most 6 decimals (the smallest amount is 0.000001)"
		if u < Micro.Units() {
			limit = "must be 0 or at least 0.000001 (the smallest amount)"
		}
		return 0, &FieldError{Field: field, Value: value, Limit: limit}
	}
	return MoneyFromUnits(u), nil
}

// formatUnits formats an amount as given, for an error: the shortest form
// that reads back as u, NaN and infinities included.
func formatUnits(u float64) string { return strconv.FormatFloat(u, 'g', -1, 64) }

// Units returns m in currency units.
func (m Money) Units() float64 { return float64(m) / float64(Unit) }

// String formats m in units with six decimals, trailing zeros dropped.
func (m Money) String() string { return strconv.FormatFloat(m.Units(), 'f', -1, 64) }

// Charge is what one click costs an advertiser: the bid b_ij while the
// budget lasts, and never more than what remains of it, so the day's spend
// never exceeds d_i (§6.6.1: once a type's budget is reached its arms earn
// nothing more). Unbudgeted advertisers pay the bid. The server's click
// handler and the simulation both charge through this function.
func Charge(bid Money, budgeted bool, remaining Money) Money {
	if bid <= 0 {
		return 0
	}
	if !budgeted {
		return bid
	}
	return max(0, min(bid, remaining))
}
