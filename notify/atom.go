package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/diff"
)

// Atom (RFC 4287) structures, as much as a feed reader needs.
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Link    atomLink    `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
}

type atomEntry struct {
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Link    atomLink    `xml:"link"`
	Summary string      `xml:"summary,omitempty"`
	Content atomContent `xml:"content"`
}

type atomContent struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// Feed renders the Atom feed named feed ("watch:ID", "user:NAME"), newest
// entry first. self is the feed's own URL.
func (o *Outbox) Feed(ctx context.Context, feed, self string) ([]byte, error) {
	entries, err := o.FeedEntries(ctx, feed)
	if err != nil {
		return nil, err
	}
	f := atomFeed{ID: "urn:deltaq:feed:" + feed, Title: "deltaq " + feed, Link: atomLink{Href: self, Rel: "self"}, Updated: time.Unix(0, 0).UTC().Format(time.RFC3339)}
	for i := len(entries) - 1; i >= 0; i-- {
		n := entries[i]
		var content bytes.Buffer
		if err := n.writeContent(&content); err != nil {
			return nil, fmt.Errorf("notify: render feed %s entry %s: %w", feed, n.ID, err)
		}
		up := n.At.UTC().Format(time.RFC3339Nano)
		if i == len(entries)-1 {
			f.Updated = up
		}
		f.Entries = append(f.Entries, atomEntry{
			ID: "urn:deltaq:notification:" + n.ID, Title: n.Title, Updated: up,
			Link: atomLink{Href: n.URL}, Summary: n.Change, Content: atomContent{Type: "html", Body: content.String()},
		})
	}
	out, err := xml.MarshalIndent(&f, "", " ")
	if err != nil {
		return nil, fmt.Errorf("notify: render feed %s: %w", feed, err)
	}
	return append([]byte(xml.Header), out...), nil
}

// writeContent writes an entry's HTML: the summary, then the diff, or
// each of a digest's diffs under its heading.
func (n *Notification) writeContent(w *bytes.Buffer) error {
	w.WriteString("<p>" + xmlText(n.Summary) + "</p>")
	if len(n.Changes) == 0 {
		if n.Diff == nil {
			return nil
		}
		return n.Diff.WriteHTML(w, diff.ChangesOnly)
	}
	for i, c := range n.Changes {
		w.WriteString("<h4>" + xmlText(n.heading(i)) + "</h4>")
		if c.Diff == nil {
			continue
		}
		if err := c.Diff.WriteHTML(w, diff.ChangesOnly); err != nil {
			return err
		}
	}
	return nil
}

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// FeedEntries returns the feed's entries, oldest first.
func (o *Outbox) FeedEntries(ctx context.Context, feed string) ([]Notification, error) {
	var out []Notification
	for kv, err := range o.db.BucketScan(ctx, bucket, feedPrefix+feed+"\x00") {
		if err != nil {
			return nil, err
		}
		var n Notification
		if err := json.Unmarshal(kv[1], &n); err != nil {
			return nil, fmt.Errorf("notify: decode feed entry %q: %w", kv[0], err)
		}
		out = append(out, n)
	}
	return out, nil
}

// trimFeeds keeps the newest Config.FeedEntries entries of each feed.
func (o *Outbox) trimFeeds(ctx context.Context) error {
	b := o.db.NewBatch(ctx)
	defer b.Close()
	var keys []string
	feed := ""
	flush := func() error {
		for len(keys) > o.cfg.FeedEntries {
			if err := b.DeleteBucket(bucket, keys[0]); err != nil {
				return err
			}
			keys = keys[1:]
		}
		keys = keys[:0]
		return nil
	}
	for kv, err := range o.db.BucketScan(ctx, bucket, feedPrefix) {
		if err != nil {
			return err
		}
		k := string(kv[0])
		name, _, _ := strings.Cut(k, "\x00")
		if name != feed {
			if err := flush(); err != nil {
				return err
			}
			feed = name
		}
		keys = append(keys, k)
	}
	if err := flush(); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	return b.Commit()
}
