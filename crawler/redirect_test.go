package crawler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestARedirectWithoutATargetForgetsTheOldOne: a page that redirected to
// /b and now answers 301 with no Location records no target, not /b
// still: a watch or feed following the record would read a page the URL
// no longer leads to. Nor does the link graph keep the old redirect's
// out-link, which would lend /b the authority of a link /a no longer has.
func TestARedirectWithoutATargetForgetsTheOldOne(t *testing.T) {
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			if fetches.Add(1) == 1 {
				http.Redirect(w, r, "/b", http.StatusMovedPermanently)
				return
			}
			w.WriteHeader(http.StatusMovedPermanently) // no Location
		case "/b":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><title>b</title><body>the target</body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "mini.test")
	unpolite(cfg, 2, "mini.test")
	cfg.Crawler.Sitemaps = false
	cfg.Frontier.Split.Recrawl = 1
	cfg.Frontier.Split.Monitor = 0
	cfg.Frontier.Spread = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.crawl(t, "http://mini.test/a")
	p, err := e.db.Page("http://mini.test/a")
	if err != nil || p.RedirectTo != "http://mini.test/b" {
		t.Fatalf("after the first fetch: redirect to %q, %v; want /b", p.RedirectTo, err)
	}
	if out, err := e.db.OutLinks(context.Background(), "http://mini.test/a"); err != nil || len(out) != 1 || out[0].URL != "http://mini.test/b" {
		t.Fatalf("after the first fetch: out-links %v, %v; want the redirect to /b", out, err)
	}
	if _, err := e.f.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.crawl(t)
	if fetches.Load() < 2 {
		t.Fatalf("/a fetched %d times, want a re-fetch", fetches.Load())
	}
	p, err = e.db.Page("http://mini.test/a")
	if err != nil || p.RedirectTo != "" {
		t.Errorf("after a 301 without Location: redirect to %q (outcome %s), %v; want none", p.RedirectTo, p.LastOutcome, err)
	}
	if out, err := e.db.OutLinks(context.Background(), "http://mini.test/a"); err != nil || len(out) != 0 {
		t.Errorf("after a 301 without Location: out-links %v, %v; want none", out, err)
	}
}
