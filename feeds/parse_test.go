package feeds

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// recordOne subscribes to feedURL, records body as its first poll, and
// returns the items stored, oldest first.
func recordOne(t *testing.T, s *Store, feedURL, body string) ([]StoredItem, Update) {
	t.Helper()
	f, _, err := s.Add(t.Context(), feedURL, AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.Record(t.Context(), f.ID, Fetch{At: t0, Status: 200, Body: []byte(body)})
	if err != nil {
		t.Fatalf("Record %s: %v", feedURL, err)
	}
	items, err := s.Items(t.Context(), f.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return items, up
}

// Relative item links are stored resolved against the document's base,
// its xml:base or else the feed's URL, and re-published so.
func TestRelativeLinksAreResolved(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	for _, c := range []struct{ name, url, body, want string }{
		{"an Atom link against the feed's URL", "http://h.test/atom",
			`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>a</title><id>urn:a</id>` +
				`<entry><id>urn:e1</id><title>e1</title><link href="/rel/e1"/><updated>2025-03-01T10:00:00Z</updated></entry></feed>`,
			"http://h.test/rel/e1"},
		{"an Atom link against its xml:base", "http://h.test/base.atom",
			`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://other.test/blog/"><title>a</title><id>urn:b</id>` +
				`<entry><id>urn:e1</id><title>e1</title><link href="posts/e1"/><updated>2025-03-01T10:00:00Z</updated></entry></feed>`,
			"https://other.test/blog/posts/e1"},
		{"an RSS link against the feed's URL", "http://h.test/dir/feed.rss",
			`<?xml version="1.0"?><rss version="2.0"><channel><title>r</title>` +
				`<item><title>i1</title><guid>i1</guid><link>i1.html</link></item></channel></rss>`,
			"http://h.test/dir/i1.html"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, _ := recordOne(t, s, c.url, c.body)
			if len(items) != 1 || items[0].Link != c.want {
				t.Fatalf("items %+v, want one linking %s", items, c.want)
			}
		})
	}
	river, err := s.River(t.Context(), time.Time{}, 10)
	if err != nil || len(river) != 3 {
		t.Fatalf("river: %d items, %v; want 3", len(river), err)
	}
	for _, it := range river {
		if !strings.HasPrefix(it.Link, "http") {
			t.Errorf("the river re-publishes the link %q unresolved", it.Link)
		}
	}
}

// An item dated past year 9999 (here Dec 31 9999 at UTC−12, year 10000
// in UTC) is stored undated, posted when first seen, beside a dated
// one; its date used to fail every poll's store of the feed.
func TestDatesPastYear9999AreNone(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	items, _ := recordOne(t, s, "http://h.test/far.rss", `<?xml version="1.0"?><rss version="2.0"><channel><title>r</title>`+
		`<item><title>far</title><guid>far</guid><pubDate>Fri, 31 Dec 9999 23:59:59 -1200</pubDate></item>`+
		`<item><title>near</title><guid>near</guid><pubDate>Sat, 01 Mar 2025 10:00:00 +0000</pubDate></item></channel></rss>`)
	if len(items) != 2 {
		t.Fatalf("stored %+v, want both items", items)
	}
	for _, it := range items {
		want := time.Time{}
		if it.Title == "near" {
			want = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
		}
		if !it.Published.Equal(want) {
			t.Errorf("%s: published %v, want %v", it.Title, it.Published, want)
		}
	}
}

// Item links that are not http or https once resolved are dropped: the
// item keeps its key and title, and the poll counts the links dropped.
func TestOnlyHTTPLinksAreKept(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	body := `<?xml version="1.0"?><rss version="2.0"><channel><title>r</title>` +
		`<item><title>js</title><guid>1</guid><link>javascript:alert(1)</link></item>` +
		`<item><title>file</title><guid>2</guid><link>file:///etc/passwd</link></item>` +
		`<item><title>data</title><guid>3</guid><link>data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;</link></item>` +
		`<item><title>no host</title><guid>4</guid><link>http:/path-only</link></item>` +
		`<item><title>web</title><guid>5</guid><link>HTTPS://h.test/ok</link></item></channel></rss>`
	items, _ := recordOne(t, s, "http://h.test/feed.rss", body)
	if len(items) != 5 {
		t.Fatalf("%d items stored, want all 5, links or not", len(items))
	}
	for _, it := range items {
		want := ""
		if it.Title == "web" {
			want = "https://h.test/ok"
		}
		if it.Link != want {
			t.Errorf("item %q stored with link %q, want %q", it.Title, it.Link, want)
		}
	}
	p, err := ParseAt([]byte(body), "http://h.test/feed.rss", 1<<20, 10)
	if err != nil || p.LinksDropped != 4 {
		t.Errorf("ParseAt: %d links dropped, %v; want 4", p.LinksDropped, err)
	}
}

// utf16 encodes s as UTF-16 in the given byte order, with a byte order
// mark when bom.
func utf16Body(s string, bigEndian, bom bool) []byte {
	var out []byte
	put := func(c uint16) {
		if bigEndian {
			out = append(out, byte(c>>8), byte(c))
		} else {
			out = append(out, byte(c), byte(c>>8))
		}
	}
	if bom {
		put(0xFEFF)
	}
	for _, c := range utf16.Encode([]rune(s)) {
		put(c)
	}
	return out
}

// A UTF-16 feed, with a byte order mark or without, is read; a feed in an
// encoding no decoder knows is refused naming it.
func TestUTF16FeedsAreRead(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>Café</title>` +
		`<item><title>Über 𝄞</title><guid>1</guid><link>http://h.test/1</link></item></channel></rss>`
	for _, c := range []struct {
		name           string
		bigEndian, bom bool
	}{{"little-endian with a BOM", false, true}, {"big-endian with a BOM", true, true}, {"little-endian without", false, false}, {"big-endian without", true, false}} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(utf16Body(doc, c.bigEndian, c.bom), 1<<20, 10)
			if err != nil {
				t.Fatal(err)
			}
			if p.Title != "Café" || len(p.Items) != 1 || p.Items[0].Title != "Über 𝄞" || p.Items[0].Link != "http://h.test/1" {
				t.Errorf("parsed %q with %+v", p.Title, p.Items)
			}
		})
	}
	t.Run("UTF-8 declared as UTF-16", func(t *testing.T) {
		if p, err := Parse([]byte(doc), 1<<20, 10); err != nil || len(p.Items) != 1 || p.Items[0].Title != "Über 𝄞" {
			t.Errorf("parsed %+v, %v", p, err)
		}
	})
	t.Run("an encoding not known", func(t *testing.T) {
		bad := strings.Replace(doc, "UTF-16", "x-klingon", 1)
		if _, err := Parse([]byte(bad), 1<<20, 10); !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), `"x-klingon"`) {
			t.Errorf("err = %v, want ErrEncoding naming x-klingon", err)
		}
	})
}
