package feeds

import (
	"encoding/xml"
	"fmt"
	"io"
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
	type entry struct {
		ID        string `xml:"id"`
		Title     string `xml:"title"`
		Link      *link  `xml:"link,omitempty"`
		Updated   string `xml:"updated"`
		Published string `xml:"published,omitempty"`
	}
	type feed struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		ID      string   `xml:"id"`
		Title   string   `xml:"title"`
		Link    link     `xml:"link"`
		Updated string   `xml:"updated"`
		Entries []entry  `xml:"entry"`
	}
	// An empty feed was never updated: the Unix epoch, as the
	// notification feeds say it, rather than year 1.
	updated := time.Unix(0, 0)
	for _, it := range items {
		if it.FirstSeen.After(updated) {
			updated = it.FirstSeen
		}
	}
	f := feed{ID: id, Title: title, Link: link{Rel: "self", Href: self}, Updated: updated.UTC().Format(time.RFC3339)}
	for _, it := range items {
		e := entry{ID: "urn:deltaq:item:" + it.FeedID + ":" + it.Key, Title: it.Title, Updated: it.FirstSeen.UTC().Format(time.RFC3339)}
		if e.Title == "" {
			e.Title = it.Key
		}
		if it.Link != "" {
			e.Link = &link{Href: it.Link}
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
