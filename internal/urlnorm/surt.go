package urlnorm

import (
	"fmt"
	"net/netip"
	"strings"
)

// SURT returns the SURT key of a URL (see the package documentation for the
// layout). The URL is normalized first, so SURT accepts any URL Normalize
// accepts; for a normalized n, FromSURT(SURT(n)) == n.
func SURT(n string) (string, error) {
	n, err := Normalize(n)
	if err != nil {
		return "", err
	}
	i := strings.Index(n, "://")
	scheme, rest := n[:i], n[i+3:]
	j := strings.IndexByte(rest, '/') // a normalized URL always has a path
	var b strings.Builder
	b.Grow(len(n))
	appendHostKey(&b, rest[:j])
	b.WriteByte(')')
	if scheme == "https" {
		b.WriteByte('s')
	}
	b.WriteString(rest[j:])
	return b.String(), nil
}

// FromSURT returns the normalized URL whose SURT key is s.
func FromSURT(s string) (string, error) {
	i := strings.IndexByte(s, ')')
	if i < 0 {
		return "", fmt.Errorf("%w: SURT key %s has no ')'", ErrInvalid, Quote(s))
	}
	hk, rest := s[:i], s[i+1:]
	scheme := "http://"
	if strings.HasPrefix(rest, "s") {
		scheme, rest = "https://", rest[1:]
	}
	if !strings.HasPrefix(rest, "/") {
		return "", fmt.Errorf("%w: SURT key %s has no path", ErrInvalid, Quote(s))
	}
	host, port := hk, ""
	if strings.HasPrefix(hk, "[") {
		if j := strings.IndexByte(hk, ']'); j >= 0 {
			host, port = hk[:j+1], hk[j+1:]
		}
	} else if j := strings.IndexByte(hk, ':'); j >= 0 {
		host, port = hk[:j], hk[j:]
	}
	if !strings.HasPrefix(host, "[") && strings.IndexByte(host, '.') < 0 {
		host = reverseLabels(host, ',', '.')
	}
	return Normalize(scheme + host + port + rest)
}

// HostKey returns the SURT prefix shared by every page of host, a
// host[:port] as returned by Host: the host-key, the port if any, and ")".
// The key range [HostKey(h), HostKey(h)+"\xff") holds exactly the SURT keys
// of h's pages.
func HostKey(host string) string {
	var b strings.Builder
	b.Grow(len(host) + 1)
	appendHostKey(&b, lowerASCII(host))
	b.WriteByte(')')
	return b.String()
}

// appendHostKey writes the host-key and port of host[:port].
func appendHostKey(b *strings.Builder, hostport string) {
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		if j := strings.IndexByte(hostport, ']'); j >= 0 {
			host, port = hostport[:j+1], hostport[j+1:]
		}
	} else if j := strings.LastIndexByte(hostport, ':'); j >= 0 {
		host, port = hostport[:j], hostport[j:]
	}
	if a, err := netip.ParseAddr(host); strings.HasPrefix(host, "[") || err == nil && a.Is4() {
		b.WriteString(host)
	} else {
		b.WriteString(reverseLabels(host, '.', ','))
	}
	b.WriteString(port)
}

// reverseLabels reverses the order of the sep-separated labels of s and
// joins them with join.
func reverseLabels(s string, sep, join byte) string {
	var b strings.Builder
	b.Grow(len(s))
	for end := len(s); ; {
		i := strings.LastIndexByte(s[:end], sep)
		b.WriteString(s[i+1 : end])
		if i < 0 {
			break
		}
		b.WriteByte(join)
		end = i
	}
	return b.String()
}
