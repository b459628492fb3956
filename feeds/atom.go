package feeds

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteAtom re-exports items as an Atom 1.0 feed (RFC 4287), so any feed
// reader can subscribe to what the aggregator collected: each entry keeps
// its title and link, its id is the feed id and item key, and its updated
// time is when the aggregator first saw it; the feed's updated time is the
// newest of those. id is the feed's own, which must not move (RFC 4287
// §4.2.6), and self the URL it is served at.
func WriteAtom(w io.Writer, id, title, self string, items []StoredItem) error {
	type link struct {
		Rel  string `xml:"rel,attr,omitempty"`
		Href string `xml:"href,attr"`
	}
	type content struct {
		Type string `xml:"type,attr"`
		Body string `xml:",chardata"`
	}
	type entry struct {
		ID        string   `xml:"id"`
		Title     string   `xml:"title"`
		Link      *link    `xml:"link,omitempty"`
		Content   *content `xml:"content,omitempty"`
		Updated   string   `xml:"updated"`
		Published string   `xml:"published,omitempty"`
	}
	type author struct {
		Name string `xml:"name"`
	}
	type feed struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		ID      string   `xml:"id"`
		Title   string   `xml:"title"`
		// Author is the feed's, so that no entry needs one (RFC 4287
		// §4.1.1 wants one on the feed or on every entry).
		Author  author  `xml:"author"`
		Link    link    `xml:"link"`
		Updated string  `xml:"updated"`
		Entries []entry `xml:"entry"`
	}
	f := feed{ID: id, Title: title, Author: author{Name: "deltaq"}, Link: link{Rel: "self", Href: self}, Updated: AtomUpdated(items).UTC().Format(time.RFC3339)}
	for _, it := range items {
		e := entry{ID: "urn:deltaq:item:" + it.FeedID + ":" + iriEscape(it.Key), Title: it.Title, Updated: it.FirstSeen.UTC().Format(time.RFC3339)}
		if e.Title == "" {
			e.Title = it.Key
		}
		if it.Link != "" {
			e.Link = &link{Href: it.Link}
		} else {
			// An entry without a link must have content (RFC 4287
			// §4.1.1.2); the item's title is all it keeps.
			e.Content = &content{Type: "text", Body: e.Title}
		}
		if !it.Published.IsZero() {
			e.Published = it.Published.UTC().Format(time.RFC3339)
		}
		f.Entries = append(f.Entries, e)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", " ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("feeds: atom: %w", err)
	}
	return nil
}

// AtomUpdated is the updated time of items' Atom feed: the newest item's
// first sight, or, for a feed without items, which was never updated, the
// Unix epoch (as the notification feeds say it), rather than year 1.
func AtomUpdated(items []StoredItem) time.Time {
	updated := time.Unix(0, 0)
	for _, it := range items {
		if it.FirstSeen.After(updated) {
			updated = it.FirstSeen
		}
	}
	return updated
}

// iriEscape percent-encodes what an IRI may not hold (RFC 3987): spaces
// and controls, <>"{}|\^` and a % that starts no escape. Item keys are
// GUIDs and links as their feeds wrote them; a key that is a valid IRI
// already, as nearly all are, keeps its entry id.
func iriEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		valid := c > ' ' && c != 0x7f && !strings.ContainsRune("<>\"{}|\\^`", rune(c)) &&
			(c != '%' || i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]))
		if valid {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
