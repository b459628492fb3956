package urlnorm

import "strings"

// Byte classes of RFC 3986 §2. They are read-only after initialization.
var (
	unreserved = class("-._~")
	// pathOK: pchar and "/" (RFC 3986 §3.3) may stand literally in a path.
	pathOK = class("-._~" + "!$&'()*+,;=" + ":@" + "/")
	// queryOK: a query also allows "?" (§3.4).
	queryOK = class("-._~" + "!$&'()*+,;=" + ":@" + "/?")
)

// class returns the set of ASCII letters and digits plus extra.
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

// escape normalizes the percent-encoding of s: an escape of an unreserved
// octet is decoded, other escapes get upper-case hex digits, a '%' that
// starts no valid escape becomes %25, and every octet not in ok is encoded.
// It returns s itself when nothing changes.
func escape(s string, ok *[256]bool) string {
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
		if !ok[c] {
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
		case c != '%' && ok[c]:
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

// NormalizeEscapes percent-normalizes a path with its query as Normalize
// does (RFC 3986 §6.2.2.2): escapes of unreserved octets are decoded, other
// escapes upper-cased, octets a query may not hold literally encoded, and a
// '%' that starts no escape becomes %25. robots.txt matching (RFC 9309
// §2.2.2) compares paths and patterns in this form; "*" and "$" are
// sub-delimiters, so patterns keep their wildcards.
func NormalizeEscapes(pathAndQuery string) string { return escape(pathAndQuery, queryOK) }
