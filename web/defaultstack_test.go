package web_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

// serveDefaultStack serves pages (URL → title, text) through the whole
// search path (serveRepo).
func serveDefaultStack(t *testing.T, pages map[string][2]string) *httptest.Server {
	t.Helper()
	cfg, db := openDefaultRepo(t)
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
	srv, _, _ := serveRepo(t, cfg, db)
	return srv
}

// openDefaultRepo loads the default configuration and opens an empty
// repository with it, closed when tb ends.
func openDefaultRepo(tb testing.TB) (*configs.Config, *repo.DB) {
	tb.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		tb.Fatal(err)
	}
	db, err := repo.Open(filepath.Join(tb.TempDir(), "repo"), cfg.Repo, repo.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return cfg, db
}

// serveRepo builds the whole search path on the pages in db, as `deltaq
// serve` wires it: PageRank, the index caught up and compacted to one
// segment (with no merge left running), ranking with promotion, ads, the
// engine and its HTTP server, all closed when tb ends.
func serveRepo(tb testing.TB, cfg *configs.Config, db *repo.DB) (*httptest.Server, *web.Engine, *index.Index) {
	tb.Helper()
	ctx := context.Background()
	rank, err := ranking.NewStore(db, cfg.Ranking, ranking.StoreOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := rank.ComputePageRank(ctx); err != nil {
		tb.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(tb.TempDir(), "index"), cfg.Index, db, index.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := ix.CatchUp(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := ix.Compact(ctx); err != nil {
		tb.Fatal(err)
	}
	adStore, err := ads.Open(ctx, db, cfg.Ads, ads.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	secret, err := rank.Secret(ctx, "")
	if err != nil {
		tb.Fatal(err)
	}
	limits := cfg.Index.Limits()
	searcher, err := ranking.NewSearcher(cfg.Ranking, web.Retriever{Index: ix, Limits: limits}, rank, secret, nil)
	if err != nil {
		tb.Fatal(err)
	}
	e := web.NewEngine(ix, searcher, adStore, web.EngineOptions{Limits: limits})
	h, err := web.New(cfg.Server, web.Deps{Search: e, Pages: db})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv, e, ix
}
