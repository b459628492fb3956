// Package bounds words what a numeric setting must be when it is out of
// range, the same way in every package's Validate, and gathers a
// Validate's problems so that all of them are reported at once.
package bounds

import (
	"errors"
	"fmt"
	"iter"
)

// Number is what a bound applies to: counts, sizes, durations and rates,
// each worded as %v words its type (4096, 0.5, 1m0s).
type Number interface {
	~int | ~int64 | ~float64
}

// Limit says what v must be when it is outside [lo, hi], "" inside: below
// lo the bound it broke ("must be >= 1"), above hi the whole range
// ("must be in [1, 4096]"). NaN is outside every range.
func Limit[T Number](v, lo, hi T) string {
	if !(v >= lo) {
		return fmt.Sprintf("must be >= %v", lo)
	}
	return Over(v, lo, hi)
}

// AboveZero says "must be > 0" when v is not (NaN included), "" when it
// is: for a duration or a rate whose one bound is that it is positive.
func AboveZero[T Number](v T) string {
	if !(v > 0) {
		return "must be > 0"
	}
	return ""
}

// Positive says what a count that must be positive, at most hi, must be
// when v is not: "must be > 0" at 0 or below, the range [1, hi] above hi;
// "" inside.
func Positive[T ~int | ~int64](v, hi T) string {
	if limit := AboveZero(v); limit != "" {
		return limit
	}
	return Over(v, 1, hi)
}

// Within says the range [lo, hi] when v is outside it on either side, ""
// inside: for a setting whose range is the whole message.
func Within[T Number](v, lo, hi T) string {
	if !(v >= lo && v <= hi) {
		return fmt.Sprintf("must be in [%v, %v]", lo, hi)
	}
	return ""
}

// Over says the range [lo, hi] when v is above hi (or NaN), "" otherwise:
// for a setting whose values below lo are refused with a message of their
// own.
func Over[T Number](v, lo, hi T) string {
	if !(v <= hi) {
		return fmt.Sprintf("must be in [%v, %v]", lo, hi)
	}
	return ""
}

// Note follows a limit that is not "" with note, which says what a value
// in the range means, such as "(0: GOMAXPROCS)"; "" stays "".
func Note(limit, note string) string {
	if limit == "" {
		return ""
	}
	return limit + " " + note
}

// Report gathers the problems one Validate finds, each worded
// "<prefix><key> = <value>: <limit>", the configuration key, what it was
// set to and what it must be.
type Report struct {
	prefix string
	errs   []error
}

// NewReport starts a Report for the keys under prefix, such as "feeds.".
func NewReport(prefix string) *Report { return &Report{prefix: prefix} }

// Add reports that key, set to v, must be what limit says. An empty limit,
// which Limit, Over, Within and Positive return for a value in range,
// reports nothing, so a bound is checked and reported in one call.
func (r *Report) Add(key string, v any, limit string) {
	if limit != "" {
		r.errs = append(r.errs, fmt.Errorf("%s%s = %v: %s", r.prefix, key, v, limit))
	}
}

// Include reports errs as they are worded, leaving out nils: problems that
// are not one key's value, or another Validate's.
func (r *Report) Include(errs ...error) {
	for _, err := range errs {
		if err != nil {
			r.errs = append(r.errs, err)
		}
	}
}

// Err joins every problem reported, nil when there is none.
func (r *Report) Err() error { return errors.Join(r.errs...) }

// Distinct checks the list under key for a value given twice: each value
// of such a list is a run, a column or a row of a report, and a repeated
// one would be evaluated and reported twice, its copies counted as
// independent samples. It adds one problem per repeat to r.
func Distinct[T comparable](r *Report, key string, vs []T) {
	for i, at := range Repeats(vs, func(v T) T { return v }) {
		r.Add(fmt.Sprintf("%s[%d]", key, i), vs[i], fmt.Sprintf("given twice (also %s[%d]): give each value once", key, at))
	}
}

// Repeats yields, for each element of vs whose key an earlier element
// already had, its index and the index of the first element of that key:
// the two places a message about the repeat should name.
func Repeats[T any, K comparable](vs []T, key func(T) K) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		first := make(map[K]int, len(vs))
		for i, v := range vs {
			k := key(v)
			if at, dup := first[k]; dup {
				if !yield(i, at) {
					return
				}
				continue
			}
			first[k] = i
		}
	}
}
