package urlnorm

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/deltaq/deltaq/internal/excerpt"
)

// MaxLength is the longest normalized URL accepted, in bytes. 2,048 bytes is
// the practical limit of browsers and search engines; a longer URL is almost
// always a crawler trap (session ids, calendars, repeated path segments).
const MaxLength = 2048

// maxInput bounds the raw input before any work is done. Normalization can
// shrink a URL (dot segments, decoded escapes) but rarely by more than this
// factor, and refusing larger inputs early keeps hostile links cheap.
const maxInput = 4 * MaxLength

var (
	// ErrUnsupportedScheme is returned for any scheme but http and https,
	// and for a URL without a scheme.
	ErrUnsupportedScheme = errors.New("urlnorm: unsupported scheme")
	// ErrTooLong is returned, wrapped with the length and MaxLength, when
	// the input or the normalized URL is longer than allowed.
	ErrTooLong = errors.New("urlnorm: too long")
	// ErrInvalid is returned for a URL that cannot name a page: an empty or
	// malformed host, a bad port, a malformed SURT key.
	ErrInvalid = errors.New("urlnorm: invalid URL")
)

// Normalize returns the canonical form of the absolute http or https URL
// raw. See the package documentation for the rules.
func Normalize(raw string) (string, error) {
	s := clean(raw)
	if len(s) > maxInput {
		return "", tooLong(len(s), false)
	}
	r := split(s)
	if r.scheme == "" {
		return "", fmt.Errorf("%w: %s has no scheme", ErrUnsupportedScheme, Quote(s))
	}
	if !r.hasAuth {
		// "http:example.com/a" and "http:/example.com/a": browsers read the
		// first path segment as the host.
		r = withAuthority(r)
	}
	return build(r)
}

// withAuthority takes the host from the path of a URL written without "//".
func withAuthority(r parts) parts {
	p := strings.TrimLeft(r.path, "/")
	i := strings.IndexByte(p, '/')
	if i < 0 {
		i = len(p)
	}
	r.hasAuth, r.auth, r.path = true, p[:i], p[i:]
	return r
}

// NormalizeURL normalizes a parsed URL. It is Normalize(u.String()).
func NormalizeURL(u *url.URL) (string, error) {
	if u == nil {
		return "", fmt.Errorf("%w: nil URL", ErrInvalid)
	}
	return Normalize(u.String())
}

// Resolve resolves the reference ref (a link as written in a page) against
// the page URL base, as RFC 3986 §5.2 describes, and normalizes the result.
// A reference "http:path" with the base's own scheme is taken as relative,
// as browsers do (RFC 3986 §5.2.2, non-strict). A nil base accepts only
// absolute references. To resolve many links of one page, use a Resolver.
func Resolve(base *url.URL, ref string) (string, error) {
	if base == nil {
		return Normalize(ref)
	}
	r, err := NewResolver(base)
	if err != nil {
		return "", err
	}
	return r.Resolve(ref)
}

// Resolver resolves references against one base URL, which it normalizes
// once. It is immutable and safe for concurrent use.
type Resolver struct {
	norm string // the normalized base
	base parts  // norm split into components
}

// NewResolver returns a Resolver for the page URL base.
func NewResolver(base *url.URL) (*Resolver, error) {
	bs, err := NormalizeURL(base)
	if err != nil {
		return nil, fmt.Errorf("urlnorm: resolve against base: %w", err)
	}
	return &Resolver{norm: bs, base: split(bs)}, nil
}

// Base returns the normalized base URL.
func (res *Resolver) Base() string { return res.norm }

// Resolve resolves ref against the base; see the package-level Resolve.
func (res *Resolver) Resolve(ref string) (string, error) {
	s := clean(ref)
	if len(s) > maxInput {
		return "", tooLong(len(s), false)
	}
	r := split(s)
	if r.scheme != "" && (r.hasAuth || (r.scheme != "http" && r.scheme != "https")) {
		return build(r)
	}
	b := res.base
	if r.scheme != "" && r.scheme != b.scheme {
		// "https:example.com" on an http page is absolute.
		return build(withAuthority(r))
	}
	t := parts{scheme: b.scheme, hasAuth: true}
	switch {
	case r.hasAuth:
		t.auth, t.path, t.query, t.hasQuery = r.auth, r.path, r.query, r.hasQuery
	case r.path == "":
		t.auth, t.path = b.auth, b.path
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		} else {
			t.query, t.hasQuery = b.query, b.hasQuery
		}
	case r.path[0] == '/':
		t.auth, t.path, t.query, t.hasQuery = b.auth, r.path, r.query, r.hasQuery
	default:
		// RFC 3986 §5.2.3: merge with the base path up to its last slash.
		// A normalized base always has a path starting with '/'.
		t.auth, t.query, t.hasQuery = b.auth, r.query, r.hasQuery
		t.path = b.path[:strings.LastIndexByte(b.path, '/')+1] + r.path
	}
	return build(t)
}

// build normalizes the components of an absolute URL and joins them.
func build(r parts) (string, error) {
	var port int
	switch r.scheme {
	case "http":
		port = 80
	case "https":
		port = 443
	default:
		return "", fmt.Errorf("%w: %q", ErrUnsupportedScheme, r.scheme)
	}
	host, err := hostPort(r.auth, port)
	if err != nil {
		return "", err
	}
	path := removeDotSegments(escape(r.path, pathOK))
	if path == "" {
		path = "/"
	}
	query := ""
	if r.hasQuery {
		query = escape(r.query, queryOK)
	}
	n := len(r.scheme) + 3 + len(host) + len(path)
	if query != "" {
		n += 1 + len(query)
	}
	if n > MaxLength {
		return "", tooLong(n, true)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(r.scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(path)
	if query != "" {
		b.WriteByte('?')
		b.WriteString(query)
	}
	return b.String(), nil
}

// hostPort normalizes an authority: userinfo stripped, host normalized,
// default port dropped.
func hostPort(auth string, defaultPort int) (string, error) {
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	host, port := auth, ""
	if strings.HasPrefix(auth, "[") {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return "", fmt.Errorf("%w: unterminated IPv6 literal in %s", ErrInvalid, Quote(auth))
		}
		host, port = auth[:end+1], auth[end+1:]
		if port != "" && port[0] != ':' {
			return "", fmt.Errorf("%w: junk after IPv6 literal in %s", ErrInvalid, Quote(auth))
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		host, port = auth[:i], auth[i:]
	}
	h, err := normHost(host)
	if err != nil {
		return "", err
	}
	if port == "" || port == ":" {
		return h, nil
	}
	p, err := parsePort(port[1:])
	if err != nil {
		return "", err
	}
	if p == defaultPort {
		return h, nil
	}
	return h + ":" + strconv.Itoa(p), nil
}

func parsePort(s string) (int, error) {
	p := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: port %s", ErrInvalid, Quote(s))
		}
		p = p*10 + int(c-'0')
		if p > 65535 {
			return 0, fmt.Errorf("%w: port %s out of range", ErrInvalid, Quote(s))
		}
	}
	return p, nil
}

// removeDotSegments applies RFC 3986 §5.2.4 to a path that is empty or
// starts with '/'.
func removeDotSegments(p string) string {
	if !hasDotSegment(p) {
		return p
	}
	segs := strings.Split(p[1:], "/")
	out := segs[:0]
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

func hasDotSegment(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' || i+1 >= len(p) || p[i+1] != '.' {
			continue
		}
		rest := p[i+2:]
		if rest == "" || rest[0] == '/' || rest == "." || strings.HasPrefix(rest, "./") {
			return true
		}
	}
	return false
}

// tooLong is ErrTooLong naming the length and the limit. An input over
// maxInput is named against MaxLength too: that is the limit a user can
// act on, and such an input would have to shrink fourfold to meet it.
func tooLong(n int, normalized bool) error {
	what := "bytes"
	if normalized {
		what = "bytes once normalized"
	}
	return fmt.Errorf("%w: %d %s, more than the %d allowed", ErrTooLong, n, what, MaxLength)
}

// quoteRunes is how many characters of a URL Quote keeps.
const quoteRunes = 100

// Quote returns s quoted as with %q, its first 100 characters only and
// "…" after the closing quote when it is longer: an error naming a URL
// refused for its length would otherwise repeat all of it (up to
// megabytes, from a command line or a request).
func Quote(s string) string { return excerpt.Quoted(s, quoteRunes) }
