package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/repo"
)

// newFeedStore is a feed store over an in-memory repository, closed when
// the test ends; new feeds are polled every minute to every hour.
func newFeedStore(t *testing.T) (*repo.DB, *feeds.Store) {
	t.Helper()
	db := memRepo(t)
	st, err := feeds.NewStore(t.Context(), db, feeds.Config{Step: 5 * time.Minute, Starts: 1, MinInterval: time.Minute, MaxInterval: time.Hour,
		Clusters: 1, ClusterMinPostings: 1, ClusterIterations: 1, SeenKept: 10, HistoryKept: 10, MaxItems: 10, MaxBytes: 1 << 20, LearnWindow: 24 * time.Hour, PollsPerDay: 1})
	if err != nil {
		t.Fatal(err)
	}
	return db, st
}

// feedServer serves the feed routes over a store holding one feed,
// http://x.test/feed.atom, added with o and polled once at 12:00 on
// 3 March 2025, which found its two items, "first" and "second".
func feedServer(t *testing.T, o feeds.AddOptions) (*httptest.Server, feeds.Feed) {
	t.Helper()
	db, st := newFeedStore(t)
	t0 := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	f, _, err := st.Add(t.Context(), "http://x.test/feed.atom", o, t0)
	if err != nil {
		t.Fatal(err)
	}
	body := `<?xml version="1.0"?><rss version="2.0"><channel><title>X</title>
<item><title>second</title><guid>b</guid><link>http://x.test/b</link><pubDate>Mon, 03 Mar 2025 11:00:00 GMT</pubDate></item>
<item><title>first</title><guid>a</guid><link>http://x.test/a</link><pubDate>Mon, 03 Mar 2025 10:00:00 GMT</pubDate></item></channel></rss>`
	if _, err := st.Record(t.Context(), f.ID, feeds.Fetch{At: t0, Status: 200, Body: []byte(body)}); err != nil {
		t.Fatal(err)
	}
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, f
}

func TestFeedRoutes(t *testing.T) {
	srv, f := feedServer(t, feeds.AddOptions{})
	get := func(path string) (int, string) {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, b := get("/api/v1/feeds")
	var list struct{ Feeds []feedView }
	if code != 200 || json.Unmarshal([]byte(b), &list) != nil || len(list.Feeds) != 1 || list.Feeds[0].Title != "X" || list.Feeds[0].Postings != 2 {
		t.Fatalf("/api/v1/feeds: %d %s", code, b)
	}
	code, b = get("/api/v1/feeds/" + f.ID + "/items?since=2025-01-01T00:00:00Z")
	var items struct{ Items []feeds.StoredItem }
	if code != 200 || json.Unmarshal([]byte(b), &items) != nil || len(items.Items) != 2 {
		t.Fatalf("items: %d %s", code, b)
	}
	if code, b = get("/api/v1/feeds/" + f.ID + "/items?since=2026-01-01T00:00:00Z"); code != 200 || !strings.Contains(b, `"items":[]`) {
		t.Fatalf("items since later: %d %s", code, b)
	}
	if code, b = get("/api/v1/feeds/nope/items"); code != 404 || !strings.Contains(b, `"code":"not_found"`) {
		t.Fatalf("unknown feed: %d %s", code, b)
	}
	if code, b = get("/api/v1/river?since=yesterday"); code != 400 || !strings.Contains(b, `"field":"since"`) {
		t.Fatalf("bad since: %d %s", code, b)
	}
	// Unix seconds mean what RFC 3339 does, within its years 0000 to
	// 9999; beyond them since is refused, where the largest int64 used to
	// wrap around to before every item.
	for _, path := range []string{"/api/v1/feeds/" + f.ID + "/items", "/api/v1/river"} {
		if code, b = get(path + "?since=1735689600"); code != 200 || json.Unmarshal([]byte(b), &items) != nil || len(items.Items) != 2 {
			t.Errorf("%s since 2025 in Unix seconds: %d %s, want both items", path, code, b)
		}
		if code, b = get(path + "?since=253402300799"); code != 200 || !strings.Contains(b, `"items":[]`) {
			t.Errorf("%s since the end of 9999 in Unix seconds: %d %s, want no items", path, code, b)
		}
		for _, v := range []string{"253402300800", "9223372036854775807", "-9223372036854775808", "-99999999999999999999"} {
			if code, b = get(path + "?since=" + v); code != 400 || !strings.Contains(b, `"field":"since","value":"`+v+`","limit":"an RFC 3339 time or Unix seconds in [-62167219200, 253402300799] (years 0000 to 9999)","message":"out of range"`) {
				t.Errorf("%s since=%s: %d %s, want 400 naming since, the value and the range, out of range", path, v, code, b)
			}
		}
	}
	code, b = get("/feeds/river.atom")
	if code != 200 {
		t.Fatalf("river.atom: %d", code)
	}
	p, err := feeds.Parse([]byte(b), 1<<20, 10)
	if err != nil || len(p.Items) != 2 || p.Items[0].Title != "second" && p.Items[0].Title != "first" || p.Items[0].Link == "" {
		t.Fatalf("the river's Atom does not read back as a feed: %v %+v\n%s", err, p, b)
	}
	// A river with nothing since: a feed reader still gets a valid feed,
	// never updated (the epoch, not year 1).
	code, b = get("/api/v1/river?format=atom&since=2026-01-01T00:00:00Z")
	if p, err := feeds.Parse([]byte(b), 1<<20, 10); code != 200 || err != nil || len(p.Items) != 0 || !strings.Contains(b, "<updated>1970-01-01T00:00:00Z</updated>") {
		t.Fatalf("an empty river's Atom: %d, %v\n%s", code, err, b)
	}
	if code, _ = get("/api/v1/river?format=rss"); code != 400 {
		t.Fatalf("unknown format: %d", code)
	}
	// ?limit= takes the newest items only, in JSON and Atom alike.
	for _, path := range []string{"/api/v1/river?limit=1", "/feeds/river.atom?limit=1"} {
		code, b = get(path)
		n := strings.Count(b, "<entry>")
		if !strings.Contains(path, "atom") {
			if json.Unmarshal([]byte(b), &items) != nil {
				t.Fatalf("%s: %s", path, b)
			}
			n = len(items.Items)
		}
		if code != 200 || n != 1 || !strings.Contains(b, "second") {
			t.Errorf("%s: %d, %d items, want the newest alone\n%s", path, code, n, b)
		}
	}
	for _, v := range []string{"0", "-1", "201", "many"} {
		if code, b = get("/api/v1/river?limit=" + v); code != 400 || !strings.Contains(b, `"field":"limit","value":"`+v+`","limit":"`) ||
			!strings.Contains(b, `in [1, 200]"`) {
			t.Errorf("river limit=%s: %d %s, want 400 naming limit, the value and the range", v, code, b)
		}
	}
	if code, b = get("/api/v1/river?limit=1&limit=2"); code != 400 || !strings.Contains(b, `"field":"limit","value":"1, 2","limit":"once"`) {
		t.Errorf("river limit given twice: %d %s, want 400 naming limit", code, b)
	}
}

// TestFeedSubscriptionsOnTheAdminListener subscribes, changes and
// unsubscribes a feed through the admin listener; the public one refuses
// it, and bad requests name their field and change nothing.
func TestFeedSubscriptionsOnTheAdminListener(t *testing.T) {
	db, st := newFeedStore(t)
	public, admin := withAdmin(t, Deps{Pages: db, Feeds: st})
	const u = "http://y.test/feed.xml"
	if code, b := send(t, public, http.MethodPost, "/api/v1/feeds", `{"url": "`+u+`"}`); code != http.StatusMethodNotAllowed ||
		!strings.Contains(b, "subscriptions change on the admin listener (server.admin.listen)") {
		t.Fatalf("POST on the public listener: %d %s, want 405 naming the admin listener", code, b)
	}
	var f feedView
	code, b := send(t, admin, http.MethodPost, "/api/v1/feeds", `{"url": "`+u+`", "weight": 2, "min_interval": "30m"}`)
	if code != http.StatusCreated || json.Unmarshal([]byte(b), &f) != nil || f.URL != u || f.Weight != 2 || f.MinInterval != "30m0s" || f.MaxInterval != "1h0m0s" {
		t.Fatalf("subscribe: %d %s, want 201 with weight 2, 30m to the default 1h", code, b)
	}
	code, b = send(t, admin, http.MethodPost, "/api/v1/feeds", `{"url": "`+u+`", "max_interval": "2h"}`)
	if code != http.StatusOK || json.Unmarshal([]byte(b), &f) != nil || f.Weight != 2 || f.MinInterval != "30m0s" || f.MaxInterval != "2h0m0s" {
		t.Fatalf("change max_interval: %d %s, want 200 keeping weight 2 and 30m", code, b)
	}
	f = feedView{}
	code, b = send(t, admin, http.MethodPost, "/api/v1/feeds", `{"url": "`+u+`", "name": "Y news", "folders": ["Tech", "Y"]}`)
	if code != http.StatusOK || json.Unmarshal([]byte(b), &f) != nil || f.Name != "Y news" || !slices.Equal(f.Folders, []string{"Tech", "Y"}) || f.Weight != 2 {
		t.Fatalf("name and file it: %d %s, want 200 with the name and folders, weight 2 kept", code, b)
	}
	f = feedView{}
	code, b = send(t, admin, http.MethodPost, "/api/v1/feeds", `{"url": "`+u+`", "folders": []}`)
	if code != http.StatusOK || json.Unmarshal([]byte(b), &f) != nil || f.Name != "Y news" || len(f.Folders) != 0 {
		t.Fatalf("take it out of its folders: %d %s, want 200 with the name kept and no folders", code, b)
	}
	edits := st.Edits()
	for body, want := range map[string]string{
		`{"url": "ftp://y.test/feed"}`:                 `"field":"url"`,
		`{"url": "` + u + `", "weight": 0}`:            `"field":"weight"`,
		`{"url": "` + u + `", "weight": -1}`:           `"field":"weight"`,
		`{"url": "` + u + `", "min_interval": "soon"}`: `"field":"min_interval","value":"soon"`,
		`{"url": "` + u + `", "min_interval": "3h"}`:   `"field":"min_interval","value":"3h0m0s"`,
		`{"url": "` + u + `", "max_interval": "-1h"}`:  `"field":"max_interval"`,
		`{"url": "` + u + `", "every": "1h"}`:          `every`,
		`{"url": "http:///nohost"}`:                    `"field":"url","value":"http:///nohost","limit":"an absolute http or https URL that names a host`,
		`{"url": "http://user:pass@y.test/feed.xml"}`:  `"field":"url","value":"http://user:pass@y.test/feed.xml","limit":"without credentials`,
		`{"url": "` + u + `", "min_interval": "1ns"}`:  `"field":"min_interval","value":"1ns","limit":"≥ feeds.step (5m0s)`,
	} {
		if code, b := send(t, admin, http.MethodPost, "/api/v1/feeds", body); code != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("POST %s: %d %s, want 400 with %s", body, code, b, want)
		}
	}
	if got, err := st.Get(f.ID); st.Edits() != edits || err != nil || got.Weight != 2 || got.MaxInterval != 2*time.Hour {
		t.Errorf("after bad requests: %d edits, feed %+v, %v; want none, the feed as it was", st.Edits()-edits, got, err)
	}
	if code, b := send(t, admin, http.MethodDelete, "/api/v1/feeds/"+f.ID, ""); code != http.StatusOK || !strings.Contains(b, `"items_removed":0`) {
		t.Fatalf("unsubscribe: %d %s", code, b)
	}
	if code, b := send(t, admin, http.MethodDelete, "/api/v1/feeds/"+f.ID, ""); code != http.StatusNotFound || !strings.Contains(b, `"field":"id"`) {
		t.Errorf("unsubscribe again: %d %s, want 404 naming id", code, b)
	}
	if list, _ := st.List(t.Context()); len(list) != 0 {
		t.Errorf("feeds after unsubscribing: %+v, want none", list)
	}
}

// GET /api/v1/feeds lists the feeds a page at a time: each page's "next"
// starts the following one, the last has none, and together they list
// every feed once, by id.
func TestFeedListPages(t *testing.T) {
	db, st := newFeedStore(t)
	t0 := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	var want []string
	for i := range 5 {
		f, _, err := st.Add(t.Context(), fmt.Sprintf("http://x.test/%d.atom", i), feeds.AddOptions{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, f.ID)
	}
	slices.Sort(want)
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	var got []string
	var sizes []int
	after := ""
	for range 5 {
		code, b := get("/api/v1/feeds?limit=2&after=" + url.QueryEscape(after))
		var page struct {
			Feeds []feedView
			Next  *string
		}
		if code != 200 || json.Unmarshal([]byte(b), &page) != nil {
			t.Fatalf("page after %q: %d %s", after, code, b)
		}
		sizes = append(sizes, len(page.Feeds))
		for _, f := range page.Feeds {
			got = append(got, f.ID)
		}
		if page.Next == nil {
			break
		}
		after = *page.Next
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(sizes, []int{2, 2, 1}) {
		t.Errorf("pages of %v listed %v, want %v in pages of 2, 2, 1", sizes, got, want)
	}
	if code, b := get("/api/v1/feeds?limit=4"); code != 200 || !strings.Contains(b, `"next":"`+want[3]+`"`) {
		t.Errorf("limit 4 of 5: %d %s", code, b)
	}
	if code, b := get("/api/v1/feeds?limit=5"); code != 200 || strings.Contains(b, `"next"`) {
		t.Errorf("limit 5 of 5 offers a next page, which would be empty: %d %s", code, b)
	}
	for _, v := range []string{"0", "1001", "two"} {
		if code, b := get("/api/v1/feeds?limit=" + v); code != 400 || !strings.Contains(b, `"field":"limit","value":"`+v+`","limit":"`) ||
			!strings.Contains(b, `in [1, 1000]"`) {
			t.Errorf("limit=%s: %d %s", v, code, b)
		}
	}
}

// TestRiverAtomIDDoesNotComeFromTheHostHeader: the river's Atom id is the
// same whatever Host a request names, and its self link is https when the
// request came over TLS, as the watch feeds' links are.
func TestRiverAtomIDDoesNotComeFromTheHostHeader(t *testing.T) {
	db, st := newFeedStore(t)
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		srv  *httptest.Server
		self string
	}{
		{"over plain HTTP", httptest.NewServer(h), `<link rel="self" href="http://evil.example/feeds/river.atom">`},
		{"over TLS", httptest.NewTLSServer(h), `<link rel="self" href="https://evil.example/feeds/river.atom">`},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer c.srv.Close()
			req, err := http.NewRequestWithContext(t.Context(), "GET", c.srv.URL+"/feeds/river.atom", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = "evil.example"
			res, err := c.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if !strings.Contains(string(b), "<id>urn:deltaq:feed:river</id>") || strings.Contains(string(b), "<id>http") {
				t.Errorf("river.atom with Host: evil.example has the id\n%s\nwant urn:deltaq:feed:river", b)
			}
			if !strings.Contains(string(b), c.self) {
				t.Errorf("river.atom:\n%s\nwant the self link %s", b, c.self)
			}
		})
	}
}

// TestFeedChangesElsewhereSayWhere: a subscription change on the public
// listener is refused with 405 naming the admin listener (and, with it
// off, saying so); other methods no route takes answer as any API path.
func TestFeedChangesElsewhereSayWhere(t *testing.T) {
	db, st := newFeedStore(t)
	public, admin := withAdmin(t, Deps{Pages: db, Feeds: st})
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	alone := httptest.NewServer(h)
	defer alone.Close()
	for _, c := range []struct {
		name         string
		srv          *httptest.Server
		method, path string
		code         int
		want         string
	}{
		{"POST on the public listener", public, "POST", "/api/v1/feeds", 405, `"field":"method","value":"POST","limit":"GET, HEAD","message":"subscriptions change on the admin listener (server.admin.listen), not on this one"`},
		{"DELETE on the public listener", public, "DELETE", "/api/v1/feeds/0123456789abcdef", 405, `subscriptions change on the admin listener (server.admin.listen)`},
		{"POST with no admin listener", alone, "POST", "/api/v1/feeds", 405, `it is off: set server.admin.listen, or use deltaq feeds add and rm`},
		{"PUT on the public listener", public, "PUT", "/api/v1/feeds", 405, `"limit":"GET, HEAD"`},
		{"PUT on the admin listener", admin, "PUT", "/api/v1/feeds", 405, `"limit":"GET, HEAD, POST"`},
		{"PUT on the admin listener again", admin, "PUT", "/api/v1/feeds", 405, `"limit":"GET, HEAD, POST"`},
		{"PUT of a feed on the admin listener", admin, "PUT", "/api/v1/feeds/0123456789abcdef", 405, `"limit":"DELETE"`},
		{"PUT of a feed on the admin listener again", admin, "PUT", "/api/v1/feeds/0123456789abcdef", 405, `"limit":"DELETE"`},
		{"GET of a feed's path", public, "GET", "/api/v1/feeds/0123456789abcdef", 404, `no API route`},
		{"DELETE of an unknown feed on the admin listener", admin, "DELETE", "/api/v1/feeds/0123456789abcdef", 404, `no subscribed feed has this id`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, b := send(t, c.srv, c.method, c.path, `{"url": "http://y.test/feed.xml"}`); code != c.code || !strings.Contains(b, c.want) {
				t.Errorf("%s %s: %d %s, want %d with %s", c.method, c.path, code, b, c.code, c.want)
			}
		})
	}
}

// TestFeedListSaysWhatTheLastReadCut: a feed whose last read left items
// past feeds.max_items out says how many, in numbers and in words; one
// read whole says nothing of cuts.
func TestFeedListSaysWhatTheLastReadCut(t *testing.T) {
	db, st := newFeedStore(t)
	t0 := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	record := func(u string, items int) {
		f, _, err := st.Add(t.Context(), u, feeds.AddOptions{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>X</title>`)
		for i := range items {
			fmt.Fprintf(&b, `<item><title>i%d</title><guid>%d</guid><link>http://x.test/%d</link></item>`, i, i, i)
		}
		b.WriteString(`</channel></rss>`)
		if _, err := st.Record(t.Context(), f.ID, feeds.Fetch{At: t0, Status: 200, Body: []byte(b.String())}); err != nil {
			t.Fatal(err)
		}
	}
	record("http://x.test/big.rss", 12) // the store reads 10 items at most
	record("http://x.test/small.rss", 2)
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/api/v1/feeds")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct {
		Feeds []struct {
			URL      string
			LastCuts *feeds.Cuts `json:"last_cuts"`
			LastCut  string      `json:"last_cut"`
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || len(list.Feeds) != 2 {
		t.Fatalf("/api/v1/feeds: %v, %+v", err, list)
	}
	for _, f := range list.Feeds {
		switch f.URL {
		case "http://x.test/big.rss":
			if f.LastCuts == nil || f.LastCuts.Items != 2 || f.LastCuts.MaxItems != 10 || !strings.Contains(f.LastCut, "2 items past feeds.max_items (10)") {
				t.Errorf("big feed: cuts %+v, %q; want 2 items past the 10 read", f.LastCuts, f.LastCut)
			}
		default:
			if f.LastCuts != nil || f.LastCut != "" {
				t.Errorf("%s, read whole: cuts %+v, %q; want none", f.URL, f.LastCuts, f.LastCut)
			}
		}
	}
}

// TestFeedListSaysWhereAFeedMoved: a feed a permanent redirect moved
// shows the URL it moved from and when; one never moved shows neither,
// and shows the name and folders it was subscribed with.
func TestFeedListSaysWhereAFeedMoved(t *testing.T) {
	db, st := newFeedStore(t)
	t0 := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	const old, moved, stayed = "http://old.test/feed", "http://new.test/feed", "http://stay.test/feed"
	f, _, err := st.Add(t.Context(), old, feeds.AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Add(t.Context(), stayed, feeds.AddOptions{Name: "Stays", Folders: []string{"Tech", "Go"}}, t0); err != nil {
		t.Fatal(err)
	}
	// What the crawler stores when the old URL answers 301 and the new
	// one the feed.
	b := db.NewBatch(t.Context())
	defer b.Close()
	at := t0.Add(time.Hour)
	pages := []*repo.Page{
		{URL: old, State: repo.StateRedirect, LastFetch: at, LastOutcome: repo.OutcomeRedirect, HTTPStatus: 301, RedirectTo: moved},
		{URL: moved, State: repo.StateLive, LastFetch: at.Add(time.Minute), LastOutcome: repo.OutcomeOK, HTTPStatus: 200, Version: at.Add(time.Minute)},
	}
	body := `<?xml version="1.0"?><rss version="2.0"><channel><title>Moved</title><item><guid>a</guid><title>a</title></item></channel></rss>`
	if err := b.AddVersion(moved, &repo.Version{FetchedAt: at.Add(time.Minute), ContentType: "application/rss+xml", Body: []byte(body)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := b.PutPage(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if up, _, err := st.Absorb(t.Context(), f.ID); err != nil || len(up.Moves) != 1 {
		t.Fatalf("Absorb after the 301: moves %v, %v; want the feed moved", up.Moves, err)
	}
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/api/v1/feeds")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct{ Feeds []map[string]any }
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil || len(list.Feeds) != 2 {
		t.Fatalf("/api/v1/feeds: %v, %+v", err, list)
	}
	for _, v := range list.Feeds {
		switch v["url"] {
		case moved:
			if v["moved_from"] != old || v["moved"] != at.Format(time.RFC3339) {
				t.Errorf("the moved feed: moved_from %v, moved %v; want %s, %s", v["moved_from"], v["moved"], old, at.Format(time.RFC3339))
			}
			if _, ok := v["name"]; ok {
				t.Errorf("the moved feed, subscribed without a name, shows one: %v", v)
			}
		case stayed:
			for _, key := range []string{"moved_from", "moved"} {
				if _, ok := v[key]; ok {
					t.Errorf("the feed never moved shows %q: %v", key, v)
				}
			}
			if v["name"] != "Stays" || !reflect.DeepEqual(v["folders"], []any{"Tech", "Go"}) {
				t.Errorf("the named feed: name %v, folders %v; want Stays in Tech/Go", v["name"], v["folders"])
			}
		default:
			t.Errorf("an unexpected feed: %v", v)
		}
	}
}

// TestFeedAtomIsServedConditionally: the river and a feed's items as
// Atom carry an ETag and Last-Modified, a reader's If-None-Match or
// If-Modified-Since gets 304 while nothing changed (an ETag on a second
// If-None-Match line too), and 200 once an item came.
func TestFeedAtomIsServedConditionally(t *testing.T) {
	db, st := newFeedStore(t)
	t0 := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	f, _, err := st.Add(t.Context(), "http://x.test/feed.rss", feeds.AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	record := func(at time.Time, guids ...string) {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>X</title>`)
		for _, g := range guids {
			fmt.Fprintf(&b, `<item><title>%s</title><guid>%s</guid></item>`, g, g)
		}
		b.WriteString(`</channel></rss>`)
		if _, err := st.Record(t.Context(), f.ID, feeds.Fetch{At: at, Status: 200, Body: []byte(b.String())}); err != nil {
			t.Fatal(err)
		}
	}
	record(t0, "a")
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(path, header string, values ...string) (int, string, string) {
		req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			req.Header.Add(header, v)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("ETag"), res.Header.Get("Last-Modified")
	}
	paths := []string{"/feeds/river.atom", "/api/v1/river?format=atom", "/api/v1/feeds/" + f.ID + "/items?format=atom"}
	etags := map[string]string{}
	for _, p := range paths {
		code, etag, modified := get(p, "")
		if code != 200 || etag == "" || modified == "" {
			t.Fatalf("%s: %d, ETag %q, Last-Modified %q; want 200 with both", p, code, etag, modified)
		}
		etags[p] = etag
		if code, _, _ := get(p, "If-None-Match", etag); code != http.StatusNotModified {
			t.Errorf("%s with If-None-Match %s: %d, want 304", p, etag, code)
		}
		if code, _, _ := get(p, "If-None-Match", `"older"`, etag); code != http.StatusNotModified {
			t.Errorf("%s with If-None-Match %s on a second line: %d, want 304", p, etag, code)
		}
		if code, _, _ := get(p, "If-Modified-Since", modified); code != http.StatusNotModified {
			t.Errorf("%s with If-Modified-Since %s: %d, want 304", p, modified, code)
		}
	}
	record(t0.Add(time.Hour), "a", "b")
	for _, p := range paths {
		if code, etag, _ := get(p, "If-None-Match", etags[p]); code != 200 || etag == etags[p] {
			t.Errorf("%s after a new item, with the old ETag: %d, ETag %q; want 200 with another", p, code, etag)
		}
	}
}

// TestFeedAtomTakesAReadersOwnParameters: feed readers add parameters of
// their own to a feed's URL, so the items as Atom let one through, as
// the watch feeds do; asked for JSON, the same routes refuse it, and
// every route still refuses a parameter it reads given twice.
func TestFeedAtomTakesAReadersOwnParameters(t *testing.T) {
	db, st := newFeedStore(t)
	f, _, err := st.Add(t.Context(), "http://x.test/feed.rss", feeds.AddOptions{}, time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Feeds: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	items := "/api/v1/feeds/" + f.ID + "/items"
	for _, c := range []struct {
		path string
		code int
	}{
		{"/feeds/river.atom?utm_source=reader", 200},
		{"/api/v1/river?format=atom&utm_source=reader", 200},
		{items + "?format=atom&_=1733480000", 200},
		{"/api/v1/river?utm_source=reader", 400},
		{items + "?_=1733480000", 400},
		{"/api/v1/river?format=atom&limit=1&limit=2", 400},
		{items + "?format=atom&format=json", 400},
	} {
		if code, body := send(t, srv, "GET", c.path, ""); code != c.code {
			t.Errorf("%s: %d %s, want %d", c.path, code, body, c.code)
		}
	}
}
