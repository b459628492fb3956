package bounds

import "testing"

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
