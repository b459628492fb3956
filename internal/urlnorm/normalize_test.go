package urlnorm

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

var normalizeCases = []struct {
	name, in, want string
}{
	{"scheme and host are lowercased", "HTTP://WWW.Example.COM/", "http://www.example.com/"},
	{"an empty path becomes a slash", "http://example.com", "http://example.com/"},
	{"the http default port is dropped", "http://example.com:80/a", "http://example.com/a"},
	{"the https default port is dropped", "https://example.com:443/a", "https://example.com/a"},
	{"the https port stays on http", "http://example.com:443/a", "http://example.com:443/a"},
	{"a non-default port stays", "https://example.com:8443", "https://example.com:8443/"},
	{"an empty port is dropped", "http://example.com:/a", "http://example.com/a"},
	{"leading zeros of a port are dropped", "http://example.com:0080/", "http://example.com/"},
	{"a trailing dot of the host is stripped", "http://example.com./a", "http://example.com/a"},
	{"all trailing dots of the host are stripped", "http://example.com.../a", "http://example.com/a"},
	{"the fragment is dropped", "http://example.com/a#frag", "http://example.com/a"},
	{"escape hex digits are uppercased", "http://example.com/common/%5b.html", "http://example.com/common/%5B.html"},
	{"an escaped tilde is decoded", "http://example.com/a%7Eb", "http://example.com/a~b"},
	{"escaped unreserved characters are decoded", "http://example.com/%41%62%2d%5F%2E", "http://example.com/Ab-_."},
	{"an escaped slash stays escaped", "http://example.com/a%2fb", "http://example.com/a%2Fb"},
	{"an escaped sub-delimiter stays escaped", "http://example.com/%21", "http://example.com/%21"},
	{"a literal sub-delimiter stays literal", "http://example.com/!$&'()*+,;=:@", "http://example.com/!$&'()*+,;=:@"},
	{"a space is encoded", "http://example.com/a b", "http://example.com/a%20b"},
	{"a bracket is encoded", "http://example.com/[", "http://example.com/%5B"},
	{"non-ASCII is encoded as UTF-8", "http://example.com/ü", "http://example.com/%C3%BC"},
	{"a lone percent sign is encoded", "http://example.com/100%", "http://example.com/100%25"},
	{"a bad escape is encoded", "http://example.com/%zz", "http://example.com/%25zz"},
	{"a truncated escape is encoded", "http://example.com/%a", "http://example.com/%25a"},
	{"dot segments are removed", "http://example.com/a/./b/../c", "http://example.com/a/c"},
	{"escaped dot segments are removed", "http://example.com/a/%2E%2e/b", "http://example.com/b"},
	{"dot segments cannot climb above the root", "http://example.com/../../a", "http://example.com/a"},
	{"a trailing dot-dot keeps the slash", "http://example.com/a/b/..", "http://example.com/a/"},
	{"empty segments are kept", "http://example.com//a//b", "http://example.com//a//b"},
	{"dots inside names are kept", "http://example.com/a.b/..c/d..", "http://example.com/a.b/..c/d.."},
	{"an empty query is dropped", "http://example.com/?", "http://example.com/"},
	{"an empty query with a fragment is dropped", "http://example.com/a?#x", "http://example.com/a"},
	{"query order is kept", "http://example.com/?b=2&a=1", "http://example.com/?b=2&a=1"},
	{"query escapes are normalized", "http://example.com/?q=%7e%2b%2B", "http://example.com/?q=~%2B%2B"},
	{"a space in the query is encoded", "http://example.com/?q=a b", "http://example.com/?q=a%20b"},
	{"a question mark in the query stays", "http://example.com/?q=a?b", "http://example.com/?q=a?b"},
	{"a query without a path gets a slash", "http://example.com?q=1", "http://example.com/?q=1"},
	{"userinfo is stripped", "http://user:pass@example.com/", "http://example.com/"},
	{"userinfo up to the last at sign is stripped", "http://a@b@example.com/", "http://example.com/"},
	{"an IDN host is converted to ASCII", "http://Bücher.example/", "http://xn--bcher-kva.example/"},
	{"a fullwidth dot in an IDN host is a dot", "http://bücher。example/", "http://xn--bcher-kva.example/"},
	{"an escaped host is decoded", "http://ex%41mple.com/", "http://example.com/"},
	{"an underscore in a host is kept", "http://a_b.example.com/", "http://a_b.example.com/"},
	{"double hyphens in a host are kept", "http://r3---sn-abc.example.com/", "http://r3---sn-abc.example.com/"},
	{"an IPv4 host is kept", "http://192.168.0.1:8080/", "http://192.168.0.1:8080/"},
	{"an IPv6 host is compressed and lowercased", "http://[2001:DB8:0:0:0:0:0:1]:8080/", "http://[2001:db8::1]:8080/"},
	{"an IPv6 host drops the default port", "https://[::1]:443/x", "https://[::1]/x"},
	{"surrounding spaces are trimmed", "  http://example.com/a \n", "http://example.com/a"},
	{"tabs and newlines are removed", "http://exa\nmple.com/a\tb\r", "http://example.com/ab"},
	{"backslashes before the query are slashes", `http:\\example.com\a\b?x=\`, "http://example.com/a/b?x=%5C"},
	{"a missing double slash is tolerated", "http:example.com/a", "http://example.com/a"},
	{"a single slash is tolerated", "http:/example.com/a", "http://example.com/a"},
	{"extra slashes are tolerated", "http:///example.com/a", "http://example.com/a"},
	{"the scheme is matched case-insensitively", "HtTpS://example.com", "https://example.com/"},
}

func TestNormalize(t *testing.T) {
	for _, tc := range normalizeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.in)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
			again, err := Normalize(got)
			if err != nil || again != got {
				t.Fatalf("Normalize(%q) = %q, %v; not idempotent", got, again, err)
			}
		})
	}
}

func TestNormalizeRejects(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     error
	}{
		{"ftp is not supported", "ftp://example.com/", ErrUnsupportedScheme},
		{"mailto is not supported", "mailto:a@example.com", ErrUnsupportedScheme},
		{"javascript is not supported", "javascript:void(0)", ErrUnsupportedScheme},
		{"a relative reference has no scheme", "/a/b", ErrUnsupportedScheme},
		{"an empty string has no scheme", "", ErrUnsupportedScheme},
		{"an empty host is invalid", "http://", ErrInvalid},
		{"a host of dots is invalid", "http://.../a", ErrInvalid},
		{"only userinfo is invalid", "http://user@/a", ErrInvalid},
		{"a space in the host is invalid", "http://exa mple.com/", ErrInvalid},
		{"a comma in the host is invalid", "http://a,b.com/", ErrInvalid},
		{"an empty label is invalid", "http://a..b/", ErrInvalid},
		{"a port above 65535 is invalid", "http://example.com:65536/", ErrInvalid},
		{"a port with letters is invalid", "http://example.com:8x/", ErrInvalid},
		{"an unterminated IPv6 literal is invalid", "http://[::1/", ErrInvalid},
		{"an IPv4 address in brackets is invalid", "http://[1.2.3.4]/", ErrInvalid},
		{"an IPv6 zone is invalid", "http://[fe80::1%25eth0]/", ErrInvalid},
		{"junk after an IPv6 literal is invalid", "http://[::1]x/", ErrInvalid},
		{"a bad escape in the host is invalid", "http://ex%zzample.com/", ErrInvalid},
		{"an escaped NUL in the host is invalid", "http://ex%00ample.com/", ErrInvalid},
		{"a long URL is too long", "http://example.com/" + strings.Repeat("a", MaxLength), ErrTooLong},
		{"a huge input is too long", "http://example.com/" + strings.Repeat("./", 4*MaxLength), ErrTooLong},
		{"a URL too long after encoding is too long", "http://example.com/" + strings.Repeat(" a", MaxLength/3), ErrTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.in)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Normalize(%s) = %q, %v; want error %v", Quote(tc.in), got, err, tc.want)
			}
		})
	}
}

func TestNormalizeKeepsLengthLimit(t *testing.T) {
	prefix := "http://example.com/"
	exact := prefix + strings.Repeat("a", MaxLength-len(prefix))
	got, err := Normalize(exact)
	if err != nil || got != exact {
		t.Fatalf("a URL of exactly MaxLength bytes: got %d bytes, %v", len(got), err)
	}
	if _, err := Normalize(exact + "a"); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a URL of MaxLength+1 bytes: err = %v, want ErrTooLong", err)
	}
}

// TestTooLongNamesTheLengthAndTheLimit: ErrTooLong said only "urlnorm:
// too long", so a user could not tell how long a URL may be.
func TestTooLongNamesTheLengthAndTheLimit(t *testing.T) {
	prefix := "http://example.com/"
	for _, c := range []struct {
		name, in, want string
	}{
		{"a URL one byte over", prefix + strings.Repeat("a", MaxLength-len(prefix)+1), "urlnorm: too long: 2049 bytes once normalized, more than the 2048 allowed"},
		{"a URL longer once escaped", prefix + strings.Repeat(" a", 600), "urlnorm: too long: 2419 bytes once normalized, more than the 2048 allowed"},
		{"a huge input", prefix + strings.Repeat("a", 70000), "urlnorm: too long: 70019 bytes, more than the 2048 allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Normalize(c.in)
			if !errors.Is(err, ErrTooLong) || err.Error() != c.want {
				t.Errorf("Normalize: %v, want %q", err, c.want)
			}
			if _, err := Resolve(&url.URL{Scheme: "http", Host: "example.com", Path: "/"}, c.in); !errors.Is(err, ErrTooLong) || err.Error() != c.want {
				t.Errorf("Resolve: %v, want %q", err, c.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("é", 200)
	for _, c := range []struct {
		name, in, want string
	}{
		{"a short URL is quoted whole", "http://example.com/a b", `"http://example.com/a b"`},
		{"100 characters are quoted whole", long[:19+2*81], `"` + long[:19+2*81] + `"`},
		{"a longer URL is cut at 100 characters, not bytes", long, `"` + long[:19+2*81] + `"…`},
		{"control characters are escaped", "http://x/\n\x00" + strings.Repeat("a", 200), `"http://x/\n\x00` + strings.Repeat("a", 89) + `"…`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Quote(c.in); got != c.want {
				t.Errorf("Quote = %s, want %s", got, c.want)
			}
		})
	}
}

func TestNormalizeURL(t *testing.T) {
	u, err := url.Parse("HTTP://Example.com:80/a/../%7eb?#f")
	if err != nil {
		t.Fatal(err)
	}
	got, err := NormalizeURL(u)
	if err != nil || got != "http://example.com/~b" {
		t.Fatalf("NormalizeURL = %q, %v", got, err)
	}
	if _, err := NormalizeURL(nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NormalizeURL(nil): err = %v, want ErrInvalid", err)
	}
}

func TestHost(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a plain host", "http://example.com/a", "example.com"},
		{"a host with a port", "http://example.com:8080/a?b", "example.com:8080"},
		{"an IPv6 host with a port", "https://[::1]:8443/", "[::1]:8443"},
		{"a string without authority", "example.com/a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Host(tc.in); got != tc.want {
				t.Fatalf("Host(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
