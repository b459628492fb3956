package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

// TestStopWordQueriesAnswer200WithResults runs the whole search path (real
// repository, index, ranking and HTTP handler, default configuration) on
// three pages: a query of stop words only finds the pages whose titles
// hold them, as JSON and as HTML, with status 200.
func TestStopWordQueriesAnswer200WithResults(t *testing.T) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, err := repo.Open(filepath.Join(dir, "repo"), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	at := time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	for u, p := range map[string][2]string{
		"http://a.test/who":  {"The Who", "A rock band from London."},
		"http://a.test/you":  {"What you should know", "Facts about federal forms."},
		"http://a.test/form": {"Forms", "Every federal form in one place."},
	} {
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
	ix, err := index.Open(filepath.Join(dir, "index"), cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	store, err := ranking.NewStore(db, cfg.Ranking, ranking.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := store.Secret(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	limits := cfg.Index.Limits()
	searcher, err := ranking.NewSearcher(cfg.Ranking, web.Retriever{Index: ix, Limits: limits}, store, secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.New(cfg.Server, web.Deps{Search: web.NewEngine(ix, searcher, nil, web.EngineOptions{Limits: limits}), Pages: db})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	for q, want := range map[string]string{"the": "http://a.test/who", "you should": "http://a.test/you", "the who": "http://a.test/who"} {
		res, err := http.Get(srv.URL + "/api/v1/search?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Total   int `json:"total"`
			Results []struct {
				URL string `json:"url"`
			} `json:"results"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || body.Total != 1 || len(body.Results) != 1 || body.Results[0].URL != want {
			t.Errorf("%q: status %d, %+v, %v; want 200 and %s", q, res.StatusCode, body, err, want)
		}
		page, err := http.Get(srv.URL + "/?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		page.Body.Close()
		if page.StatusCode != http.StatusOK {
			t.Errorf("%q: the HTML page answered %d", q, page.StatusCode)
		}
	}
}
