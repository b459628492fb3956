package urlnorm

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSURT(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"host labels are reversed and the port kept", "http://www.Example.com:8080/a/b?x=1", "com,example,www:8080)/a/b?x=1"},
		{"https is marked after the parenthesis", "https://www.example.com/a", "com,example,www)s/a"},
		{"a single-label host stays", "http://localhost/", "localhost)/"},
		{"an IPv4 host is not reversed", "http://192.168.0.1:81/x", "192.168.0.1:81)/x"},
		{"an IPv6 host is not reversed", "https://[::1]:8443/x", "[::1]:8443)s/x"},
		{"an almost-IPv4 host is reversed", "http://1.2.3.04/", "04,3,2,1)/"},
		{"the input is normalized first", "HTTP://Example.COM:80/a/./b#f", "com,example)/a/b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SURT(tc.in)
			if err != nil {
				t.Fatalf("SURT(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Fatalf("SURT(%q) = %q, want %q", tc.in, got, tc.want)
			}
			n, err := Normalize(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			back, err := FromSURT(got)
			if err != nil || back != n {
				t.Fatalf("FromSURT(%q) = %q, %v; want %q", got, back, err, n)
			}
		})
	}
}

func TestSURTRoundTripsNormalizeCases(t *testing.T) {
	for _, tc := range normalizeCases {
		t.Run(tc.name, func(t *testing.T) {
			checkSURT(t, tc.want)
		})
	}
}

func TestFromSURTRejects(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"a key without a parenthesis", "com,example/a"},
		{"a key without a path", "com,example)"},
		{"a key with a bad scheme marker", "com,example)x/a"},
		{"a key with a bad host", "com,exa mple)/a"},
		{"a key with a bad port", "com,example:x)/a"},
		{"an empty key", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := FromSURT(tc.in); !errors.Is(err, ErrInvalid) {
				t.Fatalf("FromSURT(%q) = %q, %v; want ErrInvalid", tc.in, got, err)
			}
		})
	}
}

func TestHostKey(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a domain is reversed", "www.example.com", "com,example,www)"},
		{"a port is kept", "www.example.com:8080", "com,example,www:8080)"},
		{"an IPv4 address is kept", "10.0.0.1:81", "10.0.0.1:81)"},
		{"an IPv6 address is kept", "[2001:db8::1]", "[2001:db8::1])"},
		{"upper case is folded", "WWW.Example.com", "com,example,www)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HostKey(tc.in); got != tc.want {
				t.Fatalf("HostKey(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestHostKeyRangeHoldsExactlyOneHost sorts keys of hosts that share
// prefixes and checks that each host's pages form the range the package
// documentation promises.
func TestHostKeyRangeHoldsExactlyOneHost(t *testing.T) {
	urls := []string{
		"http://example.com/", "https://example.com/z", "http://example.com/a?b",
		"http://example.com:8080/", "https://example.com:8080/",
		"http://www.example.com/", "https://www.example.com/a",
		"http://www-2.example.com/", "http://www.example.com.au/",
		"http://wwwexample.com/", "http://ww.example.com/", "http://example.co/",
		"http://a.www.example.com/", "http://10.0.0.1/", "http://10.0.0.10/",
		"http://[::1]/", "http://[::1]:80/x", "https://[::1]/y",
	}
	keys := make([]string, 0, len(urls))
	for _, u := range urls {
		k, err := SURT(u)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, u := range urls {
		n, err := Normalize(u)
		if err != nil {
			t.Fatal(err)
		}
		h := Host(n)
		lo, hi := HostKey(h), HostKey(h)+"\xff"
		for _, k := range keys {
			back, err := FromSURT(k)
			if err != nil {
				t.Fatal(err)
			}
			in := k >= lo && k < hi
			if same := Host(back) == h; in != same {
				t.Errorf("host %q: key %q in range = %v, but its host is %q", h, k, in, Host(back))
			}
		}
	}
	// A domain's own pages sort before its subdomains'.
	a, b := HostKey("example.com"), HostKey("www.example.com")
	if !(a < b) {
		t.Errorf("HostKey(example.com) = %q sorts after HostKey(www.example.com) = %q", a, b)
	}
	if !strings.HasPrefix(b, "com,example,") {
		t.Errorf("subdomain key %q lacks the domain prefix", b)
	}
}

// checkSURT asserts the properties the package documents for a normalized
// URL n.
func checkSURT(t *testing.T, n string) {
	t.Helper()
	k, err := SURT(n)
	if err != nil {
		t.Fatalf("SURT(%q): %v", n, err)
	}
	back, err := FromSURT(k)
	if err != nil || back != n {
		t.Fatalf("FromSURT(SURT(%q)) = %q, %v (key %q)", n, back, err, k)
	}
	if hk := HostKey(Host(n)); !strings.HasPrefix(k, hk) {
		t.Fatalf("SURT(%q) = %q does not start with HostKey(%q) = %q", n, k, Host(n), hk)
	}
	for i := 0; i < len(k); i++ {
		if k[i] >= 0x80 || k[i] < 0x20 {
			t.Fatalf("SURT(%q) = %q has the non-printable byte %#x", n, k, k[i])
		}
	}
}
