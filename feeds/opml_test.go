package feeds

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
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

// TestReadOPMLKeepsTheOuterFoldersOfADeepList reads a list of feeds
// nested inside one another 20,000 deep: each keeps the outermost
// MaxFolders titles, as a feed does, and not a copy of every level.
func TestReadOPMLKeepsTheOuterFoldersOfADeepList(t *testing.T) {
	const deep = 20000
	var b strings.Builder
	b.WriteString("<opml><body>")
	for i := range deep {
		fmt.Fprintf(&b, `<outline text="f%d" xmlUrl="http://%d.test/">`, i, i)
	}
	b.WriteString(strings.Repeat("</outline>", deep) + "</body></opml>")
	got, err := ReadOPML(strings.NewReader(b.String()))
	if err != nil || len(got) != deep {
		t.Fatalf("ReadOPML of a list %d deep: %d outlines, %v", deep, len(got), err)
	}
	want := []string{"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"}[:MaxFolders]
	if last := got[deep-1]; !slices.Equal(last.Folders, want) || last.URL != fmt.Sprintf("http://%d.test/", deep-1) {
		t.Errorf("the deepest outline: %s in %q, want in %q", last.URL, last.Folders, want)
	}
	if third := got[2]; !slices.Equal(third.Folders, []string{"f0", "f1"}) {
		t.Errorf("the third outline is in %q, want [f0 f1]", third.Folders)
	}
}

// TestWriteOPMLFilesFeedsInFolders: each folder is written once, where
// its first feed of the list is, holding its feeds and folders in list
// order; each feed's text is its name, else its title, else its URL, and
// only its name reads back as one.
func TestWriteOPMLFilesFeedsInFolders(t *testing.T) {
	list := []Feed{
		{URL: "http://a.test/feed", Name: "A", Folders: []string{"Tech", "Go"}},
		{URL: "http://b.test/feed", Title: "B's own title"},
		{URL: "http://c.test/feed", Name: "C & co", Folders: []string{"Tech"}},
		{URL: "http://d.test/feed", Name: "D", Folders: []string{"Tech", "Go"}},
		{URL: "http://e.test/feed", Folders: []string{"News"}},
	}
	var b bytes.Buffer
	if err := WriteOPML(&b, list); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), `<outline text="Tech"`); n != 1 {
		t.Errorf("the folder Tech is written %d times, want once:\n%s", n, b.String())
	}
	back, err := ReadOPML(&b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range back {
		got = append(got, fmt.Sprintf("%s %q %q %q", o.URL, o.Title, o.Name, o.Folders))
	}
	want := []string{
		`http://a.test/feed "A" "A" ["Tech" "Go"]`,
		`http://d.test/feed "D" "D" ["Tech" "Go"]`,
		`http://c.test/feed "C & co" "C & co" ["Tech"]`,
		`http://b.test/feed "B's own title" "" []`,
		`http://e.test/feed "http://e.test/feed" "" ["News"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ReadOPML of the export:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestImportedNamesAndFoldersSurviveAnExport: an OPML list subscribed
// into a store keeps each new feed's name and folders, a name over
// MaxTitleBytes cut as titles are and folders past MaxFolders dropped,
// while a feed subscribed before keeps its own (none); the store's
// export, subscribed into an empty store, gives the same names and
// folders.
func TestImportedNamesAndFoldersSurviveAnExport(t *testing.T) {
	long := strings.Repeat("é", MaxTitleBytes) // 2 bytes each: twice the bound
	var deep, deepOpen, deepClose strings.Builder
	for i := range MaxFolders + 2 {
		fmt.Fprintf(&deepOpen, `<outline text="level %d">`, i)
		deepClose.WriteString(`</outline>`)
		if i < MaxFolders {
			fmt.Fprintf(&deep, "level %d/", i)
		}
	}
	in := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="Tech"><outline title="Go">
  <outline text="The Go blog" xmlUrl="http://go.test/feed"/>
</outline></outline>
<outline text="Already here" xmlUrl="http://pre.test/feed"/>
<outline xmlUrl="http://untitled.test/feed"/>
<outline text="` + long + `" xmlUrl="http://long.test/feed"/>
` + deepOpen.String() + `<outline text="Deep" xmlUrl="http://deep.test/feed"/>` + deepClose.String() + `
</body></opml>`
	subscribe := func(s *Store, outlines []Outline) {
		t.Helper()
		for _, o := range outlines {
			if _, _, err := s.Subscribe(t.Context(), o.URL, AddOptions{Name: o.Name, Folders: o.Folders}, t0); err != nil {
				t.Fatalf("Subscribe(%s): %v", o.URL, err)
			}
		}
	}
	labels := func(s *Store) map[string]string {
		t.Helper()
		list, err := s.Subscriptions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		out := make(map[string]string, len(list))
		for _, f := range list {
			out[f.URL] = fmt.Sprintf("%q %q", f.Name, f.Folders)
		}
		return out
	}
	first, _ := openStore(t, vfs.NewMem(), "")
	if _, _, err := first.Subscribe(t.Context(), "http://pre.test/feed", AddOptions{}, t0); err != nil {
		t.Fatal(err)
	}
	outlines, err := ReadOPML(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	subscribe(first, outlines)
	cut := strings.Repeat("é", (MaxTitleBytes-len("…"))/2) + "…"
	folders := strings.Split(strings.TrimSuffix(deep.String(), "/"), "/")
	want := map[string]string{
		"http://go.test/feed":       fmt.Sprintf("%q %q", "The Go blog", []string{"Tech", "Go"}),
		"http://pre.test/feed":      `"" []`,
		"http://untitled.test/feed": `"" []`,
		"http://long.test/feed":     fmt.Sprintf("%q []", cut),
		"http://deep.test/feed":     fmt.Sprintf("%q %q", "Deep", folders),
	}
	if got := labels(first); !maps.Equal(got, want) {
		t.Fatalf("names and folders after the import:\n%v\nwant\n%v", got, want)
	}
	list, err := first.Subscriptions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteOPML(&b, list); err != nil {
		t.Fatal(err)
	}
	exported, err := ReadOPML(&b)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := openStore(t, vfs.NewMem(), "")
	subscribe(second, exported)
	if got := labels(second); !maps.Equal(got, want) {
		t.Errorf("names and folders after the export was imported into an empty store:\n%v\nwant\n%v", got, want)
	}
}

// TestAFeedRecordWithoutNameOrFoldersDecodes: a record written before
// feeds had a name and folders reads as a feed with neither, and one
// with neither is written without the keys.
func TestAFeedRecordWithoutNameOrFoldersDecodes(t *testing.T) {
	var f Feed
	old := `{"id":"0123456789abcdef","url":"http://a.test/feed","title":"A","weight":1,"min_interval":900000000000,"max_interval":604800000000000,"added":"2025-03-03T12:00:00Z","last_fetch":"0001-01-01T00:00:00Z","fetches":0,"not_modified":0,"postings":0,"delays":null}`
	if err := decode(append([]byte{formatV1}, old...), &f); err != nil || f.URL != "http://a.test/feed" || f.Name != "" || f.Folders != nil {
		t.Fatalf("an older record: %+v, %v", f, err)
	}
	b, err := encode(f)
	if err != nil || bytes.Contains(b, []byte(`"name"`)) || bytes.Contains(b, []byte(`"folders"`)) {
		t.Errorf("a feed without name or folders written as %s, %v; want neither key", b, err)
	}
}
