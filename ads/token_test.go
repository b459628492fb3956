package ads

import (
	"errors"
	"strings"
	"testing"
)

func tokenStore() *clickSigner {
	return newClickSigner([]byte(strings.Repeat("k", 32)), nil)
}

func TestClickURLRoundTrip(t *testing.T) {
	s := tokenStore()
	for _, phrase := range []string{"shoes", "c++ & d=e|x", "école ünïcode", "a%20b?c#d"} {
		imp := impression{ID: "AbCdEfGh_-123456", Ad: 42, Phrase: phrase, Bid: 250000, Issued: 1_780_000_000}
		u := s.clickURL(imp)
		q, ok := strings.CutPrefix(u, ClickPath+"?")
		if !ok {
			t.Fatalf("click URL %q does not start with %s?", u, ClickPath)
		}
		got, err := s.parseClick(q)
		if err != nil || got != imp {
			t.Fatalf("phrase %q: parseClick = %+v, %v; want %+v", phrase, got, err, imp)
		}
	}
}

func TestClickURLNamesItsMissingParameters(t *testing.T) {
	s := tokenStore()
	_, good, _ := strings.Cut(s.clickURL(impression{ID: "AbCdEfGh_-123456", Ad: 1, Phrase: "shoes", Bid: 1, Issued: 5}), "?")
	for q, want := range map[string]string{
		"x=1":              "i, a, b, t, p, s: must each appear exactly once",
		good + "&b=2":      "b = (given 2 times): must appear exactly once",
		good[:len(good)-1]: "s: must be this server's signature of the other parameters",
	} {
		_, err := s.parseClick(q)
		if !errors.Is(err, ErrBadClick) || !strings.HasSuffix(err.Error(), ": "+want) {
			t.Errorf("parseClick(%q) = %v, want ErrBadClick ending %q", q, err, want)
		}
	}
}

func FuzzParseClick(f *testing.F) {
	s := tokenStore()
	_, good, _ := strings.Cut(s.clickURL(impression{ID: "AbCdEfGh_-123456", Ad: 1, Phrase: "shoes", Bid: 1, Issued: 5}), "?")
	f.Add(good)
	f.Add("i=x&a=1&p=q&b=1&t=1&s=y")
	f.Add("%zz")
	f.Fuzz(func(t *testing.T, q string) {
		imp, err := s.parseClick(q)
		if err != nil {
			if !errors.Is(err, ErrBadClick) {
				t.Fatalf("error %v does not wrap ErrBadClick", err)
			}
			return
		}
		// Whatever verifies must re-sign to the same signature.
		_, again, _ := strings.Cut(s.clickURL(imp), "?")
		if back, err := s.parseClick(again); err != nil || back != imp {
			t.Fatalf("verified %+v does not round-trip: %+v, %v", imp, back, err)
		}
	})
}
