package urlnorm

import (
	"net/url"
	"testing"
)

func FuzzNormalize(f *testing.F) {
	for _, tc := range normalizeCases {
		f.Add(tc.in)
	}
	for _, s := range []string{
		"http://a/b/c/./../../g", "http://[::ffff:1.2.3.4]/", "http://a/%2e%2E/", "http://xn--bcher-kva.example/",
		"http://a/?%", "http://a:65535/", "https://a/%C3%BC?%c3%bc", "http:\\\\a\\b", "http://.a/", "http://a/\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Normalize(s)
		if err != nil {
			return
		}
		if len(n) > MaxLength {
			t.Fatalf("Normalize(%q) = %d bytes, more than MaxLength", s, len(n))
		}
		again, err := Normalize(n)
		if err != nil || again != n {
			t.Fatalf("Normalize(%q) = %q, but Normalize(%q) = %q, %v", s, n, n, again, err)
		}
		checkSURT(t, n)
	})
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"g", "../g", "//g/h", "?y", "#s", "http:g", "https:g", `\g`, "mailto:x", "%zz/../", ""} {
		f.Add("http://a/b/c/d;p?q", s)
		f.Add("https://example.com:8443/x/", s)
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := url.Parse(base)
		if err != nil {
			return
		}
		n, err := Resolve(b, ref)
		if err != nil {
			return
		}
		again, err := Normalize(n)
		if err != nil || again != n {
			t.Fatalf("Resolve(%q, %q) = %q, but Normalize of it = %q, %v", base, ref, n, again, err)
		}
	})
}

func FuzzFromSURT(f *testing.F) {
	for _, s := range []string{"com,example,www:8080)/a/b?x=1", "com,example)s/", "[::1])/", "1.2.3.4)s/x", ")", "a)b", ",,)/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := FromSURT(s)
		if err != nil {
			return
		}
		again, err := Normalize(n)
		if err != nil || again != n {
			t.Fatalf("FromSURT(%q) = %q is not normalized: %q, %v", s, n, again, err)
		}
	})
}
