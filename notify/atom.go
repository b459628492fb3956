package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/deltaq/deltaq/diff"
)

// Atom (RFC 4287) structures, as much as a feed reader needs.
type atomFeed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	// Author is the feed's, so that no entry needs one (RFC 4287 §4.1.1
	// wants one on the feed or on every entry).
	Author  atomAuthor  `xml:"author"`
	Link    atomLink    `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomAuthor struct {
	Name string `xml:"name"`
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
// entry first, and returns when it was last updated: its newest entry's
// time, or since, when the feed began (a watch's install, an alert's
// creation), while it has none; not 1970, nor the time of the request,
// which would make an empty feed new at every poll. self is the feed's
// own absolute URL (RFC 4287 §4.2.7.2).
func (o *Outbox) Feed(ctx context.Context, feed, self string, since time.Time) ([]byte, time.Time, error) {
	entries, err := o.FeedEntries(ctx, feed)
	if err != nil {
		return nil, time.Time{}, err
	}
	updated := since.UTC()
	if len(entries) > 0 {
		updated = entries[len(entries)-1].At.UTC()
	}
	// The feed's and the entries' names go into URNs escaped: a name may
	// hold a space or "<" (user names made before they were checked), and
	// an escaped name that needed none is the same, so no feed's id moves.
	f := atomFeed{ID: "urn:deltaq:feed:" + url.PathEscape(feed), Title: "deltaq " + feed, Author: atomAuthor{Name: "deltaq"},
		Link: atomLink{Href: self, Rel: "self"}, Updated: updated.Format(time.RFC3339Nano)}
	for i := len(entries) - 1; i >= 0; i-- {
		n := entries[i]
		var content bytes.Buffer
		if err := n.writeContent(&content); err != nil {
			return nil, time.Time{}, fmt.Errorf("notify: render feed %s entry %s: %w", feed, n.ID, err)
		}
		f.Entries = append(f.Entries, atomEntry{
			ID: "urn:deltaq:notification:" + url.PathEscape(n.ID), Title: n.Title, Updated: n.At.UTC().Format(time.RFC3339Nano),
			Link: atomLink{Href: n.URL}, Summary: n.Change, Content: atomContent{Type: "html", Body: content.String()},
		})
	}
	out, err := xml.MarshalIndent(&f, "", " ")
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("notify: render feed %s: %w", feed, err)
	}
	return append([]byte(xml.Header), out...), updated, nil
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
