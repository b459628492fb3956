package boundstest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports instead of
// failing the test running it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

type config struct{ n, m int }

// validate refuses n and m below lo or above over, stating the range as
// [lo, hi], the way a package's Validate does, every problem joined.
func validate(lo, hi, over int) func(*config) error {
	return func(c *config) error {
		var errs []error
		for _, s := range []struct {
			key string
			v   int
		}{{"n", c.n}, {"m", c.m}} {
			if s.v < lo || s.v > over {
				errs = append(errs, fmt.Errorf("test.%s = %d: must be in [%d, %d]", s.key, s.v, lo, hi))
			}
		}
		return errors.Join(errs...)
	}
}

func fresh() config { return config{n: 1, m: 1} }

func settings(lo, hi int64) []Setting[config] {
	return []Setting[config]{
		{Key: "n", Lo: lo, Hi: hi, Set: func(c *config, v int64) { c.n = int(v) }},
		{Key: "m", Lo: lo, Hi: hi, Set: func(c *config, v int64) { c.m = int(v) }},
	}
}

// run checks through a recorder and returns what it reported.
func run(exact bool, validate func(*config) error, settings []Setting[config]) []string {
	r := &recorder{}
	if exact {
		CheckExact(r, "test.", fresh, validate, settings)
	} else {
		Check(r, "test.", fresh, validate, settings)
	}
	return r.errs
}

func TestCheckPassesAValidateThatKeepsTheBounds(t *testing.T) {
	for _, exact := range []bool{false, true} {
		if errs := run(exact, validate(1, 100, 100), settings(1, 100)); len(errs) != 0 {
			t.Errorf("exact %v: reported %q, want nothing", exact, errs)
		}
	}
}

// TestCheckReportsABrokenBound: a Validate whose bound is off by one either
// way, that lets every value through, or that words the range otherwise
// fails the check, naming the setting and the value.
func TestCheckReportsABrokenBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		validate func(*config) error
		want     []string // in what is reported, each in its own report
	}{
		{"the bound plus one accepted", validate(1, 100, 101), []string{"test.n = 101:", "test.m = 101:"}},
		{"the bound refused", validate(1, 100, 99), []string{"test.n = 100 (the bound)", "test.m = 100 (the bound)"}},
		{"everything accepted", func(*config) error { return nil }, []string{
			"test.n = 4611686018427387904:", "test.n = 101:", "test.m = 4611686018427387904:", "test.m = 101:"}},
		{"another low end", validate(0, 100, 100), []string{
			"test.n = 4611686018427387904:", "test.n = 101:", "test.m = 4611686018427387904:", "test.m = 101:"}},
	} {
		for _, exact := range []bool{false, true} {
			errs := run(exact, tc.validate, settings(1, 100))
			if len(errs) != len(tc.want) {
				t.Errorf("%s, exact %v: reported %q, want %d reports", tc.name, exact, errs, len(tc.want))
				continue
			}
			for i, want := range tc.want {
				if !strings.Contains(errs[i], want) {
					t.Errorf("%s, exact %v: report %q, want it to name %q", tc.name, exact, errs[i], want)
				}
			}
		}
	}
}

// TestCheckExactRefusesMore: an error that says more than the setting's
// message passes Check and fails CheckExact.
func TestCheckExactRefusesMore(t *testing.T) {
	v := validate(1, 100, 100)
	more := func(c *config) error {
		if err := v(c); err != nil {
			return errors.Join(err, errors.New("test.other = 0: must be >= 1"))
		}
		return nil
	}
	if errs := run(false, more, settings(1, 100)); len(errs) != 0 {
		t.Errorf("Check reported %q, want nothing", errs)
	}
	if errs := run(true, more, settings(1, 100)); len(errs) != 4 {
		t.Errorf("CheckExact reported %q, want 4 reports", errs)
	}
}

// TestCheckTriesEachValueOnAFreshConfig: each setting is set to 2^62, the
// bound plus one and the bound, each time on a config from fresh.
func TestCheckTriesEachValueOnAFreshConfig(t *testing.T) {
	var tried []string
	s := Setting[config]{Key: "n", Lo: 1, Hi: 100, Set: func(c *config, v int64) {
		if *c != fresh() {
			t.Errorf("n = %d set on %+v, want a fresh config", v, *c)
		}
		tried = append(tried, fmt.Sprint(v))
		c.n = int(v)
	}}
	if errs := run(false, validate(1, 100, 100), []Setting[config]{s}); len(errs) != 0 {
		t.Errorf("reported %q, want nothing", errs)
	}
	if want := []string{"4611686018427387904", "101", "100"}; !slices.Equal(tried, want) {
		t.Errorf("tried %v, want %v", tried, want)
	}
}

func TestWant(t *testing.T) {
	for _, tc := range []struct {
		s    Setting[config]
		v    int64
		want string
	}{
		{Setting[config]{Key: "n", Lo: 1, Hi: 100}, 101, "test.n = 101: must be in [1, 100]"},
		{Setting[config]{Key: "n", Lo: 0, Hi: 100}, 1 << 62, "test.n = 4611686018427387904: must be in [0, 100]"},
		{Setting[config]{Key: "n", Hi: 100, Limit: "must be in (0, 100]"}, 101, "test.n = 101: must be in (0, 100]"},
		{Setting[config]{Key: "n", Hi: 100, Limit: "must be in (0, 100]", Float: true}, 1 << 62, "test.n = 4.611686018427388e+18: must be in (0, 100]"},
	} {
		if got := tc.s.want("test.", tc.v); got != tc.want {
			t.Errorf("want(%+v, %d) = %q, want %q", tc.s, tc.v, got, tc.want)
		}
	}
}
