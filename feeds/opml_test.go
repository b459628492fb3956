package feeds

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOPMLRoundTrip: what WriteOPML writes, ReadOPML gives back: each
// feed's URL, title, weight and poll intervals.
func TestOPMLRoundTrip(t *testing.T) {
	list := []Feed{
		{URL: "http://a.test/feed?x=1&y=2", Title: `Go "blog" <news>`, Weight: 2.5, MinInterval: 30 * time.Minute, MaxInterval: 48 * time.Hour},
		{URL: "http://b.test/rss", Weight: 1, MinInterval: 15 * time.Minute, MaxInterval: 168 * time.Hour},
	}
	var b bytes.Buffer
	if err := WriteOPML(&b, list); err != nil {
		t.Fatal(err)
	}
	back, err := ReadOPML(&b)
	if err != nil || len(back) != len(list) {
		t.Fatalf("ReadOPML of an export = %+v, %v", back, err)
	}
	for i, o := range back {
		f := list[i]
		title := cmpOr(f.Title, f.URL)
		if o.URL != f.URL || o.Title != title || o.Skip != "" || o.Options.Weight == nil || *o.Options.Weight != f.Weight ||
			o.Options.MinInterval == nil || *o.Options.MinInterval != f.MinInterval || o.Options.MaxInterval == nil || *o.Options.MaxInterval != f.MaxInterval {
			t.Errorf("outline %d = %+v, want %+v", i, o, f)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestReadOPMLSaysWhatEachOutlineIs: folders are not feeds, a leaf
// without xmlUrl and one with an empty xmlUrl are skipped with why, an
// xmlurl in other letter case is read, and a deltaq: attribute that does
// not parse skips its outline.
func TestReadOPMLSaysWhatEachOutlineIs(t *testing.T) {
	in := `<?xml version="1.0"?><opml version="1.0" xmlns:d="` + OPMLNamespace + `"><head><title>x</title></head><body>
<outline text="Tech"><outline text="Go blog" type="rss" xmlUrl="http://go.test/feed"/></outline>
<outline text="lost" type="rss"/>
<outline text="blank" xmlUrl=" "/>
<outline text="lower" xmlurl="http://lower.test/feed"/>
<outline text="heavy" xmlUrl="http://h.test/feed" d:weight="much"/>
</body></opml>`
	got, err := ReadOPML(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, o := range got {
		lines = append(lines, fmt.Sprintf("%d %s %q %v %s", o.Line, o.URL, o.Title, o.Folders, o.Skip))
	}
	want := []string{
		`2 http://go.test/feed "Go blog" [Tech] `,
		`3  "lost" [] no xmlUrl`,
		`4  "blank" [] empty xmlUrl`,
		`5 http://lower.test/feed "lower" [] `,
		`6 http://h.test/feed "heavy" [] deltaq:weight "much" is not a number`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("ReadOPML:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadOPMLDecodesTheDeclaredCharset: a list in ISO-8859-1 reads as
// its text, where the XML decoder alone refused it.
func TestReadOPMLDecodesTheDeclaredCharset(t *testing.T) {
	in := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><opml version=\"2.0\"><body><outline text=\"Caf\xe9\" xmlUrl=\"http://cafe.test/feed\"/></body></opml>")
	got, err := ReadOPML(bytes.NewReader(in))
	if err != nil || len(got) != 1 || got[0].Title != "Café" {
		t.Fatalf("ReadOPML of a Latin-1 list = %+v, %v, want the title Café", got, err)
	}
	_, err = ReadOPML(strings.NewReader(`<?xml version="1.0" encoding="x-nonesuch"?><opml/>`))
	if err == nil || !strings.Contains(err.Error(), "x-nonesuch") {
		t.Errorf("an unknown charset: %v, want it named", err)
	}
}

// TestReadOPMLSaysWhatItWanted: an empty file, text, an HTML page and a
// truncated list are refused saying what was expected.
func TestReadOPMLSaysWhatItWanted(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "feeds: not an OPML subscription list: the file is empty (want an <opml> document)"},
		{"just some text", "feeds: not an OPML subscription list: the file holds no XML element (want an <opml> document)"},
		{"<html><body>page</body></html>", "feeds: not an OPML subscription list: its root element is <html>, want <opml>"},
		{"<opml><body>", "feeds: OPML: line 1: unexpected EOF"},
	} {
		_, err := ReadOPML(strings.NewReader(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("ReadOPML(%q) = %v, want %q", c.in, err, c.want)
		}
		if c.want[:len("feeds: not")] == "feeds: not" && !errors.Is(err, ErrNotOPML) {
			t.Errorf("ReadOPML(%q) = %v, want ErrNotOPML", c.in, err)
		}
	}
}

// TestReadOPMLTakesALargeExport: an export of 65,000 feeds (9 MB, more
// than feeds.max_bytes, the bound of one feed's body, that bounded lists
// before) reads back whole; more feeds than MaxOPMLFeeds are refused.
func TestReadOPMLTakesALargeExport(t *testing.T) {
	list := make([]Feed, 65000)
	for i := range list {
		list[i] = Feed{URL: fmt.Sprintf("https://blog%d.example.com/feeds/posts/default?alt=rss", i),
			Title: fmt.Sprintf("The blog number %d", i), Weight: 1, MinInterval: 15 * time.Minute, MaxInterval: 168 * time.Hour}
	}
	var b bytes.Buffer
	if err := WriteOPML(&b, list); err != nil {
		t.Fatal(err)
	}
	if b.Len() <= 8<<20 {
		t.Fatalf("the export is %d bytes, want more than 8 MiB", b.Len())
	}
	got, err := ReadOPML(bytes.NewReader(b.Bytes()))
	if err != nil || len(got) != len(list) || got[len(got)-1].URL != list[len(list)-1].URL {
		t.Fatalf("ReadOPML of a %d-byte export: %d outlines, %v", b.Len(), len(got), err)
	}
	var over strings.Builder
	over.WriteString("<opml><body>")
	for i := range MaxOPMLFeeds + 1 {
		fmt.Fprintf(&over, `<outline xmlUrl="http://%d.test/"/>`, i)
	}
	over.WriteString("</body></opml>")
	if _, err := ReadOPML(strings.NewReader(over.String())); err == nil || !strings.Contains(err.Error(), "more than 100000 feeds") {
		t.Errorf("a list of %d feeds: %v, want refused", MaxOPMLFeeds+1, err)
	}
}
