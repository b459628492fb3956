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
// to the nearest micro.
func MoneyFromUnits(u float64) Money { return Money(math.Round(u * float64(Unit))) }

// UnitsIn converts an amount in currency units given for field (a request
// or command-line field) to Money, refusing NaN and amounts outside
// [0, MaxMoneyUnits], which Money cannot hold (the configured bounds are
// the Store's to check).
func UnitsIn(field string, u float64) (Money, error) {
	if !(u >= 0 && u <= MaxMoneyUnits) {
		return 0, &FieldError{Field: field, Value: strconv.FormatFloat(u, 'g', -1, 64), Limit: fmt.Sprintf("must be in [0, %g]", MaxMoneyUnits)}
	}
	return MoneyFromUnits(u), nil
}

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
