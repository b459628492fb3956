package urlnorm

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// normHost returns the canonical form of a host as written in a URL.
func normHost(h string) (string, error) {
	if strings.HasPrefix(h, "[") {
		a, err := netip.ParseAddr(strings.TrimSuffix(h[1:], "]"))
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("%w: IPv6 literal %s", ErrInvalid, Quote(h))
		}
		return "[" + a.String() + "]", nil
	}
	if strings.IndexByte(h, '%') >= 0 {
		d, ok := unescapeHost(h)
		if !ok {
			return "", fmt.Errorf("%w: host %s has a bad escape", ErrInvalid, Quote(h))
		}
		h = d
	}
	h = strings.TrimRight(h, ".")
	if !isASCII(h) {
		// Only non-ASCII names go through IDNA: its Lookup profile also
		// applies STD3 and hyphen rules, which reject ASCII names that real
		// servers use (underscores, "--" in the third and fourth place).
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("%w: host %s: %w", ErrInvalid, Quote(h), err)
		}
		h = strings.TrimRight(a, ".")
	}
	h = lowerASCII(h)
	if h == "" {
		return "", fmt.Errorf("%w: empty host", ErrInvalid)
	}
	prevDot := true
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '.':
			if prevDot {
				return "", fmt.Errorf("%w: host %s has an empty label", ErrInvalid, Quote(h))
			}
			prevDot = true
			continue
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return "", fmt.Errorf("%w: host %s has the character %q", ErrInvalid, Quote(h), c)
		}
		prevDot = false
	}
	return h, nil
}

func unescapeHost(h string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(h); i++ {
		if h[i] != '%' {
			b.WriteByte(h[i])
			continue
		}
		if i+2 >= len(h) || !isHex(h[i+1]) || !isHex(h[i+2]) {
			return "", false
		}
		b.WriteByte(unhex(h[i+1])<<4 | unhex(h[i+2]))
		i += 2
	}
	return b.String(), true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// Host returns host[:port] of a normalized URL, the unit of per-host
// politeness. It returns "" if n has no authority.
func Host(n string) string {
	i := strings.Index(n, "://")
	if i < 0 {
		return ""
	}
	h := n[i+3:]
	if j := strings.IndexAny(h, "/?#"); j >= 0 {
		h = h[:j]
	}
	return h
}

// NormalizeHost returns host[:port] as a user types it (a site: filter) in
// the form Host gives of a normalized URL: the host rules of Normalize
// (lower case, IDNA A-labels, no trailing dot, RFC 5952 IPv6), the port
// kept, since without a scheme no port is the default.
func NormalizeHost(hostport string) (string, error) { return hostPort(hostport, -1) }
