package sitemap

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/deltaq/deltaq/internal/bounds"
)

// MaxDepth bounds element nesting. Sitemaps nest four deep and feeds
// rarely twenty (XHTML content in Atom); the bound keeps the decoder's
// element stack small against hostile input.
const MaxDepth = 256

// maxField bounds the text kept for one field (a <loc>, a date); a longer
// field is not a usable URL or date.
const maxField = 8 << 10

var (
	// ErrTooLarge is returned when the decompressed body exceeds
	// Limits.MaxBytes.
	ErrTooLarge = errors.New("sitemap: too large")
	// ErrFeedTooLarge is returned for an RSS or Atom body over
	// Limits.FeedBytes.
	ErrFeedTooLarge = errors.New("sitemap: feed too large")
	// ErrUnknownFormat is returned when the root element is none of
	// urlset, sitemapindex, rss, rdf:RDF, feed.
	ErrUnknownFormat = errors.New("sitemap: unknown format")
)

// Limits bound what Parse reads and keeps.
type Limits struct {
	// MaxBytes caps the body after decompression, in bytes.
	MaxBytes int64 `mapstructure:"max_bytes"`
	// MaxURLs caps the entries kept per file; further ones are counted in
	// Result.Dropped.
	MaxURLs int `mapstructure:"max_urls"`
	// FeedItems, when > 0, caps the items of an RSS or Atom feed whose
	// links are kept, counting items without a link too: it is
	// feeds.max_items, set where the crawler is wired (cmd/deltaq), the
	// items the feed aggregator reads of a feed, so that the crawler is
	// offered the links of those items and not of the ones it leaves
	// unread. Further items are counted in Result.Dropped.
	FeedItems int `mapstructure:"-"`
	// FeedBytes, when > 0, is the largest RSS or Atom body, in bytes as
	// given to Parse, whose links are kept: it is feeds.max_bytes, set
	// where FeedItems is, since the feed aggregator refuses a larger feed
	// whole. A larger feed stops at its root element with ErrFeedTooLarge
	// and keeps nothing.
	FeedBytes int64 `mapstructure:"-"`
}

// Upper bounds of Limits, a hundred times the sitemaps.org limits: a gzip
// bomb is decompressed up to MaxBytes, and the entries kept are held in
// memory.
const (
	maxBytesLimit = 4 << 30
	maxURLsLimit  = 5_000_000
)

// Validate reports every limit out of range, naming its key.
func (l Limits) Validate() error {
	report := bounds.NewReport("sitemap.")
	report.Add("max_bytes", l.MaxBytes, bounds.Positive(l.MaxBytes, maxBytesLimit))
	report.Add("max_urls", l.MaxURLs, bounds.Positive(l.MaxURLs, maxURLsLimit))
	return report.Err()
}

// Format is the kind of document parsed.
type Format uint8

const (
	FormatUnknown Format = iota
	FormatURLSet         // <urlset>: a sitemap of pages
	FormatIndex          // <sitemapindex>: a sitemap of sitemaps
	FormatRSS            // <rss> (2.0) or <rdf:RDF> (1.0)
	FormatAtom           // <feed>
)

func (f Format) String() string {
	switch f {
	case FormatURLSet:
		return "urlset"
	case FormatIndex:
		return "sitemapindex"
	case FormatRSS:
		return "rss"
	case FormatAtom:
		return "atom"
	}
	return "unknown"
}

// Result is what a sitemap or feed lists.
type Result struct {
	Format Format
	// URLs are the pages of a urlset, or the items of a feed.
	URLs []URL
	// Sitemaps are the child sitemaps of a sitemap index.
	Sitemaps []URL
	// Dropped counts entries beyond Limits.MaxURLs, and a feed's items
	// beyond Limits.FeedItems.
	Dropped int
	// Skipped counts entries without a usable location.
	Skipped int
	// BadDates counts dates that could not be read; their LastMod is zero.
	BadDates int
}

// URL is one entry.
type URL struct {
	// Loc is the location as written, trimmed; a feed item's link is
	// resolved against the xml:base in effect, and may still be relative.
	Loc string
	// LastMod is <lastmod>, or a feed item's <updated>, <pubDate>,
	// <dc:date> or <published>, in UTC; zero when absent or unreadable.
	LastMod time.Time
	// ChangeFreq is <changefreq>, lowercased, when it is one of always,
	// hourly, daily, weekly, monthly, yearly, never; else "".
	ChangeFreq string
	// Priority is <priority> in [0, 1]; the protocol's default 0.5 when
	// absent or invalid.
	Priority float64
}

// Parse reads a sitemap, sitemap index, RSS or Atom document, gzipped or
// not. It returns a non-nil Result even with an error, holding the
// entries read before the error.
func Parse(body []byte, lim Limits) (*Result, error) {
	res := &Result{}
	if err := lim.Validate(); err != nil {
		return res, err
	}
	var src io.Reader = bytes.NewReader(body)
	if len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return res, fmt.Errorf("sitemap: gunzip: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	cr := &capReader{r: src, left: lim.MaxBytes}
	br := bufio.NewReaderSize(cr, 32<<10)
	if bom, err := br.Peek(3); err == nil && string(bom) == "\xef\xbb\xbf" {
		if _, err := br.Discard(3); err != nil {
			return res, fmt.Errorf("sitemap: %w", err)
		}
	}
	p := parser{res: res, lim: lim, size: int64(len(body))}
	err := p.run(br)
	if err != nil && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrFeedTooLarge) {
		// Measure the rest without keeping it, so that a bomb that is
		// also malformed is still reported as too large.
		if _, derr := io.Copy(io.Discard, br); errors.Is(derr, ErrTooLarge) {
			err = errors.Join(err, ErrTooLarge)
		}
	}
	return res, err
}

// capReader reads at most left bytes from r and fails with ErrTooLarge on
// the byte after.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - 1, ErrTooLarge
	}
	return n, err
}

// parser is the state of one Parse.
type parser struct {
	res   *Result
	lim   Limits
	size  int64 // bytes given to Parse (Limits.FeedBytes)
	depth int

	items      int // a feed's items read (Limits.FeedItems)
	entryDepth int // depth of the open entry element; 0 when none
	field      string
	fieldDepth int
	text       strings.Builder
	overflow   bool
	cur        entry
	base       *xmlBase // the xml:base in effect; nil when none
}

// entry collects the fields of one <url>, <sitemap>, <item> or <entry>.
type entry struct {
	loc, guid, link              string
	lastmod, updated, published  string
	changefreq, priority         string
	hasPermaLinkFalse, hasAtomLk bool
	linkBase                     *xmlBase // the xml:base in effect at link's element
}

func (p *parser) run(r io.Reader) error {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charset.NewReaderLabel
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if p.res.Format == FormatUnknown {
				return fmt.Errorf("%w: no root element", ErrUnknownFormat)
			}
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return fmt.Errorf("sitemap: after %d bytes: %w", p.lim.MaxBytes, ErrTooLarge)
			}
			return fmt.Errorf("sitemap: xml at byte %d: %w", d.InputOffset(), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p.depth++
			if p.depth > MaxDepth {
				return fmt.Errorf("sitemap: elements nested deeper than %d", MaxDepth)
			}
			p.pushBase(t)
			if err := p.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			p.end()
			p.popBase()
			p.depth--
		case xml.CharData:
			if p.field != "" && !p.overflow {
				if p.text.Len()+len(t) > maxField {
					p.overflow = true
				} else {
					p.text.Write(t)
				}
			}
		}
	}
}

func (p *parser) start(t xml.StartElement) error {
	name := strings.ToLower(t.Name.Local)
	if p.depth == 1 {
		switch name {
		case "urlset":
			p.res.Format = FormatURLSet
		case "sitemapindex":
			p.res.Format = FormatIndex
		case "rss", "rdf":
			p.res.Format = FormatRSS
		case "feed":
			p.res.Format = FormatAtom
		default:
			return fmt.Errorf("%w: root element <%s>", ErrUnknownFormat, t.Name.Local)
		}
		if f := p.res.Format; p.lim.FeedBytes > 0 && p.size > p.lim.FeedBytes && (f == FormatRSS || f == FormatAtom) {
			return fmt.Errorf("%w: %s feed of %d bytes, limit %d (feeds.max_bytes)", ErrFeedTooLarge, f, p.size, p.lim.FeedBytes)
		}
		return nil
	}
	if p.entryDepth == 0 {
		if name == p.entryName() {
			p.entryDepth = p.depth
			p.cur = entry{}
		}
		return nil
	}
	if p.depth != p.entryDepth+1 {
		return nil // only direct children of an entry count
	}
	switch name {
	case "loc", "lastmod", "changefreq", "priority", "guid", "pubdate", "date", "updated", "published":
	case "link":
		if p.res.Format == FormatAtom {
			p.atomLink(t)
			return nil
		}
	default:
		return nil
	}
	if name == "guid" {
		for _, a := range t.Attr {
			if strings.EqualFold(a.Name.Local, "isPermaLink") && strings.TrimSpace(a.Value) == "false" {
				p.cur.hasPermaLinkFalse = true
			}
		}
	}
	p.field, p.fieldDepth = name, p.depth
	p.text.Reset()
	p.overflow = false
	return nil
}

func (p *parser) entryName() string {
	switch p.res.Format {
	case FormatURLSet:
		return "url"
	case FormatIndex:
		return "sitemap"
	case FormatRSS:
		return "item"
	case FormatAtom:
		return "entry"
	}
	return ""
}

// atomLink takes the first <link href> whose rel is absent or "alternate".
func (p *parser) atomLink(t xml.StartElement) {
	if p.cur.hasAtomLk {
		return
	}
	var href, rel string
	for _, a := range t.Attr {
		switch a.Name.Local {
		case "href":
			href = strings.TrimSpace(a.Value)
		case "rel":
			rel = strings.TrimSpace(a.Value)
		}
	}
	if href != "" && (rel == "" || rel == "alternate") {
		p.cur.link, p.cur.linkBase, p.cur.hasAtomLk = href, p.base, true
	}
}

func (p *parser) end() {
	if p.field != "" && p.depth == p.fieldDepth {
		v := ""
		if !p.overflow {
			v = strings.TrimSpace(p.text.String())
		}
		// The first non-empty value wins: an RSS item may carry an empty
		// <atom:link/> beside its <link>, and several date elements.
		var dst *string
		switch p.field {
		case "loc":
			dst = &p.cur.loc
		case "link":
			dst = &p.cur.link
		case "guid":
			dst = &p.cur.guid
		case "lastmod", "pubdate", "date":
			dst = &p.cur.lastmod
		case "updated":
			dst = &p.cur.updated
		case "published":
			dst = &p.cur.published
		case "changefreq":
			dst = &p.cur.changefreq
		case "priority":
			dst = &p.cur.priority
		}
		if dst != nil && *dst == "" {
			*dst = v
			if dst == &p.cur.link {
				p.cur.linkBase = p.base
			}
		}
		p.field = ""
		return
	}
	if p.entryDepth != 0 && p.depth == p.entryDepth {
		p.entryDepth = 0
		p.finish()
	}
}

// finish turns the collected fields of an entry into a URL.
func (p *parser) finish() {
	if f := p.res.Format; p.lim.FeedItems > 0 && (f == FormatRSS || f == FormatAtom) {
		if p.items++; p.items > p.lim.FeedItems {
			p.res.Dropped++
			return
		}
	}
	e := &p.cur
	u := URL{Priority: 0.5}
	fromLink := false
	switch p.res.Format {
	case FormatURLSet, FormatIndex:
		u.Loc = e.loc
	default:
		u.Loc, fromLink = e.link, e.link != ""
		if u.Loc == "" && !e.hasPermaLinkFalse && looksAbsolute(e.guid) {
			u.Loc = e.guid
		}
	}
	if u.Loc == "" {
		p.res.Skipped++
		return
	}
	if date := cmp.Or(e.updated, e.lastmod, e.published); date != "" {
		if t, ok := parseDate(date); ok {
			u.LastMod = t
		} else {
			p.res.BadDates++
		}
	}
	switch f := strings.ToLower(e.changefreq); f {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		u.ChangeFreq = f
	}
	if v, err := strconv.ParseFloat(e.priority, 64); err == nil && v >= 0 && v <= 1 {
		u.Priority = v
	}
	list := &p.res.URLs
	if p.res.Format == FormatIndex {
		list = &p.res.Sitemaps
	}
	if len(p.res.URLs)+len(p.res.Sitemaps) >= p.lim.MaxURLs {
		p.res.Dropped++
		return
	}
	if fromLink {
		// Only kept links are resolved, so a flood of dropped items costs
		// no composition of bases.
		u.Loc = p.resolveLink(u.Loc, e.linkBase)
	}
	*list = append(*list, u)
}

func looksAbsolute(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}
