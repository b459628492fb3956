package replay

import (
	"net/http"
	"strings"
	"time"
)

// notModified reports whether a GET or HEAD of a representation with this
// entity tag and modification time is answered 304 Not Modified, following
// RFC 9110 §13.2.2: If-None-Match, when present, decides alone (weak
// comparison, §8.8.3.2; "*" matches any existing representation);
// otherwise a single valid If-Modified-Since that is not earlier than
// lastMod matches. It does not allocate when the client echoes the
// Last-Modified text it was given.
func notModified(h http.Header, etag string, lastMod time.Time, lastModText string) bool {
	if inm := h["If-None-Match"]; !blank(inm) {
		return etagListMatches(inm, etag)
	}
	ims := h["If-Modified-Since"]
	if len(ims) != 1 { // absent, or more than one member: ignored (§13.1.3)
		return false
	}
	if ims[0] == lastModText {
		return true
	}
	t, err := http.ParseTime(ims[0])
	if err != nil { // not a valid HTTP-date: ignored
		return false
	}
	return !lastMod.After(t)
}

// blank reports whether a header field is absent or has only empty values;
// net/http treats such an If-None-Match as absent, and so do we.
func blank(values []string) bool {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// etagListMatches reports whether any entity tag in the If-None-Match field
// values weakly matches etag, or the field holds "*". Parsing stops at the
// first malformed member of a value, as net/http does.
func etagListMatches(values []string, etag string) bool {
	for _, v := range values {
		for {
			v = strings.TrimLeft(v, " \t,")
			if v == "" {
				break
			}
			if v[0] == '*' {
				return true
			}
			tag, rest, ok := scanETag(v)
			if !ok {
				break
			}
			if weakEqual(tag, etag) {
				return true
			}
			v = rest
		}
	}
	return false
}

// scanETag splits one entity-tag (W/"..." or "...", RFC 9110 §8.8.3) off the
// front of s.
func scanETag(s string) (tag, rest string, ok bool) {
	start := 0
	if strings.HasPrefix(s, "W/") {
		start = 2
	}
	if len(s) < start+2 || s[start] != '"' {
		return "", "", false
	}
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || 0x23 <= c && c <= 0x7e || c >= 0x80: // etagc
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// weakEqual compares two entity tags ignoring weakness (§8.8.3.2).
func weakEqual(a, b string) bool {
	return strings.TrimPrefix(a, "W/") == strings.TrimPrefix(b, "W/")
}
