package robots

import "strings"

// Byte classes of RFC 3986 §2, read-only after initialization. Octets
// outside allowed are percent-encoded before matching; "*" and "$" are
// sub-delimiters, so a pattern keeps its wildcards.
var (
	unreserved = class("-._~")
	allowed    = class("-._~" + "!$&'()*+,;=" + ":@" + "/?")
)

func class(extra string) *[256]bool {
	var t [256]bool
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for i := 0; i < len(extra); i++ {
		t[extra[i]] = true
	}
	return &t
}

const upperHex = "0123456789ABCDEF"

// normalize percent-normalizes a path or pattern (RFC 9309 §2.2.2): escapes
// of unreserved octets are decoded, other escapes upper-cased, other
// octets outside allowed (non-ASCII UTF-8 among them) encoded, and a '%'
// that starts no escape becomes %25. It returns s when nothing changes.
func normalize(s string) string {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isUpperHex(s[i+1]) || !isUpperHex(s[i+2]) ||
				unreserved[unhex(s[i+1])<<4|unhex(s[i+2])] {
				break
			}
			i += 2
			continue
		}
		if !allowed[c] {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved[v] {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[v>>4])
				b.WriteByte(upperHex[v&15])
			}
			i += 2
		case c != '%' && allowed[c]:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isUpperHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}
