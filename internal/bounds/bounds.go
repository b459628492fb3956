// Package bounds words what a numeric setting must be when it is out of
// range, the same way in every package's Validate.
package bounds

import "fmt"

// Limit says what v must be when it is outside [lo, hi], "" inside: below
// lo the bound it broke ("must be >= 1"), above hi the whole range
// ("must be in [1, 4096]").
func Limit(v, lo, hi int64) string {
	if v < lo {
		return fmt.Sprintf("must be >= %d", lo)
	}
	return Over(v, lo, hi)
}

// Positive says what a count that must be positive, at most hi, must be
// when v is not: "must be > 0" at 0 or below, the range [1, hi] above hi;
// "" inside.
func Positive(v, hi int64) string {
	if v <= 0 {
		return "must be > 0"
	}
	return Over(v, 1, hi)
}

// Within says the range [lo, hi] when v is outside it on either side, ""
// inside: for a setting whose range is the whole message.
func Within(v, lo, hi int64) string {
	if v < lo || v > hi {
		return fmt.Sprintf("must be in [%d, %d]", lo, hi)
	}
	return ""
}

// Over says the range [lo, hi] when v is above hi, "" otherwise: for a
// setting whose values below lo are refused with a message of their own.
func Over(v, lo, hi int64) string {
	if v > hi {
		return fmt.Sprintf("must be in [%d, %d]", lo, hi)
	}
	return ""
}
