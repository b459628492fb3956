package urlnorm

import (
	"errors"
	"strings"
	"testing"
)

// TestNormalizeGivenRefusesControlCharacters: a URL a user gives with a
// NUL in it was normalized as a page link is, the NUL trimmed, and so
// taken for another URL ("http://a.test/\x00" for "http://a.test/").
func TestNormalizeGivenRefusesControlCharacters(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"a trailing NUL", "http://site4.synth.test/\x00", `"http://site4.synth.test/\x00" has 0x00 at byte 24`},
		{"a leading NUL", "\x00http://a.test/", `"\x00http://a.test/" has 0x00 at byte 0`},
		{"a NUL after a leading space", " \x00http://a.test/", `" \x00http://a.test/" has 0x00 at byte 1`},
		{"a NUL in the path", "http://a.test/x\x00y", "has 0x00 at byte 15"},
		{"an escape character", "http://a.test/\x1b[31m", "has 0x1B at byte 14"},
		{"a DEL", "http://a.test/\x7f", "has 0x7F at byte 14"},
		{"a tab inside", "http://a.test/a\tb", "has 0x09 at byte 15"},
		{"a newline inside", "http://exa\nmple.test/", "has 0x0A at byte 10"},
		{"a vertical tab at the end", "http://a.test/\v", "has 0x0B at byte 14"},
		{"a NUL past what the quote shows", "http://a.test/" + strings.Repeat("a", 200) + "\x00", "has 0x00 at byte 214"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := NormalizeGiven(c.in)
			if !errors.Is(err, ErrControl) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), GivenRule) {
				t.Errorf("NormalizeGiven(%q) = %q, %v; want ErrControl with %s and the rule", c.in, got, err, c.want)
			}
			if _, err := Normalize(c.in); errors.Is(err, ErrControl) {
				t.Errorf("Normalize(%q) refused a link's control character: %v", c.in, err)
			}
		})
	}
}

// TestNormalizeGivenIsNormalizeOtherwise: what a copy and paste leaves
// around a URL is trimmed, and every other URL reads as Normalize reads it.
func TestNormalizeGivenIsNormalizeOtherwise(t *testing.T) {
	for _, in := range []string{"  http://a.test/x \r\n", "\thttp://a.test/\t", "HTTP://A.test/%7e", "http://a.test/ü?q=a b"} {
		want, _ := Normalize(in)
		if got, err := NormalizeGiven(in); err != nil || got != want {
			t.Errorf("NormalizeGiven(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, c := range normalizeCases {
		if strings.ContainsAny(strings.Trim(c.in, " \t\r\n"), "\t\r\n") {
			continue // refused, above
		}
		if got, err := NormalizeGiven(c.in); err != nil || got != c.want {
			t.Errorf("%s: NormalizeGiven(%q) = %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"ftp://a.test/", "http://", "http://a.test/" + strings.Repeat("a", MaxLength)} {
		if _, err := NormalizeGiven(in); err == nil || errors.Is(err, ErrControl) {
			t.Errorf("NormalizeGiven(%.40q): %v, want Normalize's error", in, err)
		}
	}
}
