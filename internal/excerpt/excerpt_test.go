package excerpt

import "testing"

func TestOfAndQuoted(t *testing.T) {
	for _, c := range []struct {
		s       string
		n       int
		of, quo string
	}{
		{"", 3, "", `""`},
		{"abc", 3, "abc", `"abc"`},
		{"abcd", 3, "abc…", `"abc"…`},
		{"été", 2, "ét…", `"ét"…`}, // characters, not bytes: é is two
		{"a\nb\x00c", 3, "a\nb…", `"a\nb"…`},
		{"\xffxy", 1, "\xff…", `"\xff"…`}, // an invalid byte counts as one
	} {
		if got := Of(c.s, c.n); got != c.of {
			t.Errorf("Of(%q, %d) = %q, want %q", c.s, c.n, got, c.of)
		}
		if got := Quoted(c.s, c.n); got != c.quo {
			t.Errorf("Quoted(%q, %d) = %s, want %s", c.s, c.n, got, c.quo)
		}
	}
}
