package urlnorm

import "strings"

// parts are the components of a URL reference as written (still escaped),
// after RFC 3986 Appendix B. The fragment is not kept.
type parts struct {
	scheme   string // lowercased; "" for a relative reference
	hasAuth  bool
	auth     string // userinfo@host:port as written
	path     string
	hasQuery bool
	query    string
}

// clean removes what browsers remove from a link before parsing it: leading
// and trailing C0 controls and spaces, and every tab and newline.
func clean(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// split breaks a reference into its components. Backslashes before the
// query or fragment count as slashes (as browsers treat them in http URLs),
// and extra slashes before the authority are skipped.
func split(s string) parts {
	var r parts
	if i := schemeEnd(s); i > 0 {
		r.scheme = strings.ToLower(s[:i])
		s = s[i+1:]
	}
	if r.scheme != "" && r.scheme != "http" && r.scheme != "https" {
		return r
	}
	if end := strings.IndexAny(s, "?#"); end >= 0 {
		if strings.IndexByte(s[:end], '\\') >= 0 {
			s = strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
		}
	} else if strings.IndexByte(s, '\\') >= 0 {
		s = strings.ReplaceAll(s, `\`, "/")
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		r.hasQuery, r.query = true, s[i+1:]
		s = s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = strings.TrimLeft(s, "/")
		r.hasAuth = true
		if i := strings.IndexByte(s, '/'); i >= 0 {
			r.auth, s = s[:i], s[i:]
		} else {
			r.auth, s = s, ""
		}
	}
	r.path = s
	return r
}

// schemeEnd returns the index of the ':' ending a valid scheme
// (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )), or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}
