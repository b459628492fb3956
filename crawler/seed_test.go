package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// TestSeedWhileRunning gives a running crawl a seed of a host it has not
// seen: the crawl fetches it, its host now in scope; a seed it cannot
// crawl is a SeedError, and the other seeds given with it wait.
func TestSeedWhileRunning(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>A page of %s.</p></body></html>", r.URL.Path, r.Host)
	})))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "a.test", "b.test", "c.test")
	unpolite(cfg, 1, "a.test", "b.test", "c.test")
	e := newEnv(t, cfg, t.TempDir(), nil)
	if _, err := e.c.Seed(t.Context(), e.f, []string{"http://a.test/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := e.c.Run(ctx, e.f, crawler.RunOptions{})
		done <- err
	}()
	fetched := func(host, path string) bool {
		for _, r := range log.all() {
			if r.host == host && r.path == path {
				return true
			}
		}
		return false
	}
	waitFor := func(host, path string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !fetched(host, path); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("http://%s%s not fetched within 20s; requests: %v", host, path, log.all())
			}
		}
	}
	waitFor("a.test", "/")

	_, err := e.c.Seed(t.Context(), e.f, []string{"http://c.test/later", "ftp://b.test/"})
	var se *crawler.SeedError
	if !errors.As(err, &se) || se.URL != "ftp://b.test/" || !errors.Is(err, urlnorm.ErrUnsupportedScheme) {
		t.Errorf("seeding an ftp URL: %v, want a SeedError naming it", err)
	}
	if n, err := e.c.Seed(t.Context(), e.f, []string{"http://b.test/news", "http://a.test/"}); err != nil || n != 1 {
		t.Errorf("seeding b.test/news and a.test/ again: %d new, %v; want 1", n, err)
	}
	waitFor("b.test", "/news")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if fetched("c.test", "/later") {
		t.Error("c.test/later was fetched, though it came with a refused seed")
	}
	if p, err := e.db.Page("http://b.test/news"); err != nil || p.Title != "/news" {
		t.Errorf("the page of the seed given while running: %+v, %v", p, err)
	}
}
