package replay

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

// urlset and sitemapIndex decode the two sitemap documents.
type urlset struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

type sitemapIndex struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

func decodeXML(t *testing.T, r response, v any) {
	t.Helper()
	if r.status != 200 || r.header.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q", r.status, r.header.Get("Content-Type"))
	}
	if err := xml.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode sitemap: %v\n%.300s", err, r.body)
	}
}

func TestSitemapListsTheWeeksPages(t *testing.T) {
	for _, tc := range []struct {
		name string
		week int
	}{{"tldr-en", 0}, {"tldr-en", 47}, {"digitalgov-2023", 18}} {
		t.Run(fmt.Sprintf("%s week %d", tc.name, tc.week), func(t *testing.T) {
			a := realArchive(t, tc.name)
			web := newTestWeb(t, Options{}, a)
			web.setWeek(t, tc.week)
			var set urlset
			decodeXML(t, web.get(t, "/sitemap.xml"), &set)
			if len(set.URLs) != a.Len(tc.week) {
				t.Fatalf("%d URLs, the week has %d pages", len(set.URLs), a.Len(tc.week))
			}
			prefix := "http://" + web.host
			i := 0
			for p := range a.Pages(tc.week) {
				got := set.URLs[i]
				if got.Loc != prefix+p.URL || got.LastMod != a.Date(p.First).Format("2006-01-02") {
					t.Fatalf("entry %d = %+v, want %s%s with lastmod %s", i, got, prefix, p.URL, a.Date(p.First).Format("2006-01-02"))
				}
				i++
			}
		})
	}
}

func TestSitemapIndexAboveTheURLLimit(t *testing.T) {
	// Five pages in week 1 with a limit of two URLs per sitemap: an index of
	// three parts. Paths with & and ' check the XML escaping.
	var ivs []archivetest.Interval
	for _, u := range []string{"/", "/a&b", "/c'd", "/e", "/f"} {
		ivs = append(ivs, archivetest.Interval{URL: u, First: 0, Last: 1, Body: "page " + u + "\n"})
	}
	ivs = append(ivs, archivetest.Interval{URL: "/gone", First: 0, Last: 0, Body: "gone\n"})
	a := fixtureArchive(t, archivetest.Fixture{Name: "small", Weeks: 2, Intervals: ivs})
	srv, err := New([]*archive.Archive{a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.maxSitemapURLs = 2 // before the server starts: no race with handlers
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	web := &testWeb{srv: srv, ts: ts, host: "small.test"}
	web.setWeek(t, 1)

	var index sitemapIndex
	decodeXML(t, web.get(t, "/sitemap.xml"), &index)
	var parts, locs []string
	var raw strings.Builder
	for _, s := range index.Sitemaps {
		parts = append(parts, s.Loc)
		path := strings.TrimPrefix(s.Loc, "http://small.test")
		var set urlset
		r := web.get(t, path)
		raw.Write(r.body)
		decodeXML(t, r, &set)
		if len(set.URLs) > 2 {
			t.Errorf("%s lists %d URLs, limit 2", path, len(set.URLs))
		}
		for _, u := range set.URLs {
			locs = append(locs, u.Loc)
		}
	}
	wantParts := []string{"http://small.test/sitemap-1.xml", "http://small.test/sitemap-2.xml", "http://small.test/sitemap-3.xml"}
	if !slices.Equal(parts, wantParts) {
		t.Errorf("index lists %v, want %v", parts, wantParts)
	}
	wantLocs := []string{"http://small.test/", "http://small.test/a&b", "http://small.test/c'd", "http://small.test/e", "http://small.test/f"}
	if !slices.Equal(locs, wantLocs) {
		t.Errorf("parts list %v, want %v", locs, wantLocs)
	}
	if !strings.Contains(raw.String(), "/a&amp;b</loc>") || !strings.Contains(raw.String(), "/c&apos;d</loc>") {
		t.Errorf("special characters are not escaped:\n%s", raw.String())
	}

	notFound := []string{"/sitemap-4.xml", "/sitemap-0.xml", "/sitemap-01.xml", "/sitemap-x.xml"}
	for _, path := range notFound {
		if r := web.get(t, path); r.status != 404 {
			t.Errorf("GET %s: status %d, want 404", path, r.status)
		}
	}

	t.Run("below the limit the parts do not exist", func(t *testing.T) {
		web := newTestWeb(t, Options{}, a)
		web.setWeek(t, 1)
		if r := web.get(t, "/sitemap-1.xml"); r.status != 404 {
			t.Fatalf("GET /sitemap-1.xml: status %d, want 404", r.status)
		}
		var set urlset
		decodeXML(t, web.get(t, "/sitemap.xml"), &set)
		if len(set.URLs) != 5 {
			t.Fatalf("%d URLs, want 5", len(set.URLs))
		}
	})
}

func TestSitemapPart(t *testing.T) {
	cases := []struct {
		path string
		k    int
		ok   bool
	}{
		{"/sitemap-1.xml", 1, true},
		{"/sitemap-12.xml", 12, true},
		{"/sitemap.xml", 0, false},
		{"/sitemap-.xml", 0, false},
		{"/sitemap-0.xml", 0, false},
		{"/sitemap--1.xml", 0, false},
		{"/sitemap-+1.xml", 0, false},
		{"/sitemap-1.xml.gz", 0, false},
		{"/sitemap-9999999999.xml", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			if k, ok := sitemapPart(tc.path); k != tc.k || ok != tc.ok {
				t.Fatalf("sitemapPart = %d, %v; want %d, %v", k, ok, tc.k, tc.ok)
			}
		})
	}
}

// TestSitemapPathsAreStillPages checks that only sitemap names are taken
// over: an archive page whose path merely resembles one is served.
func TestSitemapPathsAreStillPages(t *testing.T) {
	a := fixtureArchive(t, archivetest.Fixture{Name: "maps", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/sitemap-old.xml", First: 0, Last: 0, Body: "old\n"},
	}})
	web := newTestWeb(t, Options{}, a)
	if r := web.get(t, "/sitemap-old.xml"); r.status != 200 || string(r.body) != "old\n" {
		t.Fatalf("status %d, body %q", r.status, r.body)
	}
	if r := web.do(t, http.MethodHead, "/sitemap.xml"); r.status != 200 || len(r.body) != 0 || r.header.Get("Content-Length") == "" {
		t.Fatalf("HEAD /sitemap.xml: status %d, %d body bytes, Content-Length %q", r.status, len(r.body), r.header.Get("Content-Length"))
	}
}
