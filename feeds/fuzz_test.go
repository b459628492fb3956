package feeds

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParse feeds any body to Parse: it must return, without a panic,
// either an error or at most maxItems items, each with a key of one of the
// three kinds, counting the rest in Truncated.
//
//	go test ./feeds -run '^$' -fuzz FuzzParse -fuzztime 2m
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		string(atom(t0)),
		`<?xml version="1.0"?><rss version="2.0"><channel><title>two</title>
<item><title>A</title><guid>id-a</guid><pubDate>Sat, 01 Mar 2025 10:00:00 GMT</pubDate></item>
<item><title>B</title><description>no guid, no link</description></item></channel></rss>`,
		`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://x.test/"><title>one</title></channel>
<item rdf:about="http://x.test/a"><title>A</title><link>http://x.test/a</link><dc:date>2025-03-01T10:00:00Z</dc:date></item></rdf:RDF>`,
		`{"version":"https://jsonfeed.org/version/1.1","title":"j","items":[{"id":"1","date_published":"2025-03-01T10:00:00Z"}]}`,
		`<!DOCTYPE html><html><head><title>moved</title></head><body>gone</body></html>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id></id><updated>9999-12-31T23:59:59Z</updated></entry><entry><link href=" "/></entry></feed>`,
		`<rss><channel><item><pubDate>not a date</pubDate></item>`,
	} {
		f.Add([]byte(seed))
	}
	const maxItems = 3
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Parse(body, 1<<16, maxItems)
		if err != nil {
			if p != nil {
				t.Fatalf("error %v with a result", err)
			}
			if !strings.HasPrefix(err.Error(), "feeds: ") { // ErrNotAFeed and ErrTooLarge too
				t.Fatalf("error %q does not say it is the feed's", err)
			}
			return
		}
		if len(p.Items) > maxItems || p.Truncated > 0 && len(p.Items) != maxItems {
			t.Fatalf("%d items and %d truncated, limit %d", len(p.Items), p.Truncated, maxItems)
		}
		for i, it := range p.Items {
			if len(it.Key) < 3 || !strings.HasPrefix(it.Key, "g:") && !strings.HasPrefix(it.Key, "l:") && !strings.HasPrefix(it.Key, "h:") {
				t.Fatalf("item %d: key %q", i, it.Key)
			}
		}
	})
}

// FuzzReadOPML reads any subscription list: without a panic, an error or
// the feed outlines, each with a URL or a reason to skip it.
func FuzzReadOPML(f *testing.F) {
	var b bytes.Buffer
	if err := WriteOPML(&b, []Feed{{URL: "http://a.test/feed", Weight: 1}, {URL: "http://b.test/atom.xml", Weight: 2}}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`<opml version="2.0"><body><outline text="folder"><outline xmlUrl="http://c.test/rss"/></outline></body></opml>`))
	f.Add([]byte(`<opml><body><outline xmlUrl=""><outline><outline xmlUrl="x"/></outline></outline></body>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		outlines, err := ReadOPML(bytes.NewReader(body))
		if err != nil {
			return
		}
		for i, o := range outlines {
			if o.URL == "" && o.Skip == "" {
				t.Fatalf("outline %d has no URL and no reason to skip it", i)
			}
		}
	})
}
