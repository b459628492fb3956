package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

func page(title, desc, text string) string {
	return fmt.Sprintf(`<html><head><title>%s</title><meta name="description" content="%s"></head><body><main>%s</main></body></html>`, title, desc, text)
}

func searchFixture() archivetest.Fixture {
	var ivs []archivetest.Interval
	for i := range 25 {
		ivs = append(ivs, archivetest.Interval{URL: fmt.Sprintf("/common/tool%02d.html", i), First: 0, Last: 1,
			Body: page(fmt.Sprintf("tool%02d", i), "Archive utility.", "archive files "+strings.Repeat("archive ", i%3))})
	}
	ivs = append(ivs,
		archivetest.Interval{URL: "/linux/tar.html", First: 0, Last: 0, Body: page("tar", "Archiving utility.", "create a tar archive")},
		archivetest.Interval{URL: "/linux/tar.html", First: 1, Last: 1, Body: page("tar", "Archiving utility, changed.", "create or extract a tar archive")},
	)
	return archivetest.Fixture{Name: "mini", Weeks: 2, Intervals: ivs}
}

func searchJSON(t *testing.T, web *testWeb, path string) SearchResult {
	t.Helper()
	r := web.get(t, path)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	if r.header.Get("X-Deltaq-Interface") != "added" {
		t.Errorf("GET %s: the response does not label the interface as added", path)
	}
	var res SearchResult
	if err := json.Unmarshal(r.body, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSearchPagesCapAndVersions(t *testing.T) {
	web := newTestWeb(t, Options{Search: SearchOptions{Enabled: true, PageSize: 10, MaxResults: 20}}, fixtureArchive(t, searchFixture()))
	res := searchJSON(t, web, "/search?q=archive&format=json")
	if res.Total != 26 || len(res.Hits) != 10 || res.Interface != SearchLabel {
		t.Fatalf("total %d, %d hits, interface %q; want 26, 10, the label", res.Total, len(res.Hits), res.Interface)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("hit %d scores %v above hit %d's %v", i, res.Hits[i].Score, i-1, res.Hits[i-1].Score)
		}
	}
	if p2 := searchJSON(t, web, "/search?q=archive&page=2&format=json"); len(p2.Hits) != 10 || p2.Hits[0].URL == res.Hits[0].URL {
		t.Errorf("page 2: %d hits starting %q", len(p2.Hits), p2.Hits[0].URL)
	}
	// K = 20: a third page does not exist.
	if r := web.get(t, "/search?q=archive&page=3"); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "[1, 2]") {
		t.Errorf("page 3 beyond K: %d %s", r.status, r.body)
	}
	tar := searchJSON(t, web, "/search?q=tar+archive&format=json")
	if tar.Total != 1 || tar.Hits[0].URL != "/linux/tar.html" || tar.Hits[0].Description != "Archiving utility." {
		t.Fatalf("conjunctive query: %+v", tar)
	}
	web.setWeek(t, 1)
	tar1 := searchJSON(t, web, "/search?q=tar+archive&format=json")
	if tar1.Hits[0].Version == tar.Hits[0].Version || tar1.Hits[0].Description != "Archiving utility, changed." {
		t.Errorf("week 1 hit %+v: the version tag did not follow the page's change", tar1.Hits[0])
	}
	if got := searchJSON(t, web, "/search?q=extract&format=json"); got.Total != 1 {
		t.Errorf("a word only in week 1's body: %d hits, want 1", got.Total)
	}
}

func TestSearchHTMLAndErrors(t *testing.T) {
	web := newTestWeb(t, Options{Search: SearchOptions{Enabled: true, PageSize: 10, MaxResults: 100}}, fixtureArchive(t, searchFixture()))
	r := web.get(t, "/search?q=tar")
	body := string(r.body)
	for _, want := range []string{`data-total="1"`, `class="hit" data-id="/linux/tar.html"`, `<meta name="deltaq-interface" content="added">`, `class="description">Archiving utility.`} {
		if !strings.Contains(body, want) {
			t.Errorf("HTML result lacks %q:\n%s", want, body)
		}
	}
	for q, want := range map[string]string{
		"/search":                               "needs at least one keyword",
		"/search?q=the":                         "needs at least one keyword",
		"/search?q=tar&page=x":                  `page = "x"`,
		"/search?q=tar&format=xml":              `format = "xml"`,
		"/search?q=" + strings.Repeat("a", 300): "the limit is 256",
	} {
		if r := web.get(t, q); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), want) {
			t.Errorf("GET %s: %d %q, want 400 naming %q", q, r.status, r.body, want)
		}
	}
	if got := web.srv.Stats().Total(); got.Searches != 1 || got.BadSearches != 5 {
		t.Errorf("searches %d, refused %d; want 1 and 5", got.Searches, got.BadSearches)
	}
}

func TestSearchOffByDefault(t *testing.T) {
	web := newTestWeb(t, Options{}, fixtureArchive(t, searchFixture()))
	if r := web.get(t, "/search?q=tar"); r.status != http.StatusNotFound {
		t.Errorf("/search without Options.Search: %d, want 404 (the archive has no such page)", r.status)
	}
	if _, err := New(nil, Options{Search: SearchOptions{Enabled: true, PageSize: 10, MaxResults: 5}}); err == nil || !strings.Contains(err.Error(), "web.replay.search.max_results = 5") {
		t.Errorf("K < p: %v", err)
	}
}
