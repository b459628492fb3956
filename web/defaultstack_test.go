package web_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

// serveDefaultStack serves pages (URL → title, text) through the whole
// search path: a real repository, index, ranking and HTTP handler, with
// the default configuration.
func serveDefaultStack(t *testing.T, pages map[string][2]string) *httptest.Server {
	t.Helper()
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
	for u, p := range pages {
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
	return srv
}
