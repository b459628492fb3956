package bounds

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLimitAndOver(t *testing.T) {
	for _, tc := range []struct {
		v           int64
		limit, over string
	}{
		{0, "must be >= 1", ""},
		{1, "", ""},
		{4096, "", ""},
		{4097, "must be in [1, 4096]", "must be in [1, 4096]"},
	} {
		if got := Limit(tc.v, 1, 4096); got != tc.limit {
			t.Errorf("Limit(%d, 1, 4096) = %q, want %q", tc.v, got, tc.limit)
		}
		within := tc.over
		if tc.v < 1 {
			within = "must be in [1, 4096]"
		}
		if got := Within(tc.v, 1, 4096); got != within {
			t.Errorf("Within(%d, 1, 4096) = %q, want %q", tc.v, got, within)
		}
		positive := tc.limit
		if tc.v < 1 {
			positive = "must be > 0"
		}
		if got := Positive(tc.v, 4096); got != positive {
			t.Errorf("Positive(%d, 4096) = %q, want %q", tc.v, got, positive)
		}
		if got := Over(tc.v, 1, 4096); got != tc.over {
			t.Errorf("Over(%d, 1, 4096) = %q, want %q", tc.v, got, tc.over)
		}
	}
}

// Floats and durations are worded as their types are, and NaN, which every comparison fails, is
// outside every range rather than inside.
func TestFloatsAndNaN(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name, got, want string
	}{
		{"Within(0.5, 0, 1)", Within(0.5, 0, 1), ""},
		{"Within(1.5e7, 0, 1e6)", Within(1.5e7, 0, 1e6), "must be in [0, 1e+06]"},
		{"Within(NaN, 0, 1)", Within(nan, 0, 1), "must be in [0, 1]"},
		{"Over(NaN, 0, 1)", Over(nan, 0, 1), "must be in [0, 1]"},
		{"Limit(NaN, 0.5, 1)", Limit(nan, 0.5, 1), "must be >= 0.5"},
		{"Limit(2.5, 0.5, 1)", Limit(2.5, 0.5, 1), "must be in [0.5, 1]"},
		{"AboveZero(NaN)", AboveZero(nan), "must be > 0"},
		{"AboveZero(-1s)", AboveZero(-time.Second), "must be > 0"},
		{"AboveZero(1ns)", AboveZero(time.Nanosecond), ""},
		{"Within(90s, 1s, 1m)", Within(90*time.Second, time.Second, time.Minute), "must be in [1s, 1m0s]"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestReportNamesEachKeyAndSkipsWhatIsInRange(t *testing.T) {
	r := NewReport("feeds.")
	if r.Err() != nil {
		t.Fatalf("an empty report: %v, want nil", r.Err())
	}
	r.Add("starts", 0, Limit(0, 1, 64))
	r.Add("clusters", 6, Over(6, 1, 100))
	r.Include(nil)
	r.Include(errors.New("feeds.step: must divide one week"))
	r.Add("floor", 1.5, Within(1.5, 0, 1))
	want := "feeds.starts = 0: must be >= 1\nfeeds.step: must divide one week\nfeeds.floor = 1.5: must be in [0, 1]"
	if err := r.Err(); err == nil || err.Error() != want {
		t.Errorf("report:\n%v\nwant:\n%s", err, want)
	}
}

func TestNoteFollowsOnlyALimit(t *testing.T) {
	if got, want := Note(Within(300, 0, 256), "(0: GOMAXPROCS)"), "must be in [0, 256] (0: GOMAXPROCS)"; got != want {
		t.Errorf("Note past the range = %q, want %q", got, want)
	}
	if got := Note(Within(0, 0, 256), "(0: GOMAXPROCS)"); got != "" {
		t.Errorf("Note in range = %q, want \"\"", got)
	}
}

// TestRepeats: each repeat is yielded with the first place of its key, in
// order, however many times and however far apart a key comes back.
func TestRepeats(t *testing.T) {
	vs := []string{"a", "B", "b", "c", "A", "a", "d"}
	type pair struct{ i, at int }
	var got []pair
	for i, at := range Repeats(vs, strings.ToLower) {
		got = append(got, pair{i, at})
	}
	if want := []pair{{2, 1}, {4, 0}, {5, 0}}; !slices.Equal(got, want) {
		t.Errorf("Repeats(%q, ToLower) = %v, want %v", vs, got, want)
	}
	for range Repeats(vs, strings.ToLower) {
		break // a range stopped early must not be yielded to again
	}
}

// TestDistinct: one problem per repeat, naming both places.
func TestDistinct(t *testing.T) {
	var r Report
	Distinct(&r, "per_day", []int{1, 2, 1, 4, 1})
	err := r.Err()
	if err == nil {
		t.Fatal("Distinct(1, 2, 1, 4, 1) reported nothing")
	}
	for _, want := range []string{"per_day[2] = 1: given twice (also per_day[0])", "per_day[4] = 1: given twice (also per_day[0])"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Distinct error %q lacks %q", err, want)
		}
	}
	r = Report{}
	if Distinct(&r, "per_day", []int{1, 2, 4}); r.Err() != nil {
		t.Errorf("Distinct(1, 2, 4) = %v, want nil", r.Err())
	}
}
