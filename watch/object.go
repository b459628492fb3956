package watch

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// page is one fetched copy, parsed once for every constant table of its
// group. The DOM, the MD5 and the page text's word splits are made only
// when a table needs them, and then once for all its tables.
type page struct {
	url      *url.URL
	body     []byte
	sum      string // MD5 of the body, hex (WebCQ §6.2); see md5
	doc      *extract.Document
	dom      *goquery.Document
	lim      extract.Limits // bounds the page a selector walks (selector.go)
	src      *string        // the body as a string, for regexes
	resolver *urlnorm.Resolver
	// The page text split into words, as is and lower-cased, and the
	// lower-cased words joined by single spaces with a space at each end
	// (allKeywords).
	words, lowerWords []string
	lowerText         string
	// The page's links, sorted: the links tables' object and the
	// page-level diff's, made once for both.
	anchors []string
}

// ErrNotPage is a copy served as something other than a page of text
// (a PDF, an image): its bytes are no words to compare. It is the page's
// answer, not the sentinel, that is wrong: a check records it as it is,
// and only an install (whose spec names that page) marks it ErrInvalid.
var ErrNotPage = errors.New("watch: not an HTML or text page")

// pageType accepts the Content-Type of a page of text: HTML, text/*, XML
// (a feed is watched as often as a page) or JSON; or none (a kept copy, a
// server that sends none).
func pageType(rawURL, contentType string) error {
	if contentType == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err == nil && (strings.HasPrefix(mt, "text/") || mt == "application/xml" || strings.HasSuffix(mt, "+xml") ||
		mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return fmt.Errorf("%w: %s has Content-Type %q; a sentinel reads text/*, XML (application/xml, */*+xml) or JSON", ErrNotPage, rawURL, contentType)
}

// newPage parses one copy of rawURL, refusing one that is not a page: by
// its Content-Type, or by its bytes (a PDF or an image sent as text/html
// would make a change of garbage words).
func newPage(rawURL string, body []byte, contentType string, lim extract.Limits) (*page, error) {
	if err := pageType(rawURL, contentType); err != nil {
		return nil, err
	}
	if bt := extract.BinaryType(body); bt != "" {
		return nil, fmt.Errorf("%w: %s: the body is %s, not the %q it was sent as", ErrNotPage, rawURL, bt, contentType)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("watch: url %q: %w", rawURL, err)
	}
	d, err := extract.HTML(body, contentType, u, lim)
	if err != nil {
		return nil, fmt.Errorf("watch: parse %s: %w", rawURL, err)
	}
	return &page{url: u, body: body, doc: d, lim: lim}, nil
}

// TextCutError is a page whose text is longer than
// watch.extract.max_text_bytes, for a sentinel that reads the page's
// words (words, keywords or phrase with no selector): the words past the
// cut are not seen, so a phrase there is not found and keywords there
// never fire.
type TextCutError struct {
	URL       string
	Limit     int // watch.extract.max_text_bytes
	BodyBytes int // the page's size; its text is over Limit
}

func (e *TextCutError) Error() string {
	return fmt.Sprintf("watch: the text of %s (a %d-byte page) is over watch.extract.max_text_bytes = %d bytes and is cut there: "+
		"words, keywords and phrases past the cut are not seen; select the part to watch with a CSS selector, or raise the limit",
		e.URL, e.BodyBytes, e.Limit)
}

// textCut is p's TextCutError if s reads the page text and it was cut,
// else nil.
func (p *page) textCut(s *Spec) *TextCutError {
	if !p.doc.TextTruncated || s.Selector != "" || (s.Type != Words && s.Type != Keywords && s.Type != Phrase) {
		return nil
	}
	return &TextCutError{URL: p.url.String(), Limit: p.lim.MaxTextBytes, BodyBytes: len(p.body)}
}

// md5 is the body's MD5 (hex); a check that already has it sets p.sum.
func (p *page) md5() string {
	if p.sum == "" {
		p.sum = md5Hex(p.body)
	}
	return p.sum
}

// Selectors the extractors use on every page, compiled once.
var (
	hiddenTags = cascadia.MustCompile("script, style, noscript, template")
	anchorTags = cascadia.MustCompile("a[href], area[href]")
	imageTags  = cascadia.MustCompile("img[src]")
	tableTags  = cascadia.MustCompile("table")
	listTags   = cascadia.MustCompile("ul, ol")
	rowTags    = cascadia.MustCompile("tr")
	cellTags   = cascadia.MustCompile("td, th")
	itemTags   = cascadia.MustCompile("li")
)

// textWords are the words of the page text.
func (p *page) textWords() []string {
	if p.words == nil {
		p.words = diff.Fields(p.doc.Text)
	}
	return p.words
}

// lowered is the lower-cased page text split once: its words, and the
// words joined by single spaces with a space at each end (allKeywords).
// The words are the page's words lower-cased one by one, which is the
// lower-cased text split (no rune lower-cases to or from a space), and
// costs no copy for a word already in lower case.
func (p *page) lowered() (words []string, joined string) {
	if p.lowerWords == nil {
		ws := p.textWords()
		p.lowerWords = make([]string, len(ws))
		for i, w := range ws {
			p.lowerWords[i] = strings.ToLower(w)
		}
		p.lowerText = " " + strings.Join(p.lowerWords, " ") + " "
	}
	return p.lowerWords, p.lowerText
}

// bodyText is the body as a string, converted once.
func (p *page) bodyText() string {
	if p.src == nil {
		s := string(p.body)
		p.src = &s
	}
	return *p.src
}

func md5Hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

func (p *page) document() (*goquery.Document, error) {
	if p.dom == nil {
		d, err := goquery.NewDocumentFromReader(bytes.NewReader(p.body))
		if err != nil {
			return nil, fmt.Errorf("watch: parse %s: %w", p.url, err)
		}
		d.FindMatcher(hiddenTags).Remove()
		p.dom = d
	}
	return p.dom, nil
}

// Object is what a constant table tracks on its page, as cached between
// checks (WebCQ §3.3, the object cache).
type Object struct {
	// Located is false when the object could not be found on the page
	// (a selector matching nothing, a bounding box that no longer fits).
	Located bool     `json:"located"`
	Sum     string   `json:"sum,omitempty"`  // any: MD5 of the body
	Text    string   `json:"text,omitempty"` // any, regex, phrase, table, list
	Set     []string `json:"set,omitempty"`  // links, images, words: sorted, distinct
	Flag    bool     `json:"flag,omitempty"` // keywords: all present
	Box     *Box     `json:"box,omitempty"`  // phrase: the bounding box around Text
}

// scope is the part of the page a selector picks, or the whole page.
type scope struct {
	sel  *goquery.Selection // nil: the whole page
	text string
}

func (p *page) scope(selector string) (scope, bool, error) {
	if selector == "" {
		return scope{text: p.doc.Text}, true, nil
	}
	compiled, err := compileSelector(selector)
	if err != nil {
		return scope{}, false, fmt.Errorf("watch: select %q: %w", selector, err)
	}
	d, err := p.document()
	if err != nil {
		return scope{}, false, err
	}
	nodes, err := compiled.match(d.Nodes[0], p.lim.MaxDepth, p.lim.MaxNodes)
	if err != nil {
		return scope{}, false, fmt.Errorf("watch: select %q on %s: %w", selector, p.url, err)
	}
	sel := d.FindNodes(nodes...)
	if sel.Length() == 0 {
		return scope{}, false, nil
	}
	return scope{sel: sel, text: selText(sel)}, true, nil
}

// selText is the text of the selected elements as the page text reads
// it, spaces normalized: distinct elements, and the words on either side
// of an element that separates words (p, div, td, li, br, ...), are kept
// apart. goquery's Text joins them: cells 10 and 25 would read "1025",
// as would 102 and 5, and the change would go unseen.
func selText(sel *goquery.Selection) string {
	var b strings.Builder
	for _, n := range sel.Nodes {
		writeText(&b, n)
		b.WriteByte(' ')
	}
	return normalizeSpace(b.String())
}

// writeText writes the text under n, a space at each side of an element
// that separates words.
func writeText(b *strings.Builder, n *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.WriteString(n.Data)
		return
	case html.ElementNode:
		if extract.SeparatesWords(n.DataAtom) {
			b.WriteByte(' ')
			defer b.WriteByte(' ')
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		writeText(b, c)
	}
}

func normalizeSpace(s string) string { return strings.Join(diff.Fields(s), " ") }

// extract finds the object of spec on p. prev is the table's cached
// object (nil at install); phrases are located through its bounding box.
func (p *page) extract(s *Spec, prev *Object, cfg Config) (Object, error) {
	if s.Type == Any && s.Selector == "" {
		// The page-level diff works from the kept copies, so the object
		// is the MD5 alone.
		return Object{Located: true, Sum: p.md5()}, nil
	}
	sc, ok, err := p.scope(s.Selector)
	if err != nil || !ok {
		return Object{}, err
	}
	switch s.Type {
	case Any:
		return Object{Located: true, Sum: md5Hex([]byte(sc.text)), Text: sc.text}, nil
	case Links:
		return Object{Located: true, Set: p.links(sc)}, nil
	case Images:
		imgs, err := p.images(sc)
		return Object{Located: true, Set: imgs}, err
	case Words:
		if sc.sel == nil {
			ws, _ := p.lowered()
			return Object{Located: true, Set: distinctWords(slices.Clone(ws))}, nil
		}
		return Object{Located: true, Set: distinctWords(diff.Fields(strings.ToLower(sc.text)))}, nil
	case Keywords:
		var low string
		if sc.sel == nil {
			_, low = p.lowered()
		} else {
			low = " " + normalizeSpace(strings.ToLower(sc.text)) + " "
		}
		return Object{Located: true, Flag: allKeywords(low, s.Keywords)}, nil
	case Regex:
		return p.regex(sc, s.Regex, cfg.MaxMatchBytes)
	case Phrase:
		if sc.sel == nil {
			return phraseObject(p.textWords(), s, prev, cfg)
		}
		return phraseObject(diff.Fields(sc.text), s, prev, cfg)
	case Table, List:
		return p.block(sc, s)
	}
	return Object{}, fmt.Errorf("watch: type %q", s.Type)
}

func (p *page) links(sc scope) []string {
	if sc.sel == nil {
		if p.anchors == nil {
			var out []string
			for _, l := range p.doc.Links {
				if l.Kind == extract.KindAnchor {
					out = append(out, l.URL)
				}
			}
			p.anchors = sortedSet(out)
		}
		return p.anchors
	}
	var out []string
	sc.sel.FindMatcher(anchorTags).Each(func(_ int, a *goquery.Selection) {
		if u, ok := p.resolve(a.AttrOr("href", "")); ok {
			out = append(out, u)
		}
	})
	return sortedSet(out)
}

func (p *page) images(sc scope) ([]string, error) {
	sel := sc.sel
	if sel == nil {
		d, err := p.document()
		if err != nil {
			return nil, err
		}
		sel = d.Selection
	}
	var out []string
	sel.FindMatcher(imageTags).Each(func(_ int, img *goquery.Selection) {
		if u, ok := p.resolve(img.AttrOr("src", "")); ok {
			out = append(out, u)
		}
	})
	return sortedSet(out), nil
}

// resolve makes an href absolute and normalized, as the crawler does,
// with one resolver for the page's links and images.
func (p *page) resolve(href string) (string, bool) {
	if p.resolver == nil {
		r, err := urlnorm.NewResolver(p.url)
		if err != nil {
			return "", false
		}
		p.resolver = r
	}
	n, err := p.resolver.Resolve(strings.TrimSpace(href))
	return n, err == nil
}

func sortedSet(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// distinctWords are the distinct words of a text (WebCQ "All words"),
// given its lower-cased words, which it reorders and trims in place.
// Repeats are dropped before the sort, which then orders about half as
// many words.
func distinctWords(ws []string) []string {
	seen := make(map[string]struct{}, len(ws))
	out := ws[:0]
	for _, w := range ws {
		w = trimPunct(w)
		if _, dup := seen[w]; dup || w == "" {
			continue
		}
		seen[w] = struct{}{}
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

func isPunct(r rune) bool { return strings.ContainsRune(".,;:!?\"'()[]{}«»“”‘’", r) }

// trimPunct is strings.TrimFunc(w, isPunct). Most words start and end in
// an ASCII letter or digit, which is no punctuation and a rune of its own,
// so they are returned as they are without a look at the punctuation list.
func trimPunct(w string) string {
	if w != "" && asciiAlnum(w[0]) && asciiAlnum(w[len(w)-1]) {
		return w
	}
	return strings.TrimFunc(w, isPunct)
}

func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// allKeywords is WebCQ's keyword test (App. B): every keyword is a
// case-insensitive substring of some word of the text. A keyword of
// several words must appear as those words in a row. low is the text
// lower-cased, its words joined by single spaces, a space at each end.
func allKeywords(low string, kws []string) bool {
	for _, k := range kws {
		if !strings.Contains(low, normalizeSpace(strings.ToLower(k))) {
			return false
		}
	}
	return true
}

func (p *page) regex(sc scope, expr string, maxBytes int) (Object, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return Object{}, fmt.Errorf("watch: regex %q: %w", expr, err)
	}
	src := p.bodyText()
	if sc.sel != nil {
		if src, err = goquery.OuterHtml(sc.sel); err != nil {
			return Object{}, fmt.Errorf("watch: regex scope: %w", err)
		}
	}
	var b strings.Builder
	for _, m := range re.FindAllString(src, -1) {
		if b.Len()+len(m)+1 > maxBytes {
			break
		}
		b.WriteString(m)
		b.WriteByte('\n')
	}
	return Object{Located: true, Text: b.String()}, nil
}

// block extracts a table (rows of cells) or a list (items), one line per
// row or item, so that the line diff shows rows and items.
func (p *page) block(sc scope, s *Spec) (Object, error) {
	tag := tableTags
	if s.Type == List {
		tag = listTags
	}
	sel := sc.sel
	if sel == nil {
		d, err := p.document()
		if err != nil {
			return Object{}, err
		}
		sel = d.Selection
	}
	var cands *goquery.Selection
	if sel.IsMatcher(tag) {
		cands = sel.FilterMatcher(tag)
	} else {
		cands = sel.FindMatcher(tag)
	}
	want := normalizeSpace(strings.ToLower(s.Object))
	var found *goquery.Selection
	cands.EachWithBreak(func(_ int, c *goquery.Selection) bool {
		if want == "" || strings.Contains(strings.ToLower(selText(c)), want) {
			found = c
			return false
		}
		return true
	})
	if found == nil {
		return Object{}, nil
	}
	var lines []string
	if s.Type == Table {
		found.FindMatcher(rowTags).Each(func(_ int, tr *goquery.Selection) {
			var cells []string
			tr.ChildrenMatcher(cellTags).Each(func(_ int, c *goquery.Selection) {
				cells = append(cells, selText(c))
			})
			lines = append(lines, strings.Join(cells, " | "))
		})
	} else {
		found.ChildrenMatcher(itemTags).Each(func(_ int, li *goquery.Selection) {
			lines = append(lines, selText(li))
		})
	}
	return Object{Located: true, Text: strings.Join(lines, "\n")}, nil
}

// equal reports whether two cached objects are the same for a type.
func (o *Object) equal(n *Object, t Type) bool {
	if o.Located != n.Located {
		return false
	}
	switch t {
	case Any:
		return o.Sum == n.Sum
	case Links, Images, Words:
		return slices.Equal(o.Set, n.Set)
	case Keywords:
		return o.Flag == n.Flag
	}
	return o.Text == n.Text
}
