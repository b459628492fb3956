package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

var testLimits = Limits{MaxBytes: 50 << 20, MaxURLs: 50000}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestURLSet(t *testing.T) {
	body := readTestdata(t, "urlset.xml")
	for name, b := range map[string][]byte{"plain": body, "gzipped": gzipped(t, body)} {
		t.Run("a "+name+" urlset lists its pages", func(t *testing.T) {
			res, err := Parse(b, testLimits)
			if err != nil {
				t.Fatal(err)
			}
			want := []URL{
				{Loc: "https://digital.gov/", LastMod: date("2023-12-18T15:15:00Z"), ChangeFreq: "daily", Priority: 1},
				{Loc: "https://digital.gov/2023/05/11/a-new-way-to-build-accessible-forms/", LastMod: date("2023-05-11T00:00:00Z"), Priority: 0.5},
				{Loc: "https://digital.gov/topics/?tag=a&page=2", Priority: 0.5},
				{Loc: "https://digital.gov/guides/?a=1&b=2", Priority: 0.5},
			}
			checkURLs(t, res.URLs, want)
			if res.Format != FormatURLSet || res.Skipped != 1 || res.BadDates != 1 || res.Dropped != 0 || len(res.Sitemaps) != 0 {
				t.Errorf("format %v, skipped %d, bad dates %d, dropped %d, sitemaps %d; want urlset, 1, 1, 0, 0",
					res.Format, res.Skipped, res.BadDates, res.Dropped, len(res.Sitemaps))
			}
		})
	}
}

func TestSitemapIndex(t *testing.T) {
	res, err := Parse(readTestdata(t, "index.xml"), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != FormatIndex || len(res.URLs) != 0 {
		t.Fatalf("format %v with %d URLs, want an index without URLs", res.Format, len(res.URLs))
	}
	checkURLs(t, res.Sitemaps, []URL{
		{Loc: "https://example.com/sitemap-pages.xml.gz", LastMod: date("2024-01-02T03:04:05Z"), Priority: 0.5},
		{Loc: "https://example.com/sitemap-news.xml", Priority: 0.5},
	})
}

func TestRSS(t *testing.T) {
	res, err := Parse(readTestdata(t, "rss.xml"), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != FormatRSS {
		t.Fatalf("format %v, want rss", res.Format)
	}
	checkURLs(t, res.URLs, []URL{
		{Loc: "https://digital.gov/2023/12/18/cafe-talk/", LastMod: date("2023-12-18T14:00:00Z"), Priority: 0.5},
		{Loc: "https://digital.gov/2023/12/11/guid-only/", LastMod: date("2023-12-11T14:30:00Z"), Priority: 0.5},
		{Loc: "https://digital.gov/2023/12/04/latin1/", LastMod: date("2023-12-04T08:00:00Z"), Priority: 0.5},
	})
	if res.Skipped != 1 {
		t.Errorf("skipped %d, want 1 (the item whose guid is not a link)", res.Skipped)
	}
}

func TestRSS1(t *testing.T) {
	body := `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://example.com/"><link>https://example.com/</link></channel>
  <item rdf:about="https://example.com/a"><link>https://example.com/a</link><dc:date>2024-03-01T10:00:00+01:00</dc:date></item>
</rdf:RDF>`
	res, err := Parse([]byte(body), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	checkURLs(t, res.URLs, []URL{{Loc: "https://example.com/a", LastMod: date("2024-03-01T09:00:00Z"), Priority: 0.5}})
}

func TestAtom(t *testing.T) {
	res, err := Parse(readTestdata(t, "atom.xml"), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != FormatAtom {
		t.Fatalf("format %v, want atom", res.Format)
	}
	checkURLs(t, res.URLs, []URL{
		{Loc: "/pages/common/tar.html", LastMod: date("2026-08-10T06:30:00.123Z"), Priority: 0.5},
		{Loc: "https://tldr.example/pages/linux/apt-get.html", LastMod: date("2025-10-01T00:00:00Z"), Priority: 0.5},
	})
}

func TestMaxURLs(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for range 120 {
		b.WriteString("<url><loc>https://example.com/p</loc></url>\n")
	}
	b.WriteString("</urlset>")
	res, err := Parse([]byte(b.String()), Limits{MaxBytes: 1 << 20, MaxURLs: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.URLs) != 100 || res.Dropped != 20 {
		t.Fatalf("kept %d, dropped %d; want 100 and 20", len(res.URLs), res.Dropped)
	}
}

func TestMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kept       int
		want       error
	}{
		{"a document cut short keeps what was read", `<urlset><url><loc>https://a/1</loc></url><url><loc>https://a/2</lo`, 1, nil},
		{"garbage after entries keeps them", `<urlset><url><loc>https://a/1</loc></url><<<>>>`, 1, nil},
		{"an HTML page is not a sitemap", `<!DOCTYPE html><html><body>404</body></html>`, 0, ErrUnknownFormat},
		{"an empty body is not a sitemap", ``, 0, ErrUnknownFormat},
		{"plain text is not a sitemap", `https://a/1`, 0, ErrUnknownFormat},
		{"an unknown encoding fails", `<?xml version="1.0" encoding="x-klingon"?><urlset/>`, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse([]byte(tc.body), testLimits)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if res == nil || len(res.URLs) != tc.kept {
				t.Fatalf("kept %v, want %d entries", res, tc.kept)
			}
		})
	}
}

func TestBadGzip(t *testing.T) {
	b := gzipped(t, readTestdata(t, "index.xml"))
	b[len(b)-5] ^= 0xff // break the CRC
	res, err := Parse(b, testLimits)
	if err == nil {
		t.Fatal("a corrupt gzip stream gave no error")
	}
	if res == nil {
		t.Fatal("nil result")
	}
	if _, err := Parse([]byte{0x1f, 0x8b, 0}, testLimits); err == nil {
		t.Fatal("a truncated gzip header gave no error")
	}
}

func TestLimitsValidate(t *testing.T) {
	err := Limits{MaxBytes: 0, MaxURLs: -1}.Validate()
	if err == nil {
		t.Fatal("bad limits accepted")
	}
	for _, want := range []string{"sitemap.max_bytes = 0", "sitemap.max_urls = -1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := Parse([]byte("<urlset/>"), Limits{}); err == nil {
		t.Error("Parse accepted zero limits")
	}
}

// TestLimitsUpperBounds: a limit far past the sitemaps.org ones is refused
// with its key and range; the bound itself is accepted.
func TestLimitsUpperBounds(t *testing.T) {
	fresh := func() Limits { return testLimits }
	boundstest.Check(t, "sitemap.", fresh, (*Limits).Validate, []boundstest.Setting[Limits]{
		{Key: "max_bytes", Lo: 1, Hi: maxBytesLimit, Set: func(l *Limits, v int64) { l.MaxBytes = v }},
		{Key: "max_urls", Lo: 1, Hi: maxURLsLimit, Set: func(l *Limits, v int64) { l.MaxURLs = int(v) }},
	})
}

func TestDates(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2023", "2023-01-01T00:00:00Z"},
		{"2023-05", "2023-05-01T00:00:00Z"},
		{"2023-05-11", "2023-05-11T00:00:00Z"},
		{"2023-05-11T10:15+02:00", "2023-05-11T08:15:00Z"},
		{"2023-05-11T10:15:30Z", "2023-05-11T10:15:30Z"},
		{"2023-05-11T10:15:30.45-05:00", "2023-05-11T15:15:30.45Z"},
		{"2023-05-11T10:15:30", "2023-05-11T10:15:30Z"},
		{"2023-05-11 10:15:30", "2023-05-11T10:15:30Z"},
		{"2023-05-11T10:15:30+0200", "2023-05-11T08:15:30Z"},
		{"Thu, 11 May 2023 10:15:30 +0000", "2023-05-11T10:15:30Z"},
		{"Thu, 11 May 2023 10:15:30 GMT", "2023-05-11T10:15:30Z"},
		{"Thu, 11 May 2023 10:15:30 PDT", "2023-05-11T17:15:30Z"},
		{"Thu, 1 Jun 2023 10:15 EST", "2023-06-01T15:15:00Z"},
		{"1 Jun 2023 10:15:00 +0100", "2023-06-01T09:15:00Z"},
		{"  Thu,  11 May 2023\n 10:15:30 GMT ", "2023-05-11T10:15:30Z"},
	} {
		t.Run("the date "+tc.in+" is read", func(t *testing.T) {
			got, ok := parseDate(tc.in)
			if !ok || !got.Equal(date(tc.want)) {
				t.Fatalf("parseDate(%q) = %v, %v; want %s", tc.in, got, ok, tc.want)
			}
		})
	}
	for _, in := range []string{"", "yesterday", "2023-13-01", "2023-02-30", "11/05/2023", "0001-01-01", "9999-01-01"} {
		t.Run("the date "+in+" is rejected", func(t *testing.T) {
			if got, ok := parseDate(in); ok {
				t.Fatalf("parseDate(%q) = %v", in, got)
			}
		})
	}
}

// bomb returns a gzip stream that expands to prefix followed by n bytes of
// fill: one member holding 1 MiB of fill, compressed once and repeated, so
// the expanded bytes never exist in memory.
func bomb(t *testing.T, prefix string, fill byte, n int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(gzipped(t, []byte(prefix)))
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(zw, io.LimitReader(repeatReader(fill), 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for range n >> 20 {
		buf.Write(member.Bytes())
	}
	return buf.Bytes()
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestGzipBomb(t *testing.T) {
	const expanded = 1 << 30
	lim := Limits{MaxBytes: 8 << 20, MaxURLs: 50000}
	for _, tc := range []struct {
		name, prefix string
		fill         byte
	}{
		{"a gigabyte of zeros", "", 0},
		{"a urlset followed by a gigabyte of spaces", `<urlset><url><loc>https://a/1</loc></url>`, ' '},
		{"a loc of a gigabyte", `<urlset><url><loc>https://a/`, 'a'},
	} {
		t.Run(tc.name+" is too large", func(t *testing.T) {
			b := bomb(t, tc.prefix, tc.fill, expanded)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Parse(b, lim)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			// The decoder may buffer up to MaxBytes of one token; anything
			// near the expanded size means the cap did not hold.
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("compressed %d KiB, allocated %d KiB, err: %v", len(b)>>10, alloc>>10, err)
			if alloc > 8*uint64(lim.MaxBytes) {
				t.Fatalf("allocated %d MiB for a %d MiB limit", alloc>>20, lim.MaxBytes>>20)
			}
		})
	}
}

func TestTooLargePlainBodyKeepsWhatWasRead(t *testing.T) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for b.Len() < 4096 {
		b.WriteString("<url><loc>https://a/x</loc></url>")
	}
	res, err := Parse([]byte(b.String()), Limits{MaxBytes: 1024, MaxURLs: 100})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if n := len(res.URLs); n == 0 || n > 1024/30 {
		t.Fatalf("kept %d URLs, want those within the first 1024 bytes", n)
	}
}

func checkURLs(t *testing.T, got, want []URL) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Loc != w.Loc || !g.LastMod.Equal(w.LastMod) || g.ChangeFreq != w.ChangeFreq || g.Priority != w.Priority {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
}

// A feed's items past Limits.FeedItems give no links, counted as dropped,
// whether the items before them had links or not; a sitemap is not a feed.
func TestFeedItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>t</title>`)
	for i := range 30 {
		if i == 2 {
			b.WriteString("<item><title>no link</title></item>\n")
			continue
		}
		fmt.Fprintf(&b, "<item><link>https://example.com/%d</link></item>\n", i)
	}
	b.WriteString("</channel></rss>")
	res, err := Parse([]byte(b.String()), Limits{MaxBytes: 1 << 20, MaxURLs: 100, FeedItems: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.URLs) != 9 || res.Dropped != 20 || res.Skipped != 1 || res.URLs[8].Loc != "https://example.com/9" {
		t.Fatalf("kept %d (last %+v), dropped %d, skipped %d; want the 9 links of the first 10 items, 20 dropped, 1 skipped",
			len(res.URLs), res.URLs[len(res.URLs)-1], res.Dropped, res.Skipped)
	}
	var set strings.Builder
	set.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for range 30 {
		set.WriteString("<url><loc>https://example.com/p</loc></url>\n")
	}
	set.WriteString("</urlset>")
	if res, err := Parse([]byte(set.String()), Limits{MaxBytes: 1 << 20, MaxURLs: 100, FeedItems: 10}); err != nil || len(res.URLs) != 30 {
		t.Fatalf("a sitemap of 30 URLs kept %d, %v; want 30", len(res.URLs), err)
	}
}

// An RSS or Atom body over Limits.FeedBytes keeps no link, and says so
// naming its size and the limit; a sitemap of that size is read whole.
func TestFeedBytes(t *testing.T) {
	var rss, atom, set strings.Builder
	rss.WriteString(`<rss version="2.0"><channel><title>t</title>`)
	atom.WriteString(`<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>`)
	set.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 30 {
		fmt.Fprintf(&rss, "<item><link>https://example.com/%d</link></item>\n", i)
		fmt.Fprintf(&atom, `<entry><link href="https://example.com/%d"/></entry>`+"\n", i)
		fmt.Fprintf(&set, "<url><loc>https://example.com/%d</loc></url>\n", i)
	}
	rss.WriteString("</channel></rss>")
	atom.WriteString("</feed>")
	set.WriteString("</urlset>")
	lim := Limits{MaxBytes: 1 << 20, MaxURLs: 100, FeedBytes: 1000}
	for _, body := range []string{rss.String(), atom.String()} {
		res, err := Parse([]byte(body), lim)
		want := fmt.Sprintf("feed of %d bytes, limit 1000 (feeds.max_bytes)", len(body))
		if !errors.Is(err, ErrFeedTooLarge) || !strings.Contains(err.Error(), want) || len(res.URLs) != 0 {
			t.Errorf("a %s of %d bytes: %d links kept, %v; want none and an error with %q", res.Format, len(body), len(res.URLs), err, want)
		}
	}
	lim.FeedBytes = int64(rss.Len())
	if res, err := Parse([]byte(rss.String()), lim); err != nil || len(res.URLs) != 30 {
		t.Errorf("a feed of exactly the limit kept %d links, %v; want 30", len(res.URLs), err)
	}
	lim.FeedBytes = 1000
	if res, err := Parse([]byte(set.String()), lim); err != nil || len(res.URLs) != 30 {
		t.Errorf("a sitemap over the feed limit kept %d links, %v; want 30", len(res.URLs), err)
	}
}
