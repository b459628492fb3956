package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// watchEnv is the watch API over a real repository, engine and matcher,
// watching pages of a small site on loopback.
type watchEnv struct {
	t       *testing.T
	srv     *httptest.Server
	engine  *watch.Engine
	matcher *alert.Matcher
	db      *repo.DB
	outbox  *notify.Outbox
	page    func(body string)
	answer  func(status int) // the page's status when not 200 (0: 200 again)
	pageURL string
}

func newWatchEnv(t *testing.T) *watchEnv {
	db, err := repo.Open(t.TempDir(), repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 1 << 20}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var mu sync.Mutex
	body := "<html><body><p>Apply by March 3.</p></body></html>"
	status := 0
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, body)
	}))
	t.Cleanup(site.Close)
	ob := notify.NewOutbox(db, notify.Config{MaxAttempts: 1, BackoffBase: time.Second, BackoffMax: time.Second, WebhookTimeout: time.Second, Batch: 8, FeedEntries: 10, MaxTargets: 3, Poll: time.Second, SMTP: notify.SMTPConfig{Timeout: time.Second}})
	wcfg := watch.Config{ContextWords: 10, PhraseMinWords: 5, MaxBodyBytes: 1 << 20, FetchTimeout: 5 * time.Second, MaxRegexBytes: 512,
		MaxMatchBytes: 4096, MaxKeywords: 8, Duration: 24 * time.Hour * 365, HistoryKept: 10, DigestKept: 10, MaxRequestBytes: 4096, Tick: time.Minute, ChecksPerTick: 10,
		Diff: diff.Options{Timeout: time.Second, MaxBytes: 64 << 10}, Extract: extract.Limits{MaxLinks: 100, MaxTextBytes: 1 << 16, MaxDepth: 64, MaxNodes: 10000}}
	e, err := watch.New(db, wcfg, ob, watch.Options{Fetcher: watch.HTTPFetcher{Client: site.Client(), MaxBytes: 1 << 20, MaxRedirects: 5}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	m, err := index.NewMapping(index.ScoringBM25)
	if err != nil {
		t.Fatal(err)
	}
	al, err := alert.New(t.Context(), db, alert.Config{MaxAlerts: 10, SnippetBytes: 100}, m.AnalyzerNamed(index.AnalyzerName), index.Limits{MaxBytes: 200, MaxTerms: 8}, ob, alert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: db, Watches: e, Alerts: al, Outbox: ob})
	if err != nil {
		t.Fatal(err)
	}
	env := &watchEnv{t: t, srv: httptest.NewServer(h), engine: e, matcher: al, db: db, outbox: ob, pageURL: site.URL + "/a"}
	t.Cleanup(env.srv.Close)
	env.page = func(b string) {
		mu.Lock()
		body = b
		mu.Unlock()
	}
	env.answer = func(code int) {
		mu.Lock()
		status = code
		mu.Unlock()
	}
	return env
}

func (e *watchEnv) key(user string, maxWatches int) string {
	k, err := e.engine.CreateKey(e.t.Context(), watch.Key{User: user, MaxWatches: maxWatches, MinEvery: time.Hour, MaxRegexBytes: 20})
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// call makes a request and decodes a JSON answer into out (if non-nil).
func (e *watchEnv) call(method, path, key, body string, out any) (int, string) {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
	return resp.StatusCode, string(b)
}

func TestWatchAPI(t *testing.T) {
	e := newWatchEnv(t)
	ada, bob := e.key("ada", 2), e.key("bob", 5)
	if code, _ := e.call("GET", "/api/v1/watches", "", "", nil); code != http.StatusUnauthorized {
		t.Errorf("no key: %d", code)
	}
	if code, _ := e.call("GET", "/api/v1/watches", "dqw_wrong", "", nil); code != http.StatusUnauthorized {
		t.Errorf("bad key: %d", code)
	}
	type watchOut struct {
		ID, User, URL, Type, Every, Until string
		Notify                            []string
		Installed                         time.Time
		LastCheck                         time.Time `json:"last_check"`
	}
	var s watchOut
	code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`","type":"words","every":"2h","notify":["feed"],"until":"2030-01-02"}`, &s)
	if code != http.StatusCreated || s.ID == "" || s.User != "ada" {
		t.Fatalf("create: %d %s", code, body)
	}
	// Read back, a watch says what its request said, in the request's
	// names and forms.
	var back watchOut
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID, ada, "", &back); code != http.StatusOK ||
		back.URL != e.pageURL || back.Type != "words" || back.Every != "2h0m0s" || back.Until != "2030-01-02T00:00:00Z" ||
		len(back.Notify) != 1 || back.Notify[0] != "feed" || back.LastCheck.IsZero() || !back.LastCheck.Equal(back.Installed) {
		t.Errorf("GET the watch: %d %s; want url, type words, every 2h0m0s, until 2030-01-02T00:00:00Z, notify [feed], last checked at install", code, body)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"url":"` + e.pageURL + `","type":"words","every":"10m"}`, `"field":"every","value":"10m0s","limit":"at least 1h0m0s","message":"every = 10m0s: this API key allows at least 1h0m0s"`},
		{`{"url":"` + e.pageURL + `","type":"regex","regex":"` + strings.Repeat("a", 21) + `","every":"2h"}`, `"field":"regex","value":"21 bytes","limit":"at most 20 bytes","message":"regex = 21 bytes: this API key allows at most 20 bytes"`},
		{`{"url":"` + e.pageURL + `","type":"colour","every":"2h"}`, `"field":"type"`},
		// The spec's own checks name their field, not "spec", with the
		// value and the limit.
		{`{"url":"` + e.pageURL + `","type":"words","every":"2h","min_change":2}`, `"field":"min_change","value":"2","limit":"in [0, 1]"`},
		{`{"url":"ftp://x/","every":"2h"}`, `"field":"url","value":"ftp://x/","limit":"an absolute http(s) URL"`},
		{`{"url":"` + e.pageURL + `","type":"words","every":"2h","select":"p:contains(x)"}`, `"field":"select"`},
		{`{"url":"` + e.pageURL + `","type":"any","every":"2h","direction":"sideways"}`, `"field":"direction"`},
		{`{"url":"` + e.pageURL + `","type":"words","every":"soon"}`, `"field":"every","value":"soon","limit":"a duration such as 30m or 6h, at most 2562047h"`},
		{`{"url":"` + e.pageURL + `","type":"words","every":"0s"}`, `"field":"every","value":"0s","limit":"a duration \u003e 0 such as 30m or 6h`},
		{`{"url":"` + e.pageURL + `","type":"words","until":"soon"}`, `"field":"until","value":"soon"`},
		{`{"url":"` + e.pageURL + `","type":"words","every":"2h","notify":["sms:1"]}`, `"field":"notify"`},
		{`{"url":"` + e.pageURL + `","kind":"words"}`, `"field":"kind"`},
		{`{"url":"` + e.pageURL + `","every":"9999999999h"}`, `"field":"every","value":"9999999999h","limit":"a duration such as 30m or 6h, at most 2562047h"`},
		{`{"url":"http://x.test/` + strings.Repeat("a", 2100) + `"}`, `"field":"url","value":"2114 bytes","limit":"at most 2048 bytes"`},
	} {
		if code, body := e.call("POST", "/api/v1/watches", ada, tc.body, nil); code != http.StatusBadRequest || !strings.Contains(body, tc.field) {
			t.Errorf("POST %s: %d %s, want 400 naming %s", tc.body, code, body, tc.field)
		}
	}
	// A page that cannot be fetched is refused naming url, the value and
	// what the page must do; a failed lookup without the resolver's
	// address.
	e.answer(http.StatusNotFound)
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`/gone"}`, nil); code != http.StatusBadRequest ||
		!strings.Contains(body, `"field":"url","value":"`+e.pageURL+`/gone","limit":"a page that answers 200 with HTML or text within watch.fetch_timeout (5s)"`) ||
		!strings.Contains(body, "404") {
		t.Errorf("POST a page that answers 404: %d %s, want 400 naming url and the status", code, body)
	}
	e.answer(0)
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"http://nosuch.invalid/"}`, nil); code != http.StatusBadRequest ||
		!strings.Contains(body, `"field":"url","value":"http://nosuch.invalid/"`) || !strings.Contains(body, "lookup nosuch.invalid: ") || strings.Contains(body, ":53") {
		t.Errorf("POST a page of an unknown host: %d %s, want 400 naming url and the lookup, not the resolver", code, body)
	}
	// Type and every left out: the whole page, a check a day wished for.
	var deflt watchOut
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`"}`, &deflt); code != http.StatusCreated ||
		deflt.Type != "any" || deflt.Every != "24h0m0s" {
		t.Errorf("POST with url alone: %d %s, want 201 with type any, every 24h0m0s", code, body)
	}
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`","type":"any","every":"2h"}`, nil); code != http.StatusBadRequest || !strings.Contains(body, `"field":"watches"`) {
		t.Errorf("third watch on a two-watch key: %d %s", code, body)
	}
	if code, _ := e.call("GET", "/api/v1/watches/"+s.ID, bob, "", nil); code != http.StatusNotFound {
		t.Errorf("another user's watch: %d, want 404", code)
	}

	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/history", ada, "", nil); code != 200 || !strings.Contains(body, `{"changes":[],"failures":[]}`) {
		t.Errorf("history of a watch without changes: %d %s, want changes [] and failures []", code, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/diff?n=1", ada, "", nil); code != 400 || !strings.Contains(body, `"field":"n","value":"1","limit":"none: no changes recorded yet"`) {
		t.Errorf("diff n=1 of a watch without changes: %d %s, want 400 saying there are none", code, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/diff?format=bogus", ada, "", nil); code != 400 || !strings.Contains(body, `"field":"format","value":"bogus","limit":"json or html"`) {
		t.Errorf("diff in an unknown format of a watch without changes: %d %s, want 400 naming the format", code, body)
	}
	e.page("<html><body><p>Apply by April 10.</p></body></html>")
	if _, err := e.engine.Check(t.Context(), e.pageURL); err != nil {
		t.Fatal(err)
	}
	var hist struct{ Changes []watch.Change }
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/history", ada, "", &hist); code != 200 || len(hist.Changes) != 1 {
		t.Fatalf("history: %d %s", code, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/diff?format=html&view=side", ada, "", nil); code != 200 || !strings.Contains(body, "<ins>april</ins>") || !strings.Contains(body, "<del>march</del>") {
		t.Errorf("side-by-side diff: %d %s", code, body)
	}
	var d diff.Result
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/diff", ada, "", &d); code != 200 || len(d.Added()) != 2 {
		t.Errorf("JSON diff: %d %s", code, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/diff?n=9", ada, "", nil); code != 400 || !strings.Contains(body, `"field":"n"`) {
		t.Errorf("diff n=9: %d %s", code, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/feed", ada, "", nil); code != 200 || !strings.Contains(body, "<feed") || strings.Count(body, "<entry>") != 1 {
		t.Errorf("feed: %d %s", code, body)
	}
	if code, _ := e.call("DELETE", "/api/v1/watches/"+s.ID, ada, "", nil); code != http.StatusNoContent {
		t.Errorf("delete: %d", code)
	}
	if code, _ := e.call("GET", "/api/v1/watches/"+s.ID, ada, "", nil); code != http.StatusNotFound {
		t.Errorf("deleted watch: %d", code)
	}
}

func TestAlertAPI(t *testing.T) {
	e := newWatchEnv(t)
	ada, bob := e.key("ada", 5), e.key("bob", 5)
	var a alertJSON
	if code, body := e.call("POST", "/api/v1/alerts", ada, `{"query":"\"plain language\" site:digital.gov","notify":["feed"]}`, &a); code != 201 || a.ID == "" ||
		a.Query != `"plain language" site:digital.gov` || !slices.Equal(a.Notify, []string{"feed"}) {
		t.Fatalf("create alert: %d %s, want it answered as asked, notify [\"feed\"]", code, body)
	}
	var every alertJSON
	if code, body := e.call("POST", "/api/v1/alerts", ada, `{"query":"accessibility","notify":["feed"],"every_change":true}`, &every); code != 201 || a.EveryChange || !every.EveryChange {
		t.Errorf("create an alert on every change: %d %s; the first %+v; want every_change false, then true", code, body, a)
	}
	if code, _ := e.call("DELETE", "/api/v1/alerts/"+every.ID, ada, "", nil); code != 204 {
		t.Errorf("delete: %d", code)
	}
	// A refused query names the field and repeats the value, as other
	// refusals do.
	if code, body := e.call("POST", "/api/v1/alerts", ada, `{"query":"\"unclosed"}`, nil); code != 400 || !strings.Contains(body, "bad_query") ||
		!strings.Contains(body, `"field":"query","value":"\"unclosed"`) {
		t.Errorf("bad query: %d %s, want bad_query naming the field query and its value", code, body)
	}
	// An alert sent nowhere could never be read: refused, naming notify.
	if code, body := e.call("POST", "/api/v1/alerts", ada, `{"query":"accessibility","notify":[]}`, nil); code != 400 ||
		!strings.Contains(body, `"field":"notify","value":"(0 targets)","limit":"at least 1`) {
		t.Errorf("an alert without a target: %d %s, want 400 naming notify and its 0 targets", code, body)
	}
	var list struct{ Alerts []alertJSON }
	if e.call("GET", "/api/v1/alerts", ada, "", &list); len(list.Alerts) != 1 || !slices.Equal(list.Alerts[0].Notify, []string{"feed"}) {
		t.Errorf("ada's alerts %+v, want hers, notify [\"feed\"]", list.Alerts)
	}
	list.Alerts = nil
	if e.call("GET", "/api/v1/alerts", bob, "", &list); len(list.Alerts) != 0 {
		t.Errorf("bob sees %d of ada's alerts", len(list.Alerts))
	}
	if code, _ := e.call("DELETE", "/api/v1/alerts/"+a.ID, bob, "", nil); code != 404 {
		t.Errorf("bob deletes ada's alert: %d", code)
	}

	// The alert's own feed holds what it sent to the feed target (as the
	// matcher files it), for its owner alone.
	b := e.db.NewBatch(t.Context())
	n := &notify.Notification{ID: "n1", Source: "alert:" + a.ID, User: "ada", URL: "http://digital.gov/plain", Title: "Plain language",
		Kind: "alert", Change: "new page", At: time.Now(), Targets: []notify.Target{{Kind: notify.Feed}}, Feeds: []string{"alert:" + a.ID, "user:ada"}}
	if err := e.outbox.Enqueue(b, n); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if code, body := e.call("GET", "/api/v1/alerts/"+a.ID+"/feed", ada, "", nil); code != 200 || !strings.Contains(body, "<feed") || !strings.Contains(body, "http://digital.gov/plain") {
		t.Errorf("the alert's feed: %d %s, want Atom with the page it matched", code, body)
	}
	for _, c := range []struct{ key, id string }{{bob, a.ID}, {ada, "nope"}} {
		if code, body := e.call("GET", "/api/v1/alerts/"+c.id+"/feed", c.key, "", nil); code != 404 || !strings.Contains(body, `"value":"`+c.id+`"`) {
			t.Errorf("feed of alert %s by another user or unknown: %d %s, want 404 naming it", c.id, code, body)
		}
	}

	if code, _ := e.call("DELETE", "/api/v1/alerts/"+a.ID, ada, "", nil); code != 204 {
		t.Errorf("delete: %d", code)
	}
}

// TestKeyLimitsHoldUnderParallelRequests sends many creations at once on
// one key: exactly the key's limit of watches and of alerts is created,
// where counting and adding without holding a lock across both let
// parallel requests all pass the count.
func TestKeyLimitsHoldUnderParallelRequests(t *testing.T) {
	e := newWatchEnv(t)
	const limit, parallel = 5, 40
	key := e.key("ada", limit)
	for _, c := range []struct{ path, body, field string }{
		{"/api/v1/watches", `{"url":"` + e.pageURL + `","type":"words","every":"2h"}`, `"field":"watches","value":"6","limit":"at most 5","message":"watches = 6: this API key allows at most 5"`},
		{"/api/v1/alerts", `{"query":"accessibility","notify":["feed"]}`, `"field":"alerts","value":"6","limit":"at most 5","message":"alerts = 6: this API key allows at most 5"`},
	} {
		codes := make([]int, parallel)
		var wg sync.WaitGroup
		for i := range parallel {
			wg.Go(func() {
				req, err := http.NewRequestWithContext(t.Context(), "POST", e.srv.URL+c.path, strings.NewReader(c.body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := e.srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if codes[i] = resp.StatusCode; resp.StatusCode != http.StatusCreated && !strings.Contains(string(b), c.field) {
					t.Errorf("POST %s: %d %s, want 201 or 400 naming %s", c.path, resp.StatusCode, b, c.field)
				}
			})
		}
		wg.Wait()
		created := 0
		for _, code := range codes {
			if code == http.StatusCreated {
				created++
			}
		}
		if created != limit {
			t.Errorf("%d parallel POST %s on a key of %d: %d created, want %d", parallel, c.path, limit, created, limit)
		}
	}
	ss, err := e.engine.List(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != limit || e.matcher.Count("ada") != limit {
		t.Errorf("stored: %d watches, %d alerts; want %d of each", len(ss), e.matcher.Count("ada"), limit)
	}
}

// TestNotifyTargetsAreBounded: a watch or an alert takes at most
// notify.max_targets targets, each one delivery per change; one more is
// refused naming notify, the count and the limit, and nothing is created.
func TestNotifyTargetsAreBounded(t *testing.T) {
	e := newWatchEnv(t)
	key := e.key("ada", 5)
	targets := func(n int) string {
		var ts []string
		for i := range n {
			ts = append(ts, fmt.Sprintf(`"webhook:https://hooks.example/%d"`, i))
		}
		return "[" + strings.Join(ts, ",") + "]"
	}
	for _, c := range []struct{ path, body string }{
		{"/api/v1/watches", `{"url":"` + e.pageURL + `","type":"words","every":"2h","notify":`},
		{"/api/v1/alerts", `{"query":"accessibility","notify":`},
	} {
		code, body := e.call("POST", c.path, key, c.body+targets(4)+`}`, nil)
		if code != http.StatusBadRequest || !strings.Contains(body, `"field":"notify","value":"(4 targets)","limit":"at most 3 (notify.max_targets)"`) {
			t.Errorf("POST %s with 4 targets: %d %s, want 400 naming notify, 4 targets and the limit 3", c.path, code, body)
		}
		if code, body := e.call("POST", c.path, key, c.body+targets(3)+`}`, nil); code != http.StatusCreated {
			t.Errorf("POST %s with 3 targets: %d %s, want 201", c.path, code, body)
		}
	}
	if ss, err := e.engine.List(t.Context(), "ada"); err != nil || len(ss) != 1 || e.matcher.Count("ada") != 1 {
		t.Errorf("stored: %d watches (%v), %d alerts; want one of each", len(ss), err, e.matcher.Count("ada"))
	}
}

// TestAlertsBeyondTheServersCapacityAnswer400: with the server's
// alert.max_alerts (10 here) held, another user's alert is refused
// naming the limit, where it answered 500.
func TestAlertsBeyondTheServersCapacityAnswer400(t *testing.T) {
	e := newWatchEnv(t)
	for _, user := range []string{"ada", "bob"} {
		k := e.key(user, 5)
		for i := range 5 {
			if code, body := e.call("POST", "/api/v1/alerts", k, fmt.Sprintf(`{"query":"word%d %s","notify":["feed"]}`, i, user), nil); code != 201 {
				t.Fatalf("%s's alert %d: %d %s", user, i, code, body)
			}
		}
	}
	code, body := e.call("POST", "/api/v1/alerts", e.key("carol", 5), `{"query":"accessibility","notify":["feed"]}`, nil)
	if code != http.StatusBadRequest || !strings.Contains(body, `"field":"alerts","value":"11","limit":"at most 10 on this server (alert.max_alerts)"`) {
		t.Fatalf("an alert past the server's capacity: %d %s", code, body)
	}
}

// TestFailedChecksShowInTheHistory: checks of a page that answers 503 are
// in its watch's history, in the JSON API and on the watch's page, as one
// entry with their count; they are no change, and put nothing in the feed.
func TestFailedChecksShowInTheHistory(t *testing.T) {
	e := newWatchEnv(t)
	ada := e.key("ada", 5)
	var s struct{ ID string }
	if code, body := e.call("POST", "/api/v1/watches", ada, `{"url":"`+e.pageURL+`","every":"2h","notify":["feed"]}`, &s); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	e.answer(http.StatusServiceUnavailable)
	for range 2 {
		if _, err := e.engine.Check(t.Context(), e.pageURL); err == nil {
			t.Fatal("a check of a page answering 503 succeeded")
		}
	}
	var hist struct {
		Changes  []watch.Change
		Failures []watch.Failure
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/history", ada, "", &hist); code != 200 || len(hist.Changes) != 0 ||
		len(hist.Failures) != 1 || hist.Failures[0].Count != 2 || hist.Failures[0].Kind != watch.FailStatus ||
		!strings.Contains(hist.Failures[0].Error, "status 503") || !strings.Contains(body, `"failures":[{"first":"`) {
		t.Errorf("history: %d %s; want no change and one failure entry of 2, status 503", code, body)
	}
	if resp, body := e.get("/watches/"+s.ID, ada); resp.StatusCode != 200 || !strings.Contains(body, `id="failures"`) ||
		!strings.Contains(body, `<td class="count">2</td><td class="kind">status</td>`) || !strings.Contains(body, "status 503") {
		t.Errorf("watch page: %d, want the failed checks listed\n%s", resp.StatusCode, body)
	}
	if code, body := e.call("GET", "/api/v1/watches/"+s.ID+"/feed", ada, "", nil); code != 200 || strings.Contains(body, "<entry>") {
		t.Errorf("feed after failed checks: %d %s; want no entry", code, body)
	}
}
