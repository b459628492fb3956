package urlnorm

import (
	"errors"
	"testing"
)

func TestNormalizeHostIsHostOfANormalizedURL(t *testing.T) {
	for in, want := range map[string]string{
		"Example.ORG":      "example.org",
		"example.org.":     "example.org",
		"bücher.de":        "xn--bcher-kva.de",
		"BÜCHER.de.":       "xn--bcher-kva.de",
		"a_b.example:8080": "a_b.example:8080",
		"[::0001]:80":      "[::1]:80",
	} {
		got, err := NormalizeHost(in)
		if err != nil || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", in, got, err, want)
		}
		if n, err := Normalize("https://" + in + "/"); err != nil || Host(n) != got {
			t.Errorf("Host(Normalize(https://%s/)) = %q, %v; NormalizeHost %q", in, Host(n), err, got)
		}
	}
	for _, in := range []string{"a..b", "a b", "*.gov", "a:port", ""} {
		if got, err := NormalizeHost(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("NormalizeHost(%q) = %q, %v; want ErrInvalid", in, got, err)
		}
	}
}
