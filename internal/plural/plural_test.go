package plural

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 text runs", 1: "1 text run", 2: "2 text runs", -1: "-1 text runs"} {
		if got := Count(n, "text run"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
