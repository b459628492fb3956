package sitemap

import (
	"encoding/xml"
	"net/url"
	"strings"
)

// xmlNamespace is the namespace the xml: prefix is bound to; the decoder
// reports xml:base with it as Name.Space.
const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

// xmlBase is the xml:base of one element, a node in the tree of the
// document's bases. It is composed with its ancestors' bases only when a
// kept link needs it, once, so that many elements under one long base cost
// no more than their own attributes.
type xmlBase struct {
	parent   *xmlBase // the base in effect at the element's parent; nil for none
	depth    int      // the element's depth; the base holds until it ends
	raw      string
	ref      *url.URL // raw, parsed
	done     bool
	composed string // an absolute URL, or a reference still relative to the document
}

// resolved is the base in effect, "" when none (the document's URL). A
// base that cannot be composed with its parent's, or whose composition is
// longer than maxField, leaves the parent's in effect.
func (b *xmlBase) resolved() string {
	if b == nil {
		return ""
	}
	if !b.done {
		b.done = true
		pb := b.parent.resolved()
		b.composed = pb
		if c, ok := resolveRef(pb, b.ref, b.raw); ok && len(c) <= maxField {
			b.composed = c
		}
	}
	return b.composed
}

// pushBase records the xml:base of t, if it has a usable one, as the base
// in effect for t and its descendants. A base longer than maxField, or one
// that does not parse, is ignored: the parent's base stays in effect.
func (p *parser) pushBase(t xml.StartElement) {
	for _, a := range t.Attr {
		if a.Name.Local != "base" || a.Name.Space != xmlNamespace {
			continue
		}
		v := strings.TrimSpace(a.Value)
		if len(v) > maxField {
			return
		}
		ref, err := url.Parse(v)
		if err != nil {
			return
		}
		p.base = &xmlBase{parent: p.base, depth: p.depth, raw: v, ref: ref}
		return
	}
}

// popBase ends the base set by the element at the current depth, if any.
func (p *parser) popBase() {
	if p.base != nil && p.base.depth == p.depth {
		p.base = p.base.parent
	}
}

// resolveLink resolves a feed item's link against base, the xml:base in
// effect at the element it was read from. The result is still resolved by
// the caller against the document's URL, so a link is returned as written
// when no base is in effect, when it is absolute already, when it does
// not parse, and in sitemaps, whose locations are absolute by protocol.
func (p *parser) resolveLink(link string, base *xmlBase) string {
	if base == nil || link == "" || (p.res.Format != FormatRSS && p.res.Format != FormatAtom) {
		return link
	}
	b := base.resolved()
	if b == "" {
		return link
	}
	ref, err := url.Parse(link)
	if err != nil || ref.Scheme != "" {
		return link
	}
	if s, ok := resolveRef(b, ref, link); ok {
		return s
	}
	return link
}

// resolveRef resolves ref (whose text is raw) against base as RFC 3986
// section 5.2 does. When base is itself relative, the result is the
// reference that, resolved against any document URL, gives what resolving
// base and then ref against that URL gives. ok is false when base does not
// parse or no such reference can be written.
func resolveRef(base string, ref *url.URL, raw string) (string, bool) {
	if base == "" {
		return raw, true
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	switch {
	case b.Scheme != "":
		return b.ResolveReference(ref).String(), true
	case ref.Scheme != "" || ref.Host != "" || ref.User != nil:
		return raw, true // ref does not depend on base
	case b.Host != "" || b.User != nil:
		// "//host/path": only the scheme is missing, and resolution does
		// not depend on it.
		abs := *b
		abs.Scheme = "http"
		u := abs.ResolveReference(ref)
		u.Scheme = ""
		return u.String(), true
	case strings.HasPrefix(b.Path, "/"):
		// "/path": the scheme and host are missing.
		abs := *b
		abs.Scheme, abs.Host = "http", "h.invalid"
		u := abs.ResolveReference(ref)
		if strings.HasPrefix(u.EscapedPath(), "//") {
			return "", false // would read as an authority
		}
		u.Scheme, u.Host = "", ""
		return u.String(), true
	}
	// base is a relative-path reference, or has no path at all.
	rp := ref.EscapedPath()
	if strings.HasPrefix(rp, "/") {
		return raw, true
	}
	var s string
	query, hasQuery := ref.RawQuery, ref.ForceQuery || ref.RawQuery != ""
	if rp == "" {
		s = relativePath(b.EscapedPath())
		if !hasQuery {
			query, hasQuery = b.RawQuery, b.ForceQuery || b.RawQuery != ""
		}
	} else {
		bp := b.EscapedPath()
		if bp != "" {
			bp = removeDotSegments(bp) // "x/.." is the document's directory
		}
		s = relativePath(removeDotSegments(bp[:strings.LastIndex(bp, "/")+1] + rp))
	}
	if hasQuery {
		s += "?" + query
	}
	if ref.Fragment != "" {
		s += "#" + ref.EscapedFragment()
	}
	return s, true
}

// removeDotSegments removes the "." and ".." segments of a relative path
// as RFC 3986 section 5.2.4 does, except that ".." segments with nothing
// left to remove are kept, for the document's URL to resolve. The result
// is "./" when nothing is left.
func removeDotSegments(path string) string {
	segs := strings.Split(path, "/")
	out := make([]string, 0, len(segs))
	dir := false // the path ends in a directory
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case "":
			if last && i > 0 {
				dir = true // a trailing slash
				continue
			}
			out = append(out, s)
		case ".":
			dir = dir || last
		case "..":
			if n := len(out); n > 0 && out[n-1] != ".." {
				out = out[:n-1]
			} else {
				out = append(out, "..")
			}
			dir = dir || last
		default:
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "./"
	}
	p := strings.Join(out, "/")
	if dir {
		p += "/"
	}
	return p
}

// relativePath keeps a relative path from reading as an absolute path or
// a scheme: "/x" (from an empty first segment) and "a:b" get a "./" prefix.
func relativePath(p string) string {
	first, _, _ := strings.Cut(p, "/")
	if strings.HasPrefix(p, "/") || strings.Contains(first, ":") {
		return "./" + p
	}
	return p
}
