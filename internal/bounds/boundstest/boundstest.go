// Package boundstest checks, in tests, that a Validate refuses each numeric
// setting past its upper bound and accepts the bound itself: every
// package's bounds test tries the same values and expects the same
// wording, "<prefix><key> = <value>: must be in [<lo>, <hi>]".
package boundstest

import (
	"fmt"
	"strings"
	"testing"
)

// Setting is one numeric setting of a config C with an upper bound.
type Setting[C any] struct {
	// Key is the setting's name in the error, after the prefix.
	Key string
	// Lo and Hi are the range the error states; Hi is the bound tried.
	Lo, Hi int64
	// Limit, when not "", is the error's text after the value instead of
	// "must be in [Lo, Hi]" (an open end, a named low end, a note).
	Limit string
	// Float says the setting holds a float64, so the error shows the value
	// as one (2^62 as 4.611686018427388e+18).
	Float bool
	// Set stores v in the setting.
	Set func(*C, int64)
}

// Past are the values past hi that each setting is tried with: far past
// it, and just past it.
func Past(hi int64) []int64 { return []int64{1 << 62, hi + 1} }

// Check sets each setting, on a fresh config each time, to each of
// Past(Hi) and expects validate's error to contain
// "<prefix><Key> = <value>: <Limit>"; then sets it to Hi and expects no
// error.
func Check[C any](t testing.TB, prefix string, fresh func() C, validate func(*C) error, settings []Setting[C]) {
	t.Helper()
	check(t, prefix, fresh, validate, settings, false)
}

// CheckExact is Check where the error must be that message and nothing
// else: the setting is the only problem.
func CheckExact[C any](t testing.TB, prefix string, fresh func() C, validate func(*C) error, settings []Setting[C]) {
	t.Helper()
	check(t, prefix, fresh, validate, settings, true)
}

func check[C any](t testing.TB, prefix string, fresh func() C, validate func(*C) error, settings []Setting[C], exact bool) {
	t.Helper()
	for _, s := range settings {
		for _, v := range Past(s.Hi) {
			c := fresh()
			s.Set(&c, v)
			want := s.want(prefix, v)
			err := validate(&c)
			if err == nil || exact && err.Error() != want || !exact && !strings.Contains(err.Error(), want) {
				t.Errorf("%s%s = %d: Validate() = %v, want %q", prefix, s.Key, v, err, want)
			}
		}
		c := fresh()
		s.Set(&c, s.Hi)
		if err := validate(&c); err != nil {
			t.Errorf("%s%s = %d (the bound): Validate() = %v, want nil", prefix, s.Key, s.Hi, err)
		}
	}
}

// want is the error expected for the setting set to v.
func (s Setting[C]) want(prefix string, v int64) string {
	limit := s.Limit
	if limit == "" {
		limit = fmt.Sprintf("must be in [%d, %d]", s.Lo, s.Hi)
	}
	var value any = v
	if s.Float {
		value = float64(v)
	}
	return fmt.Sprintf("%s%s = %v: %s", prefix, s.Key, value, limit)
}
