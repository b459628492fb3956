package web_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/segdamage"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

// healthPages are the pages of TestADamagedIndexAnswers503: several hold
// the phrase searched, whose check reads the text field's dictionary in
// the segment file on every search.
var healthPages = map[string][2]string{
	"https://a.test/plain":  {"Plain language", "Plain language makes federal websites easier to read. Write for your reader."},
	"https://a.test/budget": {"Budget report", "The federal budget report covers agency spending for the year."},
	"https://b.test/access": {"Accessibility guide", "Accessibility and plain language for federal websites; section 508 and WCAG."},
	"https://b.test/draft":  {"Draft budget", "A first draft of the budget, not the final federal report, in plain language."},
	"https://c.test/style":  {"Style guide", "Short sentences, active voice and plain language help every reader."},
}

// putHealthPages commits pages to db as fetched.
func putHealthPages(t *testing.T, db *repo.DB, pages map[string][2]string) {
	t.Helper()
	at := time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	defer b.Close()
	for _, u := range slices.Sorted(maps.Keys(pages)) { // the same segment every run
		p := pages[u]
		if err := b.PutPage(&repo.Page{URL: u, State: repo.StateLive, Fetches: 1, LastFetch: at, Version: at, Title: p[0]}); err != nil {
			t.Fatal(err)
		}
		if err := b.AddVersion(u, &repo.Version{FetchedAt: at, Title: p[0], Text: p[1]}); err != nil {
			t.Fatal(err)
		}
		b.AppendChange(u, repo.ChangeUpsert, at)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// serveIndex serves ix over db as serveRepo wires the search path,
// without ads, on loopback.
func serveIndex(t *testing.T, cfg *configs.Config, db *repo.DB, ix *index.Index) *httptest.Server {
	t.Helper()
	ctx := t.Context()
	rank, err := ranking.NewStore(db, cfg.Ranking, ranking.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := rank.Secret(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	limits := cfg.Index.Limits()
	searcher, err := ranking.NewSearcher(cfg.Ranking, web.Retriever{Index: ix, Limits: limits}, rank, secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	var noAds *ads.Store
	h, err := web.New(cfg.Server, web.Deps{Search: web.NewEngine(ix, searcher, noAds, web.EngineOptions{Limits: limits}), Pages: db})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// get answers GET srv+path: status and body.
func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b)
}

// TestADamagedIndexAnswers503 builds an index on disk, opens it again
// (Open checks its segments) and serves it; then overwrites its segment
// files. The searches that read them fail, and where they used to answer
// a bare 500 while /healthz said ok, the search and /healthz both answer
// 503 naming the index directory and deltaq index rebuild. A bad query
// is not damage: it answers 400 and /healthz stays ok.
func TestADamagedIndexAnswers503(t *testing.T) {
	cfg, db := openDefaultRepo(t)
	putHealthPages(t, db, healthPages)
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := index.Open(dir, cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = index.Open(dir, cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	srv := serveIndex(t, cfg, db, ix)

	phrase := "/api/v1/search?q=" + url.QueryEscape(`"plain language"`)
	if code, body := get(t, srv, phrase); code != http.StatusOK || !strings.Contains(body, "https://a.test/plain") {
		t.Fatalf("search before the damage: %d %s", code, body)
	}
	if code, body := get(t, srv, "/api/v1/search?q="+url.QueryEscape(`"plain`)); code != http.StatusBadRequest {
		t.Fatalf("a bad query: %d %s, want 400", code, body)
	}
	if code, body := get(t, srv, "/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz before the damage: %d %s", code, body)
	}

	segdamage.Overwrite(t, dir)
	wants := []string{dir, "damaged", "deltaq index rebuild"}
	for range 2 { // the second answers from what the first found
		code, body := get(t, srv, phrase)
		if code != http.StatusServiceUnavailable {
			t.Fatalf("search of the damaged index: %d %s, want 503", code, body)
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Fatalf("search of the damaged index: %v: %s", err, body)
		}
		if e.Error.Code != web.CodeIndexDamaged {
			t.Errorf("error code %q, want %q", e.Error.Code, web.CodeIndexDamaged)
		}
		for _, want := range wants {
			if !strings.Contains(e.Error.Message, want) {
				t.Errorf("search's message %q lacks %q", e.Error.Message, want)
			}
		}
	}
	code, body := get(t, srv, "/healthz")
	if code != http.StatusServiceUnavailable {
		t.Fatalf("/healthz of the damaged index: %d %s, want 503", code, body)
	}
	for _, want := range wants {
		if !strings.Contains(body, want) {
			t.Errorf("/healthz %q lacks %q", body, want)
		}
	}
	if code, body := get(t, srv, "/?q="+url.QueryEscape(`"plain language"`)); code != http.StatusServiceUnavailable || !strings.Contains(body, "deltaq index rebuild") {
		t.Errorf("search page of the damaged index: %d, want 503 naming the rebuild", code)
	}
}

// TestAFailedSearchOfASoundIndexIsNotDamage: a search that fails for
// another reason than damage (here: its index closed under it) answers
// 500 as before, and /healthz stays ok.
func TestAFailedSearchOfASoundIndexIsNotDamage(t *testing.T) {
	cfg, db := openDefaultRepo(t)
	putHealthPages(t, db, healthPages)
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv := serveIndex(t, cfg, db, ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, srv, "/api/v1/search?q=plain"); code != http.StatusInternalServerError {
		t.Fatalf("search of a closed index: %d %s, want 500", code, body)
	}
	if code, body := get(t, srv, "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz after a failure that is not damage: %d %s", code, body)
	}
}
