package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTML extracts a Document from an HTML body. contentType is the response's
// Content-Type header (for its charset; "" if none) and base the page's
// final URL, after redirects. It fails only for invalid limits or a base
// URL that is not http(s); anything in the body is data.
func HTML(body []byte, contentType string, base *url.URL, lim Limits) (*Document, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	if base == nil {
		return nil, errors.New("extract: nil page URL")
	}
	page, err := urlnorm.NewResolver(base)
	if err != nil {
		return nil, fmt.Errorf("extract: page URL: %w", err)
	}
	doc := &Document{}
	text, name := toUTF8(body, contentType)
	doc.Charset = name
	// Visible text is rarely more than a third of the markup.
	textCap := min(lim.MaxTextBytes+1, len(text)/3+64)
	p := parser{
		doc:   doc,
		lim:   lim,
		page:  page,
		res:   page,
		self:  page.Base(),
		body:  textBuf{max: lim.MaxTextBytes, b: make([]byte, 0, textCap)},
		main:  textBuf{max: lim.MaxTextBytes, b: make([]byte, 0, textCap)},
		title: textBuf{max: lim.MaxTextBytes},
		seen:  make(map[linkKey]int),
		stack: make([]frame, 0, min(lim.MaxDepth, 64)),
	}
	p.run(html.NewTokenizer(bytes.NewReader(text)))
	p.finish()
	return doc, nil
}

// frame is one open element.
type frame struct {
	a   atom.Atom
	cat uint8
}

type linkKey struct {
	url  string
	kind Kind
}

// parser is the state of one HTML call.
type parser struct {
	doc   *Document
	lim   Limits
	page  *urlnorm.Resolver // resolves against the page's URL
	res   *urlnorm.Resolver // resolves links: against <base href> or the page
	self  string            // the page's normalized URL
	stack []frame
	nodes int

	// Open elements per category, counted over stack.
	skip, mainOpen, chrome, head, titleOpen int

	sawMain   bool // a main or article element was seen
	sawBase   bool
	sawHTML   bool
	titleDone bool

	body, main, title textBuf
	seen              map[linkKey]int // index into doc.Links
}

func (p *parser) run(z *html.Tokenizer) {
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return // io.EOF or a read error; the body is in memory
		case html.TextToken:
			p.text(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken:
			p.nodes++
			if p.nodes > p.lim.MaxNodes {
				p.doc.NodesTruncated = true
				return
			}
			a := tagAtom(z.Raw())
			p.attrs(z, a)
			p.start(a, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			p.end(tagAtom(z.Raw()))
		}
	}
}

func (p *parser) text(s []byte) {
	if p.skip > 0 {
		return
	}
	if p.titleOpen > 0 {
		if !p.titleDone {
			p.title.write(s)
		}
		return
	}
	if p.head > 0 {
		return
	}
	p.body.write(s)
	if p.mainOpen > 0 && p.chrome == 0 {
		p.main.write(s)
	}
}

func (p *parser) brk() {
	p.body.brk()
	p.main.brk()
}

func (p *parser) start(a atom.Atom, selfClosing bool) {
	cat := category(a)
	if cat&catBlock != 0 {
		p.brk()
	}
	if p.head > 0 && !inHead(a) {
		p.popTo(atom.Head) // <body> or any body element ends an unclosed <head>
	}
	if cat&catVoid != 0 || selfClosing && cat&catRaw == 0 {
		// No content follows. (A self-closing raw-text element such as
		// <script/> still has content in HTML, up to its end tag.)
		return
	}
	if closesSelf(a) && len(p.stack) > 0 && p.stack[len(p.stack)-1].a == a {
		p.pop()
	}
	// Raw-text elements are tracked past MaxDepth: their content arrives
	// as a single text token, so they cannot deepen the stack further.
	if len(p.stack) >= p.lim.MaxDepth && cat&catRaw == 0 {
		return
	}
	if cat&catChrome != 0 && p.mainOpen == 0 {
		cat &^= catChrome // only chrome inside main content is dropped
	}
	p.stack = append(p.stack, frame{a: a, cat: cat})
	p.count(cat, 1)
	if cat&catMain != 0 {
		p.sawMain = true
	}
}

func (p *parser) end(a atom.Atom) {
	if a == 0 {
		return // an unknown element: never categorized, not worth a search
	}
	cat := category(a)
	if cat&catBlock != 0 {
		p.brk()
	}
	if cat&catVoid != 0 {
		return
	}
	p.popTo(a)
}

// popTo pops the stack down to and including the innermost open a, if any.
func (p *parser) popTo(a atom.Atom) {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].a == a {
			for len(p.stack) > i {
				p.pop()
			}
			return
		}
	}
}

func (p *parser) pop() {
	f := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	p.count(f.cat, -1)
	if f.cat&catTitle != 0 && len(p.title.b) > 0 {
		p.titleDone = true
	}
}

func (p *parser) count(cat uint8, d int) {
	if cat&catSkip != 0 {
		p.skip += d
	}
	if cat&catMain != 0 {
		p.mainOpen += d
	}
	if cat&catChrome != 0 {
		p.chrome += d
	}
	if cat&catHead != 0 {
		p.head += d
	}
	if cat&catTitle != 0 {
		p.titleOpen += d
	}
}

// tagAtom returns the atom of the tag whose raw text is raw ("<DIV a=b>",
// "</p >"), or 0 for an unknown name. It reads the name itself because
// Tokenizer.TagName copies it on every call.
func tagAtom(raw []byte) atom.Atom {
	i := 1
	if len(raw) > 1 && raw[1] == '/' {
		i = 2
	}
	var buf [16]byte // longer than any known element name
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return 0
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n])
}

// inHead reports whether a may appear in the document head; any other
// start tag ends an unclosed head, as in a browser.
func inHead(a atom.Atom) bool {
	switch a {
	case atom.Base, atom.Link, atom.Meta, atom.Noscript, atom.Script, atom.Style, atom.Template, atom.Title, atom.Head:
		return true
	}
	return false
}

func (p *parser) finish() {
	p.doc.Title = p.title.String()
	t := &p.body
	if p.sawMain && len(p.main.b) > 0 {
		t = &p.main
	}
	p.doc.Text = t.String()
	p.doc.TextTruncated = t.truncated || p.title.truncated
}

// attrs handles the attributes of the elements that carry links and
// metadata.
func (p *parser) attrs(z *html.Tokenizer, a atom.Atom) {
	switch a {
	case atom.A, atom.Area, atom.Link, atom.Meta, atom.Base, atom.Html:
	default:
		return
	}
	var href, rel, typ, name, equiv, content, lang []byte
	hasHref := false // an empty value comes back as nil
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "href":
			if !hasHref {
				href, hasHref = v, true
			}
		case "rel":
			rel = v
		case "type":
			typ = v
		case "name":
			name = v
		case "http-equiv":
			equiv = v
		case "content":
			content = v
		case "lang":
			lang = v
		}
	}
	switch a {
	case atom.A, atom.Area:
		if hasHref {
			p.addLink(string(href), KindAnchor, hasToken(rel, "nofollow", "ugc", "sponsored"))
		}
	case atom.Link:
		switch {
		case !hasHref:
		case hasToken(rel, "canonical"):
			if u, ok := p.addLink(string(href), KindCanonical, false); ok && p.doc.Canonical == "" {
				p.doc.Canonical = u
			}
		case hasToken(rel, "alternate") && isFeedType(typ):
			p.addLink(string(href), KindFeed, false)
		}
	case atom.Meta:
		switch {
		case bytes.EqualFold(bytes.TrimSpace(name), []byte("robots")):
			p.doc.Robots.directives(string(content))
		case bytes.EqualFold(bytes.TrimSpace(equiv), []byte("refresh")) && p.doc.Refresh == nil:
			p.refresh(string(content))
		}
	case atom.Base:
		if hasHref && !p.sawBase {
			p.sawBase = true
			if s, err := p.page.Resolve(string(href)); err == nil {
				if u, err := url.Parse(s); err == nil {
					if r, err := urlnorm.NewResolver(u); err == nil {
						p.res = r
					}
				}
			}
		}
	case atom.Html:
		if !p.sawHTML {
			p.sawHTML = true
			l := strings.TrimSpace(string(lang))
			if len(l) > 64 {
				l = l[:64] // no language tag is this long; keep the bound
			}
			p.doc.Language = l
		}
	}
}

// addLink resolves and records a link, returning its normalized URL.
func (p *parser) addLink(href string, kind Kind, nofollow bool) (string, bool) {
	u, err := p.res.Resolve(href)
	if err != nil {
		p.doc.LinksSkipped++
		return "", false
	}
	if kind == KindAnchor && u == p.self {
		return u, true
	}
	k := linkKey{u, kind}
	if i, ok := p.seen[k]; ok {
		if i >= 0 {
			p.doc.Links[i].NoFollow = p.doc.Links[i].NoFollow && nofollow
		}
		return u, true
	}
	if len(p.doc.Links) >= p.lim.MaxLinks {
		p.doc.LinksDropped++
		p.seen[k] = -1 // count each distinct link once
		return u, true
	}
	p.seen[k] = len(p.doc.Links)
	p.doc.Links = append(p.doc.Links, Link{URL: u, Kind: kind, NoFollow: nofollow})
	return u, true
}

// hasToken reports whether the space-separated list v holds any of tokens,
// ignoring case.
func hasToken(v []byte, tokens ...string) bool {
	for _, f := range bytes.Fields(v) {
		for _, t := range tokens {
			if bytes.EqualFold(f, []byte(t)) {
				return true
			}
		}
	}
	return false
}

func isFeedType(typ []byte) bool {
	t := strings.ToLower(strings.TrimSpace(string(typ)))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	return t == "application/rss+xml" || t == "application/atom+xml"
}
