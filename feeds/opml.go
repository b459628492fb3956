package feeds

import (
	"encoding/xml"
	"fmt"
	"io"
)

type opmlOutline struct {
	Text     string        `xml:"text,attr,omitempty"`
	Title    string        `xml:"title,attr,omitempty"`
	Type     string        `xml:"type,attr,omitempty"`
	XMLURL   string        `xml:"xmlUrl,attr,omitempty"`
	Outlines []opmlOutline `xml:"outline"`
}

type opmlDoc struct {
	XMLName xml.Name      `xml:"opml"`
	Version string        `xml:"version,attr"`
	Title   string        `xml:"head>title"`
	Body    []opmlOutline `xml:"body>outline"`
}

// maxOPMLFeeds bounds an import.
const maxOPMLFeeds = 100000

// ReadOPML returns the feed URLs (xmlUrl) of an OPML subscription list,
// nested folders included, at most maxBytes read.
func ReadOPML(r io.Reader, maxBytes int64) ([]string, error) {
	var doc opmlDoc
	lr := &io.LimitedReader{R: r, N: maxBytes + 1}
	err := xml.NewDecoder(lr).Decode(&doc)
	if lr.N <= 0 {
		return nil, fmt.Errorf("%w: OPML over %d bytes (feeds.max_bytes)", ErrTooLarge, maxBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("feeds: OPML: %w", err)
	}
	var out []string
	var walk func([]opmlOutline) error
	walk = func(os []opmlOutline) error {
		for _, o := range os {
			if o.XMLURL != "" {
				if len(out) == maxOPMLFeeds {
					return fmt.Errorf("feeds: OPML lists more than %d feeds", maxOPMLFeeds)
				}
				out = append(out, o.XMLURL)
			}
			if err := walk(o.Outlines); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(doc.Body)
}

// WriteOPML writes the feeds as an OPML 2.0 subscription list.
func WriteOPML(w io.Writer, list []Feed) error {
	doc := opmlDoc{Version: "2.0", Title: "deltaq feeds"}
	for _, f := range list {
		t := f.Title
		if t == "" {
			t = f.URL
		}
		doc.Body = append(doc.Body, opmlOutline{Text: t, Title: t, Type: "rss", XMLURL: f.URL})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("feeds: OPML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
