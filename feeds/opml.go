package feeds

import (
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// OPMLNamespace is the XML namespace of the attributes WriteOPML puts on
// a feed's outline for its own settings, and ReadOPML reads back:
// deltaq:weight (a number > 0, w_i), deltaq:minInterval and
// deltaq:maxInterval (Go durations, e.g. 15m0s, 168h0m0s), and
// deltaq:name, the feed's own name where text is not (Outline.Name).
// Other feed readers ignore attributes of a namespace they do not know.
const OPMLNamespace = "urn:deltaq:opml"

// MaxOPMLFeeds bounds one import: the feed outlines (those with an
// xmlUrl) one OPML list may hold. An export of more cannot be imported.
const MaxOPMLFeeds = 100000

// maxOPMLToken bounds one token of an OPML list (an element with its
// attributes, or a run of text): ReadOPML streams the list, so its size
// is bounded by MaxOPMLFeeds outlines and not by bytes, and this bounds
// what the XML decoder holds at once. An outline WriteOPML writes is
// under 20 KB (a URL of at most 2,048 bytes, escaped, and a title).
const maxOPMLToken = 1 << 20

// Outline is one outline of an OPML list that is, or means to be, a feed:
// one with an xmlUrl attribute (of any letter case), or one with neither
// xmlUrl nor outlines inside (a feed whose URL was lost).
type Outline struct {
	Line int // where it starts in the file
	// URL is the xmlUrl as written; Title the text attribute, else title.
	URL, Title string
	// Name is the subscriber's name for the feed: Title, unless a
	// deltaq:name attribute says otherwise. WriteOPML writes
	// deltaq:name="" for a feed without a name, whose text is then its
	// title or URL, so that the list read back leaves it unnamed.
	Name string
	// Folders are the titles of the outlines it sits in, outermost first:
	// at most MaxFolders, the levels a feed keeps.
	Folders []string
	// Options are the settings the deltaq: attributes give (OPMLNamespace);
	// nil for those not given.
	Options AddOptions
	// Skip is why the outline cannot be subscribed to (no xmlUrl, an empty
	// one, a deltaq: attribute that does not parse); "" when it can.
	Skip string
}

// ErrNotOPML is returned for a file that is not an OPML list: empty, not
// XML, or XML of another kind (an HTML page, a feed).
var ErrNotOPML = errors.New("feeds: not an OPML subscription list")

// ReadOPML reads the outlines of an OPML subscription list (OPML 1.0 or
// 2.0) that are feeds, nested folders included, in file order, streaming
// it: at most MaxOPMLFeeds feed outlines, each token at most
// maxOPMLToken bytes. A list declared in another charset than UTF-8
// (ISO-8859-1, Windows-1252, …) is decoded from it.
func ReadOPML(r io.Reader) ([]Outline, error) {
	br := &tokenBound{r: r}
	dec := xml.NewDecoder(br)
	dec.CharsetReader = charset.NewReaderLabel
	type open struct {
		outline  int // index in out, or -1 for a folder or an outline yet to be one
		title    string
		children int
		line     int
	}
	var (
		out      []Outline
		feeds    int
		stack    []open // the outlines open
		folders  []string
		depth    int  // elements open
		root     bool // <opml> seen
		inBody   int  // depth of <body>, 0 outside
		rootName string
	)
	for {
		tok, err := dec.Token()
		br.n = 0
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, opmlError(err, rootName)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1:
				rootName = t.Name.Local
				if t.Name.Local != "opml" {
					return nil, fmt.Errorf("%w: its root element is <%s>, want <opml>", ErrNotOPML, t.Name.Local)
				}
				root = true
			case depth == 2 && t.Name.Local == "body":
				inBody = depth
			case inBody > 0 && t.Name.Local == "outline":
				line, _ := dec.InputPos()
				if len(stack) > 0 {
					stack[len(stack)-1].children++
				}
				o, isFeed := outlineOf(t, line, folders)
				top := open{outline: -1, title: o.Title, line: line}
				if isFeed {
					if feeds == MaxOPMLFeeds {
						return nil, fmt.Errorf("feeds: OPML lists more than %d feeds, the most one import takes (feeds.MaxOPMLFeeds); split it", MaxOPMLFeeds)
					}
					feeds++
					top.outline = len(out)
					out = append(out, o)
				}
				stack = append(stack, top)
				folders = append(folders, o.Title)
			}
		case xml.EndElement:
			if inBody > 0 && t.Name.Local == "outline" && len(stack) > 0 {
				top := stack[len(stack)-1]
				stack, folders = stack[:len(stack)-1], folders[:len(folders)-1]
				if top.outline < 0 && top.children == 0 { // neither a feed nor a folder
					out = append(out, Outline{Line: top.line, Title: top.title, Folders: outerFolders(folders), Skip: "no xmlUrl"})
				}
			}
			if depth == inBody {
				inBody = 0
			}
			depth--
		}
	}
	switch {
	case br.total == 0:
		return nil, fmt.Errorf("%w: the file is empty (want an <opml> document)", ErrNotOPML)
	case !root:
		return nil, fmt.Errorf("%w: the file holds no XML element (want an <opml> document)", ErrNotOPML)
	}
	return out, nil
}

// outlineOf reads an <outline> element's attributes: whether it is a
// feed (has an xmlUrl), and if so its URL, title and settings.
func outlineOf(t xml.StartElement, line int, folders []string) (Outline, bool) {
	o := Outline{Line: line, Folders: outerFolders(folders)}
	isFeed := false
	var text, title string
	var name *string
	var bad []string
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "" && strings.EqualFold(a.Name.Local, "xmlUrl"):
			o.URL, isFeed = strings.TrimSpace(a.Value), true
		case a.Name.Space == "" && a.Name.Local == "text":
			text = strings.TrimSpace(a.Value)
		case a.Name.Space == "" && a.Name.Local == "title":
			title = strings.TrimSpace(a.Value)
		case a.Name.Space == OPMLNamespace && a.Name.Local == "name":
			v := strings.TrimSpace(a.Value)
			name = &v
		case a.Name.Space == OPMLNamespace && a.Name.Local == "weight":
			w, err := strconv.ParseFloat(a.Value, 64)
			if err != nil {
				bad = append(bad, fmt.Sprintf("deltaq:weight %q is not a number", a.Value))
				continue
			}
			o.Options.Weight = &w
		case a.Name.Space == OPMLNamespace && (a.Name.Local == "minInterval" || a.Name.Local == "maxInterval"):
			d, err := time.ParseDuration(a.Value)
			if err != nil {
				bad = append(bad, fmt.Sprintf("deltaq:%s %q is not a duration (e.g. 15m0s)", a.Name.Local, a.Value))
				continue
			}
			if a.Name.Local == "minInterval" {
				o.Options.MinInterval = &d
			} else {
				o.Options.MaxInterval = &d
			}
		}
	}
	o.Title = text
	if o.Title == "" {
		o.Title = title
	}
	o.Name = deref(name, o.Title)
	if len(o.URL) > 4*2048 { // far over any URL Add takes: kept only in part
		o.URL = o.URL[:4*2048]
	}
	switch {
	case isFeed && o.URL == "":
		o.Skip = "empty xmlUrl"
	case len(bad) > 0:
		o.Skip = strings.Join(bad, "; ")
	}
	return o, isFeed
}

// outerFolders copies the outermost MaxFolders of folders, the levels a
// feed keeps: a list nested thousands deep would otherwise cost a copy
// of every level for each outline in it.
func outerFolders(folders []string) []string {
	return append([]string(nil), folders[:min(len(folders), MaxFolders)]...)
}

// opmlError says what a file that did not read as OPML holds.
func opmlError(err error, root string) error {
	var se *xml.SyntaxError
	switch {
	case errors.Is(err, errTokenTooLarge):
		return fmt.Errorf("feeds: OPML: %w", err)
	case errors.As(err, &se) && root == "":
		return fmt.Errorf("%w: line %d: not XML (%s); want an <opml> document", ErrNotOPML, se.Line, se.Msg)
	case errors.As(err, &se):
		return fmt.Errorf("feeds: OPML: line %d: %s", se.Line, se.Msg)
	}
	return fmt.Errorf("feeds: OPML: %w", err)
}

// errTokenTooLarge is a token of an OPML list over maxOPMLToken bytes.
var errTokenTooLarge = fmt.Errorf("an element or text over %d bytes, more than any outline needs", maxOPMLToken)

// tokenBound reads at most maxOPMLToken bytes between resets (n = 0,
// after each token).
type tokenBound struct {
	r        io.Reader
	n, total int
}

func (b *tokenBound) Read(p []byte) (int, error) {
	if b.n >= maxOPMLToken {
		return 0, errTokenTooLarge
	}
	p = p[:min(len(p), maxOPMLToken-b.n)]
	n, err := b.r.Read(p)
	b.n += n
	b.total += n
	return n, err
}

// WriteOPML writes the feeds as an OPML 2.0 subscription list: each an
// outline whose text and title are the feed's name (its title while it
// has none, its URL while it has neither), with its weight and poll
// intervals as deltaq: attributes (OPMLNamespace), inside outlines for
// its folders, so that ReadOPML, and `deltaq feeds import`, give them
// back. Folders come in the order of their first feed in list, each
// feed of a folder within it in list order.
func WriteOPML(w io.Writer, list []Feed) error {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString(`<opml version="2.0" xmlns:deltaq="` + OPMLNamespace + `">` + "\n")
	b.WriteString("  <head>\n    <title>deltaq feeds</title>\n  </head>\n  <body>\n")
	flush := func() error {
		_, err := io.WriteString(w, b.String())
		b.Reset()
		return err
	}
	var write func(f *opmlFolder, indent string) error
	write = func(f *opmlFolder, indent string) error {
		for _, e := range f.entries {
			if sub := e.folder; sub != nil {
				b.WriteString(indent + `<outline text="` + attr(sub.title) + `" title="` + attr(sub.title) + `">` + "\n")
				if err := write(sub, indent+"  "); err != nil {
					return err
				}
				b.WriteString(indent + "</outline>\n")
				continue
			}
			writeFeedOutline(&b, indent, e.feed)
			if b.Len() > 64<<10 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := write(fileByFolder(list), "    "); err != nil {
		return err
	}
	b.WriteString("  </body>\n</opml>\n")
	return flush()
}

// writeFeedOutline writes f's outline, at indent.
func writeFeedOutline(b *strings.Builder, indent string, f *Feed) {
	t := cmp.Or(f.Name, f.Title, f.URL)
	b.WriteString(indent + `<outline type="rss" text="` + attr(t) + `" title="` + attr(t) + `" xmlUrl="` + attr(f.URL) + `"`)
	if f.Name == "" { // the text is not its name (Outline.Name)
		b.WriteString(` deltaq:name=""`)
	}
	b.WriteString(` deltaq:weight="` + strconv.FormatFloat(f.Weight, 'g', -1, 64) + `"`)
	b.WriteString(` deltaq:minInterval="` + f.MinInterval.String() + `" deltaq:maxInterval="` + f.MaxInterval.String() + `"/>` + "\n")
}

// opmlFolder is one folder of an export, the body the outermost: its
// feeds and folders in the order they first appear in the list.
type opmlFolder struct {
	title   string
	entries []opmlEntry
	sub     map[string]*opmlFolder // the folders in entries, by title
}

// opmlEntry is a feed or a folder of an opmlFolder.
type opmlEntry struct {
	feed   *Feed
	folder *opmlFolder
}

// fileByFolder files the feeds of list by their folders (Feed.Folders).
func fileByFolder(list []Feed) *opmlFolder {
	body := &opmlFolder{}
	for i := range list {
		at := body
		for _, title := range list[i].Folders {
			sub := at.sub[title]
			if sub == nil {
				sub = &opmlFolder{title: title}
				if at.sub == nil {
					at.sub = make(map[string]*opmlFolder)
				}
				at.sub[title] = sub
				at.entries = append(at.entries, opmlEntry{folder: sub})
			}
			at = sub
		}
		at.entries = append(at.entries, opmlEntry{feed: &list[i]})
	}
	return body
}

// attr escapes s for an attribute value in double quotes.
func attr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // quotes, <, &, and line breaks, which an attribute would normalize away
	return b.String()
}
