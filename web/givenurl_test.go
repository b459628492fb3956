package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// TestGivenURLsWithAControlCharacterAreRefused: a URL sent with a NUL in
// it was normalized as a link in a page is, the NUL trimmed, and taken
// for the URL without it: the seed admitted, the HTML page at / subscribed
// as a feed, the report of / given for "/%00". Each is refused, naming the
// field, the value (its NUL visible) and the rule, and nothing changes.
func TestGivenURLsWithAControlCharacterAreRefused(t *testing.T) {
	db, st := newFeedStore(t)
	at := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: "http://site0.synth.test/", State: repo.StateLive, Fetches: 1, LastFetch: at, Version: at, Title: "home"})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	var admitted []string
	seed := func(_ context.Context, urls []string) (int, error) { // as crawler.Crawler.Seed begins
		norm, err := crawler.NormalizeSeeds(urls)
		if err != nil {
			return 0, err
		}
		admitted = append(admitted, norm...)
		return len(norm), nil
	}
	_, admin := withAdmin(t, Deps{Pages: db, Feeds: st, Seed: seed})
	rule := `"limit":"`
	for _, c := range []struct {
		name, method, path, body string
		srv                      func() (int, string)
		want                     []string
	}{
		{name: "a seed", method: http.MethodPost, path: "/api/v1/seeds", body: `{"urls":["http://a.test/","http://site4.synth.test/\u0000"]}`,
			want: []string{`"field":"urls","value":"http://site4.synth.test/\u0000"`, `\"http://site4.synth.test/\\x00\" has 0x00 at byte 24`, urlnorm.GivenRule, "no seed was admitted"}},
		{name: "a feed", method: http.MethodPost, path: "/api/v1/feeds", body: `{"url":"http://site0.synth.test/\u0000"}`,
			want: []string{`"field":"url","value":"http://site0.synth.test/\u0000"`, rule + "an absolute http or https URL with " + urlnorm.GivenRule}},
		{name: "a feed with an escape character", method: http.MethodPost, path: "/api/v1/feeds", body: `{"url":"http://site0.synth.test/feed\u001b"}`,
			want: []string{`"field":"url","value":"http://site0.synth.test/feed\u001b"`}},
		{name: "a page report", method: http.MethodGet, path: "/api/v1/page?url=http://site0.synth.test/%00",
			want: []string{`"field":"url","value":"http://site0.synth.test/\u0000"`, `has 0x00 at byte 24`, urlnorm.GivenRule}},
		{name: "a page report with a tab inside", method: http.MethodGet, path: "/api/v1/page?url=" + url.QueryEscape("http://site0.synth.test/a\tb"),
			want: []string{`"field":"url"`, `has 0x09 at byte 25`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := send(t, admin, c.method, c.path, c.body)
			if code != http.StatusBadRequest {
				t.Fatalf("%s %s: %d %s, want 400", c.method, c.path, code, body)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s %s: %s\nwant %s", c.method, c.path, body, w)
				}
			}
		})
	}
	if code, body := send(t, admin, http.MethodGet, "/explain?url=http://site0.synth.test/%00", ""); code != http.StatusBadRequest || !strings.Contains(body, "0x00 at byte 24") {
		t.Errorf("/explain of /%%00: %d %s, want 400 naming the NUL", code, body)
	}
	if list, err := st.List(t.Context()); len(admitted) != 0 || err != nil || len(list) != 0 {
		t.Errorf("after the refusals: seeds %q, feeds %v, %v; want none", admitted, list, err)
	}
	// What a copy and paste leaves around a URL is trimmed still.
	if code, body := send(t, admin, http.MethodGet, "/api/v1/page?url="+url.QueryEscape(" http://site0.synth.test/\n"), ""); code != http.StatusOK || !strings.Contains(body, `"title":"home"`) {
		t.Errorf("the page report of / with a space before and a newline after: %d %s, want 200", code, body)
	}
}

// TestFeedSubscriptionRefusesANameOrFoldersItWouldCut: a 5,000-byte name
// and 30 folders were stored as 1,022 bytes and 8 folders, and a NUL name
// or an empty folder taken. Each is refused, naming the field, the value
// cut for display and the limit; the feed keeps its own. (JSON cannot
// carry invalid UTF-8: the decoder reads it as U+FFFD.)
func TestFeedSubscriptionRefusesANameOrFoldersItWouldCut(t *testing.T) {
	db, st := newFeedStore(t)
	_, admin := withAdmin(t, Deps{Pages: db, Feeds: st})
	const u = "http://y.test/feed.xml"
	if code, b := send(t, admin, http.MethodPost, "/api/v1/feeds", `{"url":"`+u+`","name":"Y","folders":["Tech"]}`); code != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", code, b)
	}
	thirty, _ := json.Marshal(make([]string, 30))
	thirty = []byte(strings.ReplaceAll(string(thirty), `""`, `"f"`))
	long := strings.Repeat("n", 5000)
	const labelLimit = `"limit":"at most 1024 bytes of UTF-8 without control characters"`
	for _, c := range []struct{ name, fields, want string }{
		{"a 5,000-byte name", `"name":"` + long + `"`, `"field":"name","value":"` + strings.Repeat("n", 200) + `…",` + labelLimit},
		{"a NUL name", `"name":"\u0000"`, `"field":"name","value":"\u0000",` + labelLimit},
		{"30 folders", `"folders":` + string(thirty), `"field":"folders","value":"30 folders","limit":"at most 8 folders (levels)"`},
		{"an empty folder", `"folders":[""]`, `"field":"folders[0]","limit":"a folder name, not empty, of at most 1024 bytes`},
		{"a 5,000-byte fourth folder", `"folders":["a","b","c","` + long + `"]`, `"field":"folders[3]","value":"` + strings.Repeat("n", 200) + `…"`},
		{"a folder with a tab", `"folders":["a\tb"]`, `"field":"folders[0]","value":"a\tb"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, b := send(t, admin, http.MethodPost, "/api/v1/feeds", `{"url":"`+u+`",`+c.fields+`}`)
			if code != http.StatusBadRequest || !strings.Contains(b, c.want) || len(b) > 1000 {
				t.Errorf("%d %s\nwant 400 with %s, under 1,000 bytes", code, b, c.want)
			}
		})
	}
	if f, err := st.Get(feeds.IDOf(u)); err != nil || f.Name != "Y" || len(f.Folders) != 1 || f.Folders[0] != "Tech" {
		t.Errorf("the feed after the refusals: %q %q, %v; want its own name and folder", f.Name, f.Folders, err)
	}
}

// TestFeedItemsAndTheRiverCheckTheirParameters: since given twice was
// taken at its first value, the second never checked; and a feed's items
// ignored limit and format, however wrong. Both now read them as the river
// does.
func TestFeedItemsAndTheRiverCheckTheirParameters(t *testing.T) {
	srv, f := feedServer(t, feeds.AddOptions{Name: "X news"})
	items := "/api/v1/feeds/" + f.ID + "/items"
	for _, c := range []struct{ path, want string }{
		{"/api/v1/river?since=1&since=abc", `"field":"since","value":"1, abc","limit":"once"`},
		{items + "?since=1&since=abc", `"field":"since","value":"1, abc","limit":"once"`},
		{riverPath + "?since=1&since=abc", `"field":"since","value":"1, abc","limit":"once"`},
		{items + "?limit=-3", `"field":"limit","value":"-3","limit":"in [1, 200]"`},
		{items + "?limit=abc", `"field":"limit","value":"abc","limit":"a whole number in [1, 200]"`},
		{items + "?limit=1&limit=2", `"field":"limit","value":"1, 2","limit":"once"`},
		{items + "?format=xml", `"field":"format","value":"xml","limit":"json or atom"`},
		{items + "?format=json&format=atom", `"field":"format","value":"json, atom","limit":"once"`},
		{"/api/v1/river?format=rss", `"field":"format","value":"rss","limit":"json or atom"`},
		{riverPath + "?format=json", `"field":"format","value":"json","limit":"atom"`},
	} {
		if code, b, _ := get(t, srv, c.path); code != http.StatusBadRequest || !strings.Contains(b, c.want) {
			t.Errorf("GET %s: %d %s, want 400 with %s", c.path, code, b, c.want)
		}
	}
	var got struct{ Items []feeds.StoredItem }
	if code, b, _ := get(t, srv, items+"?limit=1"); code != http.StatusOK || json.Unmarshal([]byte(b), &got) != nil || len(got.Items) != 1 || got.Items[0].Title != "second" {
		t.Errorf("items?limit=1: %d %s, want the newest item alone", code, b)
	}
	if code, b, _ := get(t, srv, items+"?since=1&limit=2&format=json"); code != http.StatusOK || json.Unmarshal([]byte(b), &got) != nil ||
		len(got.Items) != 2 || got.Items[0].Title != "first" {
		t.Errorf("items with every parameter once: %d %s, want both items, oldest first", code, b)
	}
	code, b, hdr := get(t, srv, items+"?format=atom")
	p, err := feeds.Parse([]byte(b), 1<<20, 10)
	if code != http.StatusOK || err != nil || len(p.Items) != 2 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/atom+xml") ||
		!strings.Contains(b, "<title>X news</title>") || !strings.Contains(b, fmt.Sprintf("<id>%s:%s</id>", riverID, f.ID)) {
		t.Errorf("items?format=atom: %d %v %s\n%s, want the feed's items as Atom", code, err, hdr.Get("Content-Type"), b)
	}
	if code, b, _ := get(t, srv, riverPath+"?format=atom&limit=1"); code != http.StatusOK || strings.Count(b, "<entry>") != 1 {
		t.Errorf("river.atom?format=atom&limit=1: %d %s, want one entry", code, b)
	}
}
