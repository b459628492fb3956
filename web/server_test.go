package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/httpserver"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
)

var testConfig = Config{
	Listen: "127.0.0.1:0",
	HTTP: httpserver.Config{ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		IdleTimeout: time.Second, MaxHeaderBytes: 1 << 16, ShutdownTimeout: time.Second},
	SearchTimeout: time.Second, MaxQueryBytes: 1000, MaxSize: 100, Candidates: 1000, DefaultSize: 10,
}

// fakeSearch returns total results numbered from the requested offset, with
// snippets that try to inject markup.
type fakeSearch struct {
	total    int
	pageable int      // 0: all of total
	estimate bool     // the total is not exact
	partial  []string // cluster nodes that did not answer
	last     Request
}

func (f *fakeSearch) Check(r Request) error {
	if strings.Contains(r.Query, `"unclosed`) {
		return fmt.Errorf("parse: %w", &InputError{Code: CodeBadQuery, Field: "q", Message: "unclosed quote"})
	}
	return nil
}

func (f *fakeSearch) Search(_ context.Context, r Request) (Response, error) {
	f.last = r
	if err := f.Check(r); err != nil {
		return Response{}, err
	}
	var res Response
	res.Total, res.TotalExact, res.Pageable, res.Partial = uint64(f.total), !f.estimate, f.pageable, f.partial
	for i := (r.Page - 1) * r.Size; i < min(f.total, r.Page*r.Size); i++ {
		res.Results = append(res.Results, Result{
			URL:     fmt.Sprintf("http://a.test/%d", i),
			Title:   fmt.Sprintf("Result <b>%d</b>", i),
			Snippet: fmt.Sprintf(`about <mark>%s</mark> <script>alert(1)</script><img src=x onerror=alert(2)> &amp; more`, r.Query),
			Score:   1 / float64(i+1),
		})
	}
	return res, nil
}

// memRepo is an empty in-memory repository, closed when the test ends.
func memRepo(t *testing.T) *repo.DB {
	t.Helper()
	db, err := repo.Open("", repo.Config{VersionsKept: 2, FetchLogKept: 4, StatsKept: 4, CacheBytes: 1 << 20}, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newTestServer(t *testing.T, fs *fakeSearch, pages Pages) *httptest.Server {
	t.Helper()
	if pages == nil {
		pages = memRepo(t)
	}
	s, err := New(testConfig, Deps{Search: fs, Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// withAdmin serves deps, with an admin listener, on two test servers
// closed when the test ends: the public handler and the admin one. A nil
// Search or Pages is a fake one or an empty repository.
func withAdmin(t *testing.T, deps Deps) (public, admin *httptest.Server) {
	t.Helper()
	cfg := testConfig
	cfg.Admin.Listen = "127.0.0.1:0" // served by httptest instead
	if deps.Search == nil {
		deps.Search = &fakeSearch{}
	}
	if deps.Pages == nil {
		deps.Pages = memRepo(t)
	}
	h, err := New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	public, admin = httptest.NewServer(h), httptest.NewServer(h.Admin())
	t.Cleanup(public.Close)
	t.Cleanup(admin.Close)
	return public, admin
}

// send makes a request with body and returns the status and the answer.
func send(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func get(t *testing.T, srv *httptest.Server, path string) (int, string, http.Header) {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func TestBadSearchInputAnswers400NamingFieldAndLimit(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 5}, nil)
	const fieldsLimit = "comma-separated, each once, of url, title, snippet, snippet_text, highlights, matched_terms, score, fetched_at, promoted, click_url"
	long := strings.Repeat("a", 1001)
	for _, c := range []struct {
		name, query                         string
		code, field, value, limit, contains string
	}{
		{"missing q", "", CodeMissingParameter, "q", "", "", "missing"},
		{"blank q", "q=%20%20", CodeMissingParameter, "q", "", "", "missing"},
		{"q over 1000 bytes", "q=" + long, CodeBadParameter, "q", "1001 bytes", "<= 1000 bytes", "1001 bytes: longer than the 1000-byte limit"},
		{"q over 1000 bytes once invalid bytes read as U+FFFD", "q=" + strings.Repeat("%ff+", 400), CodeBadParameter, "q", "800 bytes as sent, 1599 as read", "<= 1000 bytes", "1599 bytes once its bytes that are not UTF-8 read as U+FFFD"},
		{"size zero", "q=x&size=0", CodeBadParameter, "size", "0", "in [1, 100]", "0 is outside [1, 100]"},
		{"size over 100", "q=x&size=101", CodeBadParameter, "size", "101", "in [1, 100]", "101 is outside [1, 100]"},
		{"size not a number", "q=x&size=ten", CodeBadParameter, "size", "ten", "a whole number in [1, 100]", `"ten" is not a whole number`},
		{"page a whole number out of int's range", "q=x&page=99999999999999999999", CodeBadParameter, "page", "99999999999999999999", "in [1, 100] (ranking.candidates = 1000 at size 10)", "99999999999999999999 is outside [1, 100]"},
		{"page zero", "q=x&page=0", CodeBadParameter, "page", "0", "in [1, 100] (ranking.candidates = 1000 at size 10)", "0 is outside [1, 100]"},
		{"page past the ranking's 1000", "q=x&page=101", CodeBadParameter, "page", "101", "in [1, 100] (ranking.candidates = 1000 at size 10)", "101 is outside [1, 100]"},
		{"page past the ranking's 1000 at size 100", "q=x&size=100&page=11", CodeBadParameter, "page", "11", "in [1, 10] (ranking.candidates = 1000 at size 100)", "11 is outside [1, 10]"},
		{"syntax error from the engine", "q=%22unclosed", CodeBadQuery, "q", "", "", "unclosed quote"},
		// A query string that does not parse used to read as a missing q
		// or a default size.
		{"bad escape", "q=%zz", CodeBadParameter, "query string", "q=%zz", "", `invalid URL escape "%zz"`},
		{"semicolon", "q=x&size=5;x", CodeBadParameter, "query string", "q=x&size=5;x", "", "invalid semicolon separator"},
		{"size twice", "q=x&size=5&size=abc", CodeBadParameter, "size", "5, abc", "once", "given 2 times"},
		{"q twice", "q=x&q=y", CodeBadParameter, "q", "x, y", "once", "given 2 times"},
		{"unknown field", "q=x&fields=url,body", CodeBadParameter, "fields", "body", fieldsLimit, `"body" is not a result field`},
		{"field named twice", "q=x&fields=url,+title,url", CodeBadParameter, "fields", "url", fieldsLimit, `"url" is named twice`},
		{"empty field", "q=x&fields=url,", CodeBadParameter, "fields", "url,", fieldsLimit, `"url," names an empty field`},
		{"empty field between commas", "q=x&fields=url,,title", CodeBadParameter, "fields", "url,,title", fieldsLimit, `"url,,title" names an empty field`},
		{"fields twice", "q=x&fields=url&fields=title", CodeBadParameter, "fields", "url, title", "once", "given 2 times"},
		// A misspelt parameter was ignored: ?sizee=3 gave the default 10.
		{"a parameter search does not take", "q=x&sizee=3", CodeBadParameter, "sizee", "3", "q, page, size, fields", "not a parameter of GET /api/v1/search, which takes q, page, size, fields"},
		// Search takes no key: a watch feed token sent to it is as foreign
		// as any other parameter.
		{"a feed token", "q=x&token=tok_abc", CodeBadParameter, "token", "tok_abc", "q, page, size, fields", "not a parameter of GET /api/v1/search, which takes q, page, size, fields"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body, h := get(t, srv, "/api/v1/search?"+c.query)
			if code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", code, body)
			}
			if !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
				t.Fatalf("content type %q", h.Get("Content-Type"))
			}
			var e errorBody
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("not JSON: %s", body)
			}
			got := e.Error
			if got.Code != c.code || got.Field != c.field || got.Value != c.value || got.Limit != c.limit || !strings.Contains(got.Message, c.contains) {
				t.Fatalf("error %+v, want code %q, field %q, value %q, limit %q and %q", got, c.code, c.field, c.value, c.limit, c.contains)
			}
		})
	}
}

func TestUnknownAPIPathsAndMethodsAnswerJSON(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 1}, nil)
	for _, c := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/api/v1/nope", 404, CodeNotFound, ""},
		{"GET", "/api/v2/search?q=x", 404, CodeNotFound, ""},
		{"POST", "/api/v1/search?q=x", 405, CodeMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/api/v1/page?url=http://a.test/", 405, CodeMethodNotAllowed, "GET, HEAD"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), c.method, srv.URL+c.path, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var e errorBody
			if err := json.NewDecoder(res.Body).Decode(&e); err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d, %s: not a JSON error (%v)", res.StatusCode, res.Header.Get("Content-Type"), err)
			}
			if res.StatusCode != c.status || e.Error.Code != c.code || res.Header.Get("Allow") != c.allow || e.Error.Message == "" {
				t.Fatalf("status %d, error %+v, Allow %q; want %d, %s, Allow %q", res.StatusCode, e.Error, res.Header.Get("Allow"), c.status, c.code, c.allow)
			}
		})
	}
	// Outside /api/ an unknown path is the search page, saying so (it was
	// net/http's plain text).
	want := `<p class="error" id="error">path: no page at /nope&lt;b&gt;</p>`
	if code, body, _ := get(t, srv, "/nope<b>"); code != 404 || !strings.Contains(body, want) || !strings.Contains(body, `<form`) {
		t.Fatalf("/nope<b>: %d, want 404 and the search page with %s:\n%s", code, want, body)
	}
}

// TestMethodNotAllowedAnswersInTheFormOfThePath: a method a path does not
// take answers 405 with Allow, on the search page outside /api/ (where it
// was net/http's plain text) and in JSON under /api/ and on the click
// links, whose other errors are JSON too.
func TestMethodNotAllowedAnswersInTheFormOfThePath(t *testing.T) {
	h, err := New(testConfig, Deps{Search: &fakeSearch{}, Pages: memRepo(t), Signer: newSigner(t), Clicks: &clickLog{}})
	if err != nil {
		t.Fatal(err)
	}
	public := httptest.NewServer(h)
	t.Cleanup(public.Close)
	_, admin := withAdmin(t, Deps{})
	for _, c := range []struct {
		name        string
		srv         *httptest.Server
		method, url string
		json        bool
		allow       string
	}{
		{"POST of the search page", public, "POST", "/", false, "GET, HEAD"},
		{"DELETE of the health check", public, "DELETE", "/healthz", false, "GET, HEAD"},
		{"PUT of the explain view on the admin listener", admin, "PUT", "/explain?url=http://a.test/", false, "GET, HEAD"},
		{"POST of a result click", public, "POST", ranking.RedirectPath, true, "GET, HEAD"},
		{"POST of the search API", public, "POST", "/api/v1/search?q=x", true, "GET, HEAD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), c.method, c.srv.URL+c.url, nil)
			res, err := c.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			body, ctype := string(b), res.Header.Get("Content-Type")
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != c.allow {
				t.Fatalf("status %d, Allow %q; want 405, Allow %q", res.StatusCode, res.Header.Get("Allow"), c.allow)
			}
			path, _, _ := strings.Cut(c.url, "?")
			if c.json {
				var e errorBody
				if err := json.Unmarshal(b, &e); err != nil || !strings.HasPrefix(ctype, "application/json") {
					t.Fatalf("%s: not a JSON error (%v): %s", ctype, err, body)
				}
				want := apiError{Code: CodeMethodNotAllowed, Field: "method", Value: c.method, Limit: c.allow, Message: path + " does not accept " + c.method}
				if e.Error != want {
					t.Fatalf("error %+v, want %+v", e.Error, want)
				}
				return
			}
			want := `<p class="error" id="error">method: ` + path + " does not accept " + c.method + " (limit " + c.allow + ")</p>"
			if !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, want) {
				t.Fatalf("%s, want the search page with %s:\n%s", ctype, want, body)
			}
		})
	}
}

func TestSearchJSONShape(t *testing.T) {
	fs := &fakeSearch{total: 25}
	srv := newTestServer(t, fs, nil)
	code, body, _ := get(t, srv, "/api/v1/search?q=tar&page=3&size=10")
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var res struct {
		Query   string  `json:"query"`
		Total   uint64  `json:"total"`
		TookMS  float64 `json:"took_ms"`
		Page    int     `json:"page"`
		Size    int     `json:"size"`
		Results []struct {
			URL, Title, Snippet string
			Score               float64
			FetchedAt           time.Time `json:"fetched_at"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	if res.Query != "tar" || res.Total != 25 || res.Page != 3 || res.Size != 10 || len(res.Results) != 5 || res.Results[0].URL != "http://a.test/20" {
		t.Fatalf("response = %+v", res)
	}
	if fs.last.Page != 3 || fs.last.Size != 10 {
		t.Fatalf("backend got %+v", fs.last)
	}
}

// TestSearchAnswerStatesItsLength: a search answer larger than the
// server's chunking buffer comes with its Content-Length, not in chunks.
func TestSearchAnswerStatesItsLength(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 500}, nil)
	res, err := http.Get(srv.URL + "/api/v1/search?q=tar&size=100")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) < 8<<10 || res.ContentLength != int64(len(body)) || len(res.TransferEncoding) != 0 {
		t.Fatalf("%d bytes answered with Content-Length %d, transfer encoding %q", len(body), res.ContentLength, res.TransferEncoding)
	}
}

func TestXSSProbeComesBackEscaped(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 3}, nil)
	probe := `<script>alert("x")</script>`
	_, body, _ := get(t, srv, "/api/v1/search?q="+url.QueryEscape(probe))
	if strings.Contains(body, "<script>") {
		t.Fatalf("JSON carries a raw <script>: %s", body)
	}
	code, page, h := get(t, srv, "/?q="+url.QueryEscape(probe))
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "onerror") || strings.Contains(page, "<img") || strings.Contains(page, "<b>") {
		t.Fatalf("HTML page carries unescaped markup:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Fatalf("the query is not shown escaped")
	}
	if !strings.Contains(page, "<mark>") {
		t.Fatal("snippet highlights were lost")
	}
	if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatal("no Content-Security-Policy")
	}
}

func TestHTMLPaginationAndUserCookie(t *testing.T) {
	fs := &fakeSearch{total: 35}
	srv := newTestServer(t, fs, nil)
	res, err := http.Get(srv.URL + "/?q=tar&page=2")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(b)
	var uid string
	for _, c := range res.Cookies() {
		if c.Name == UserCookie {
			uid = c.Value
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Errorf("user cookie flags: %+v", c)
			}
		}
	}
	if fs.last.User != uid {
		t.Errorf("a new visitor's first search ran as user %q, not the id its cookie got (%q)", fs.last.User, uid)
	}
	// Asked without the cookie, the page links carry its id (pageUser).
	for _, want := range []string{`35 results in`, `start="11"`, `href="/?page=1&amp;q=tar&amp;u=` + uid + `" rel="prev"`, `href="/?page=3&amp;q=tar&amp;u=` + uid + `" rel="next"`, `<span aria-current="page">2</span>`, "Result &lt;b&gt;10&lt;/b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page 2 lacks %q", want)
		}
	}
	if strings.Contains(page, `page=5`) {
		t.Error("links past the last page (4)")
	}
	req, _ := http.NewRequest("GET", srv.URL+"/?q=tar&page=2", nil)
	req.AddCookie(&http.Cookie{Name: UserCookie, Value: uid})
	if got, ok := UserFromRequest(req); !ok || got != uid {
		t.Fatalf("the user id cookie set (%q) is not one ranking accepts", uid)
	}
	// With the cookie, they carry none.
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if want := `href="/?page=3&amp;q=tar" rel="next"`; !strings.Contains(string(b), want) || fs.last.User != uid {
		t.Errorf("page 2 asked with the cookie: user %q, want %q, and links like %q", fs.last.User, uid, want)
	}
	// The home page without a query shows the form and no results.
	code, home, _ := get(t, srv, "/")
	if code != 200 || !strings.Contains(home, `<input type="search" name="q"`) || strings.Contains(home, `id="results"`) {
		t.Fatalf("home page: %d", code)
	}
}

func TestPageReport(t *testing.T) {
	db := memRepo(t)
	at := time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(context.Background())
	b.PutPage(&repo.Page{URL: "http://a.test/p", State: repo.StateLive, Fetches: 1, LastFetch: at, Version: at, Title: "P"})
	b.AddVersion("http://a.test/p", &repo.Version{FetchedAt: at, Title: "P", Text: "text"})
	b.LogFetch("http://a.test/p", &repo.FetchRecord{At: at, Outcome: repo.OutcomeOK, HTTPStatus: 200, Difference: -1})
	b.SetOutLinks("http://a.test/p", []repo.Link{{URL: "http://a.test/q"}})
	b.PutDeltaQ("http://a.test/p", &repo.DeltaQ{At: at, LastFetch: at.Add(-time.Hour), Value: 0.25, Terms: 3})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, &fakeSearch{}, db)
	code, body, _ := get(t, srv, "/api/v1/page?url="+url.QueryEscape("HTTP://A.test:80/p#frag"))
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var rep PageReport
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.URL != "http://a.test/p" || rep.State != "live" || len(rep.History) != 1 || len(rep.Versions) != 1 ||
		len(rep.LinksOut) != 1 || rep.LinksOut[0].Kind != "anchor" || len(rep.DeltaQ) != 1 || rep.DeltaQ[0].Value != 0.25 {
		t.Fatalf("report = %+v", rep)
	}
	if code, _, _ := get(t, srv, "/api/v1/page?url="+url.QueryEscape("http://a.test/unknown")); code != 404 {
		t.Fatalf("unknown page: %d, want 404", code)
	}
	for _, q := range []string{"", "url=ftp%3A%2F%2Fa.test%2F", "url=" + strings.Repeat("x", 3000)} {
		if code, body, _ := get(t, srv, "/api/v1/page?"+q); code != 400 || !strings.Contains(body, `"field":"url"`) || !strings.Contains(body, `"code":"`) || len(body) > 1000 {
			t.Fatalf("/api/v1/page?%.30s: %d %s", q, code, body)
		}
	}
}

func TestOpenSearchHealthAndMetrics(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 1}, nil)
	get(t, srv, "/api/v1/search?q=x")
	if code, body, _ := get(t, srv, "/opensearch.xml"); code != 200 || !strings.Contains(body, "/?q={searchTerms}") {
		t.Fatalf("opensearch: %d %s", code, body)
	}
	if code, body, _ := get(t, srv, "/healthz"); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Fatalf("healthz: %d %q", code, body)
	}
	code, body, _ := get(t, srv, "/metrics")
	if code != 200 || !strings.Contains(body, `deltaq_search_request_duration_seconds_count{code="200",route="api"} 1`) {
		t.Fatalf("metrics: %d\n%s", code, body)
	}
	if code, _, _ := get(t, srv, "/nope"); code != 404 {
		t.Fatalf("unknown path: %d", code)
	}
	res, err := http.Post(srv.URL+"/api/v1/search?q=x", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST search: %d, want 405", res.StatusCode)
	}
}

func TestInvalidUTF8InTheQueryIsNotEchoed(t *testing.T) {
	fs := &fakeSearch{total: 2}
	srv := newTestServer(t, fs, nil)
	for _, path := range []string{"/?q=caf%E9+%FF%FEbar", "/api/v1/search?q=caf%E9+%FF%FEbar"} {
		code, body, _ := get(t, srv, path)
		if code != 200 {
			t.Fatalf("%s: status %d: %s", path, code, body)
		}
		if !utf8.ValidString(body) {
			t.Fatalf("%s: the answer is not valid UTF-8: %q", path, body)
		}
		if !strings.Contains(body, "caf\uFFFD") {
			t.Fatalf("%s: the invalid bytes were not replaced by U+FFFD", path)
		}
		if !utf8.ValidString(fs.last.Query) {
			t.Fatalf("%s: the engine was asked %q", path, fs.last.Query)
		}
	}
}

func TestHighlightsBesideTheSnippet(t *testing.T) {
	text, spans, terms := highlights(`a <mark>Tar</mark> x &amp; <b>y</b> <mark>gz</mark> <mark>tar</mark> café <mark>é</mark>`)
	if text != "a Tar x & y gz tar café é" {
		t.Fatalf("text %q", text)
	}
	var marked []string
	for _, s := range spans {
		marked = append(marked, text[s.Start:s.End])
	}
	if !slices.Equal(marked, []string{"Tar", "gz", "tar", "é"}) || !slices.Equal(terms, []string{"tar", "gz", "é"}) {
		t.Fatalf("spans cover %q, terms %q", marked, terms)
	}

	srv := newTestServer(t, &fakeSearch{total: 3}, nil)
	_, body, _ := get(t, srv, "/api/v1/search?q=tar")
	var res struct {
		Results []struct {
			SnippetText  string   `json:"snippet_text"`
			Highlights   []Span   `json:"highlights"`
			MatchedTerms []string `json:"matched_terms"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	r := res.Results[0]
	if len(r.Highlights) != 1 || r.SnippetText[r.Highlights[0].Start:r.Highlights[0].End] != "tar" || !slices.Equal(r.MatchedTerms, []string{"tar"}) {
		t.Fatalf("result %+v", r)
	}
}

func TestTotalSaysWhetherItIsExactAndHowFarPagesReach(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 5000, pageable: 25, estimate: true}, nil)
	_, body, _ := get(t, srv, "/api/v1/search?q=tar")
	var res struct {
		Total      uint64 `json:"total"`
		TotalExact *bool  `json:"total_exact"`
		Pageable   int    `json:"pageable"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	if res.Total != 5000 || res.TotalExact == nil || *res.TotalExact || res.Pageable != 25 {
		t.Fatalf("total %d, exact %v, pageable %d; want 5000, false, 25", res.Total, res.TotalExact, res.Pageable)
	}
	_, page, _ := get(t, srv, "/?q=tar&page=2")
	if !strings.Contains(page, "about 5000 results (the first 25 shown)") {
		t.Fatal("the page does not say the total is estimated and how many are shown")
	}
	if !strings.Contains(page, `page=3`) || strings.Contains(page, `page=4`) {
		t.Fatal("pagination does not stop at the 3 pages the 25 pageable results fill")
	}
	_, exact, _ := get(t, newTestServer(t, &fakeSearch{total: 7}, nil), "/?q=tar")
	if !strings.Contains(exact, ">7 results in") {
		t.Fatal("an exact total is not shown plainly")
	}
}

// TestPagesRefuseAQueryStringThatDoesNotParse: the HTML search page, like
// the API, answers 400 naming the query string, where it used to show
// the form as if no query had been given.
func TestPagesRefuseAQueryStringThatDoesNotParse(t *testing.T) {
	srv := newTestServer(t, &fakeSearch{total: 1}, nil)
	code, body, _ := get(t, srv, "/?q=%zz")
	if code != http.StatusBadRequest || !strings.Contains(body, `query string: invalid URL escape &#34;%zz&#34;`) || !strings.Contains(body, "<html") {
		t.Fatalf("/?q=%%zz: %d %q", code, body)
	}
	if code, body, _ := get(t, srv, "/?q=x"); code != http.StatusOK {
		t.Fatalf("/?q=x: %d %q", code, body)
	}
}

// TestQueryValuesParsesOnceAndStillRefuses: a GET's query string is
// parsed once and the values kept for the handler behind serve; a Form
// that ParseForm filled (with what parsed of a malformed query string) is
// not taken for checked values.
func TestQueryValuesParsesOnceAndStillRefuses(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/search?q=tar&page=2", nil)
	first, ie := queryValues(r)
	if ie != nil || first.Get("q") != "tar" {
		t.Fatalf("first parse: %v %v", first, ie)
	}
	r.URL.RawQuery = "q=changed" // not read again: the values were kept
	if again, _ := queryValues(r); again.Get("q") != "tar" || again.Get("page") != "2" {
		t.Fatalf("second call parsed again: %v", again)
	}
	bad := httptest.NewRequest(http.MethodGet, "/api/v1/search?q=tar&x=%zz", nil)
	if err := bad.ParseForm(); err == nil || bad.Form.Get("q") != "tar" {
		t.Fatalf("ParseForm of a malformed query: %v %v", bad.Form, err)
	}
	if _, ie := queryValues(bad); ie == nil || ie.Field != "query string" {
		t.Fatalf("a Form filled by ParseForm passed as checked: %v", ie)
	}
}

// A HEAD request runs no search, so it shows no ad (an impression that
// would lower the ad's estimated CTR) and counts no query; its input is
// still checked.
func TestHeadRunsNoSearch(t *testing.T) {
	fs := &fakeSearch{total: 5}
	srv := newTestServer(t, fs, nil)
	for _, path := range []string{"/api/v1/search?q=tar", "/?q=tar"} {
		res, err := http.Head(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || fs.last.Query != "" {
			t.Errorf("HEAD %s: status %d, the search asked %q: want 200 and no search", path, res.StatusCode, fs.last.Query)
		}
	}
	for _, path := range []string{"/api/v1/search?q=tar&page=0", "/api/v1/search?q=%22unclosed", "/?q=%22unclosed"} {
		res, err := http.Head(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || fs.last.Query != "" {
			t.Errorf("HEAD %s: status %d, the search asked %q: want 400, as its GET, and no search", path, res.StatusCode, fs.last.Query)
		}
	}
	if code, _, _ := get(t, srv, "/api/v1/search?q=tar"); code != http.StatusOK || fs.last.Query != "tar" {
		t.Errorf("GET: status %d, the search asked %q: want the query searched", code, fs.last.Query)
	}
}

// TestWriteJSONRefusesWhatJSONCannotHold: an answer holding a value JSON
// has no number for is a 500 naming why, not a 200 over an empty body.
func TestWriteJSONRefusesWhatJSONCannotHold(t *testing.T) {
	w := httptest.NewRecorder()
	writeJSON(w, http.StatusOK, map[string]float64{"score": math.NaN()})
	var got errorBody
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusInternalServerError || got.Error.Code != CodeInternal ||
		!strings.Contains(got.Error.Message, "NaN") {
		t.Errorf("%d %q (%v), want 500 internal naming NaN", w.Code, w.Body, err)
	}
}
