package feeds

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/unicode"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// Item is one posting of a fetched feed.
type Item struct {
	// Key identifies the item across fetches: "g:" + GUID, else "l:" + link,
	// else "h:" + a hash of title and content; a GUID or link too long for
	// MaxKeyBytes is "g#" or "l#" + its SHA-256.
	Key       string
	Title     string
	Link      string
	Published time.Time // as the feed states it; zero if it states none
}

// Parsed is what one feed body held.
type Parsed struct {
	Title string
	Items []Item
	// Truncated counts items beyond the limit, not read.
	Truncated int
	// LinksDropped counts item links dropped: not http or https once
	// resolved (javascript:, file:, data:), relative with no base, or
	// longer than MaxLinkBytes.
	LinksDropped int
	// TitlesCut counts titles (the feed's and its items') cut at
	// MaxTitleBytes; KeysHashed the GUIDs and links over MaxKeyBytes
	// hashed into their item's key.
	TitlesCut, KeysHashed int
}

// Bounds on what one item keeps, so that a feed cannot make its items
// (stored, served by the API, re-published in the river) as long as it
// likes. Summaries and contents are not kept: they only key an item with
// neither GUID nor link, through a hash.
const (
	// MaxTitleBytes bounds a title; a longer one is cut at a UTF-8
	// boundary and ends in "…". Titles are headlines: 1 KiB holds any
	// real one several times over.
	MaxTitleBytes = 1024
	// MaxLinkBytes bounds a link, as the crawler bounds a URL
	// (urlnorm.MaxLength); a longer link is dropped, as it would be cut
	// into another URL.
	MaxLinkBytes = urlnorm.MaxLength
	// MaxKeyBytes bounds an item key. A GUID or link longer than that
	// keys its item by its SHA-256 ("g#" or "l#" and 64 hex digits), as
	// stable from poll to poll as the GUID itself.
	MaxKeyBytes = 256
)

// ErrNotAFeed is returned for a body that is not RSS or Atom: typically a
// feed URL that now serves an HTML page.
var ErrNotAFeed = errors.New("feeds: not an RSS or Atom feed")

// ErrEncoding is returned for a body in a character encoding that cannot
// be read: one its XML declaration names and no decoder knows.
var ErrEncoding = errors.New("feeds: unreadable encoding")

// ErrTooLarge is returned for a feed body or an OPML file over the size
// limit.
var ErrTooLarge = errors.New("feeds: too large")

// Parse is ParseAt for a body whose URL is not known: a relative item
// link that no xml:base resolves is dropped.
func Parse(body []byte, maxBytes int64, maxItems int) (*Parsed, error) {
	return ParseAt(body, "", maxBytes, maxItems)
}

// ParseAt reads an RSS 1.0/2.0 or Atom body served at docURL (after
// redirects) with gofeed: at most maxBytes of body, at most maxItems items
// in the feed's own order (the rest counted in Truncated). Item links are
// resolved against the document's base: its xml:base (gofeed resolves
// Atom links against it), else docURL; only http and https links are
// kept (a javascript:, file: or unresolvable link is dropped, counted in
// LinksDropped, and the item keeps its text). A body that is HTML, or not a feed
// at all, is ErrNotAFeed; a broken feed is an error naming what failed.
// Either way the caller's stored state is untouched: ParseAt has none.
func ParseAt(body []byte, docURL string, maxBytes int64, maxItems int) (*Parsed, error) {
	if int64(len(body)) > maxBytes {
		return nil, fmt.Errorf("%w: feed body of %d bytes, limit %d (feeds.max_bytes)", ErrTooLarge, len(body), maxBytes)
	}
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	if bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) {
		return nil, fmt.Errorf("%w: the body is an HTML page", ErrNotAFeed)
	}
	body, err := toUTF8(body)
	if err != nil {
		return nil, err
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		if errors.Is(err, gofeed.ErrFeedTypeNotDetected) {
			return nil, fmt.Errorf("%w: %w", ErrNotAFeed, err)
		}
		return nil, fmt.Errorf("feeds: malformed feed: %w", err)
	}
	base, _ := url.Parse(docURL) // nil for a URL that does not parse: links as written
	if base != nil && !base.IsAbs() {
		base = nil
	}
	p := &Parsed{}
	p.Title = p.title(f.Title)
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		if len(p.Items) == maxItems {
			p.Truncated++
			continue
		}
		item := Item{Key: p.itemKey(it), Title: p.title(it.Title)}
		if raw := strings.TrimSpace(it.Link); raw != "" {
			if item.Link = resolve(base, raw); item.Link == "" {
				p.LinksDropped++
			}
		}
		switch {
		case it.PublishedParsed != nil:
			item.Published = it.PublishedParsed.UTC()
		case it.UpdatedParsed != nil:
			item.Published = it.UpdatedParsed.UTC()
		}
		// A date past year 9999 (or before year 1) is none: the stored
		// item's JSON has no such years, and no posting is dated there.
		if y := item.Published.Year(); y < 1 || y > 9999 {
			item.Published = time.Time{}
		}
		p.Items = append(p.Items, item)
	}
	return p, nil
}

// resolve resolves an item's link against the document's base (nil: none
// known), RFC 3986 §5.2, and returns it if it is an http or https URL,
// else "": a reader following a javascript: or file: link of a feed we
// re-publish runs or reads what the feed chose.
func resolve(base *url.URL, link string) string {
	if len(link) > MaxLinkBytes {
		return ""
	}
	ref, err := url.Parse(link)
	if err != nil {
		return ""
	}
	if base != nil {
		ref = base.ResolveReference(ref)
	}
	if s := strings.ToLower(ref.Scheme); s != "http" && s != "https" || ref.Host == "" {
		return ""
	}
	if s := ref.String(); len(s) <= MaxLinkBytes {
		return s
	}
	return ""
}

// title is t trimmed and cut at MaxTitleBytes, counted in TitlesCut.
func (p *Parsed) title(t string) string {
	t = strings.TrimSpace(t)
	if len(t) <= MaxTitleBytes {
		return t
	}
	p.TitlesCut++
	const mark = "…"
	cut := MaxTitleBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return strings.TrimSpace(t[:cut]) + mark
}

// itemKey deduplicates by GUID, else link, else content hash; a GUID or
// link over MaxKeyBytes is keyed by its hash, counted in KeysHashed.
func (p *Parsed) itemKey(it *gofeed.Item) string {
	for _, k := range []struct{ prefix, v string }{{"g", it.GUID}, {"l", it.Link}} {
		v := strings.TrimSpace(k.v)
		switch {
		case v == "":
			continue
		case len(k.prefix)+1+len(v) > MaxKeyBytes:
			p.KeysHashed++
			h := sha256.Sum256([]byte(v))
			return k.prefix + "#" + hex.EncodeToString(h[:])
		}
		return k.prefix + ":" + v
	}
	h := sha256.Sum256([]byte(it.Title + "\x00" + it.Description + "\x00" + it.Content))
	return "h:" + hex.EncodeToString(h[:16])
}

// PostingTime is when a newly seen item counts as posted, for learning and
// for its delay: its published time when plausible, else firstSeen, the
// fetch that found it. Implausible: none stated; later than firstSeen plus
// skew (in the future); or, when the feed was fetched before (prevFetch not
// zero), earlier than that fetch minus skew (the item would have been seen
// then: it is back-dated). It also says which it used.
func PostingTime(published, firstSeen, prevFetch time.Time, skew time.Duration) (time.Time, bool) {
	switch {
	case published.IsZero():
		return firstSeen, false
	case published.After(firstSeen.Add(skew)):
		return firstSeen, false
	case !prevFetch.IsZero() && published.Before(prevFetch.Add(-skew)):
		return firstSeen, false
	}
	return published, true
}

// xmlEncoding matches the encoding an XML declaration names (group 2).
var xmlEncoding = regexp.MustCompile(`^(\x{FEFF}?\s*<\?xml\s[^>]*?\bencoding\s*=\s*["'])([^"']*)(["'])`)

// toUTF8 decodes a UTF-16 body (XML 1.0 Appendix F: a byte order mark, or
// "<?" in either byte order) to UTF-8, which gofeed's XML decoder reads
// and UTF-16 it does not, and names the declared encoding in the error
// when no decoder knows it: gofeed would only say it found no feed. A
// declaration of UTF-16 on a body that is not becomes UTF-8, as the bytes
// say.
func toUTF8(body []byte) ([]byte, error) {
	var order unicode.Endianness
	switch {
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}), bytes.HasPrefix(body, []byte("\x00<\x00?")):
		order = unicode.BigEndian
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}), bytes.HasPrefix(body, []byte("<\x00?\x00")):
		order = unicode.LittleEndian
	default:
		m := xmlEncoding.FindSubmatchIndex(body[:min(len(body), 512)])
		if m == nil {
			return body, nil
		}
		label := string(body[m[4]:m[5]])
		if enc, _ := charset.Lookup(label); enc == nil {
			return nil, fmt.Errorf("%w: the XML declaration names %.64q, an encoding not known", ErrEncoding, label)
		}
		if l := strings.ToLower(strings.TrimSpace(label)); strings.HasPrefix(l, "utf-16") || strings.HasPrefix(l, "utf16") {
			return declareUTF8(body), nil
		}
		return body, nil
	}
	if len(body)%2 != 0 {
		return nil, fmt.Errorf("%w: UTF-16 body of an odd number of bytes (%d)", ErrEncoding, len(body))
	}
	out, err := unicode.UTF16(order, unicode.UseBOM).NewDecoder().Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("%w: UTF-16: %w", ErrEncoding, err)
	}
	return declareUTF8(out), nil
}

// declareUTF8 makes the encoding a body's XML declaration names UTF-8.
func declareUTF8(body []byte) []byte {
	m := xmlEncoding.FindSubmatchIndex(body[:min(len(body), 512)])
	if m == nil {
		return body
	}
	return slices.Concat(body[:m[4]], []byte("UTF-8"), body[m[5]:])
}
