package synthweb

import (
	"bytes"
	"html"
	"strings"
	"time"
)

// PageKind says what role a page plays in a site.
type PageKind string

// Page kinds of the evolving sites.
const (
	KindHome    PageKind = "home"    // newest articles, sections, tags
	KindSection PageKind = "section" // a section hub, newest first, paginated
	KindTag     PageKind = "tag"     // articles carrying one topic tag, paginated
	KindArticle PageKind = "article"
	KindFeed    PageKind = "feed"    // RSS 2.0 or Atom
	KindSitemap PageKind = "sitemap" // sitemaps.org urlset with lastmod
	KindRobots  PageKind = "robots"
	KindAbout   PageKind = "about"   // never changes
	KindPrivate PageKind = "private" // under the robots-disallowed /private/
)

// doc is a page being rendered. Every link goes through link or ref, so the
// ground truth (PageInfo.Links) is exactly what the bytes contain.
type doc struct {
	b     bytes.Buffer
	kind  PageKind
	ctype string
	base  string   // scheme://host[:port] of the page
	links []string // absolute, in document order
	lm    float64  // model time of the newest fact the page shows
	seen  bool     // lm set
	older bool     // a paginated listing has a next page
}

func (v *view) newDoc(kind PageKind, ctype string) *doc {
	d := &doc{kind: kind, ctype: ctype, base: "http://" + v.s.host + v.port}
	d.b.Grow(8 << 10)
	return d
}

// touch records that the page shows a fact that became true at model time t.
func (d *doc) touch(t float64) {
	if !d.seen || t > d.lm {
		d.lm, d.seen = t, true
	}
}

// abs resolves a root-relative href against the page.
func (d *doc) abs(href string) string {
	if strings.HasPrefix(href, "/") {
		return d.base + href
	}
	return href
}

// ref records a link without writing it (feed items, <link> elements are
// written by their callers).
func (d *doc) ref(href string) { d.links = append(d.links, d.abs(href)) }

// link writes <a href="href">text</a>.
func (d *doc) link(href, text string) {
	d.ref(href)
	d.b.WriteString(`<a href="`)
	d.b.WriteString(html.EscapeString(href))
	d.b.WriteString(`">`)
	d.b.WriteString(html.EscapeString(text))
	d.b.WriteString(`</a>`)
}

func (d *doc) s(parts ...string) {
	for _, p := range parts {
		d.b.WriteString(p)
	}
}

// Date formats used in page text and feeds; all times shown are wall times.
const (
	displayDate = "Mon, 2 Jan 2006 15:04 UTC"
	w3cDate     = "2006-01-02T15:04:05Z"
)

func fmtDate(t time.Time, layout string) string { return t.UTC().Format(layout) }
