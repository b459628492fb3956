package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestSeedsWithAControlCharacterAreRefused: a seed with a NUL in it was
// normalized as a link in a page is, the NUL trimmed, and admitted as the
// URL without it. It is a SeedError naming it, and the seeds given with it
// are not admitted.
func TestSeedsWithAControlCharacterAreRefused(t *testing.T) {
	for _, bad := range []string{"http://a.test/\x00", "\x00http://a.test/", "http://a.test/x\ty", "http://a.test/\x7f"} {
		_, err := crawler.NormalizeSeeds([]string{"http://b.test/", bad})
		var se *crawler.SeedError
		if !errors.As(err, &se) || se.URL != bad || !errors.Is(err, urlnorm.ErrControl) || !strings.Contains(err.Error(), urlnorm.Quote(bad)) {
			t.Errorf("NormalizeSeeds(%q): %v, want a SeedError naming it and ErrControl", bad, err)
		}
	}
	if got, err := crawler.NormalizeSeeds([]string{" http://a.test/x\n"}); err != nil || len(got) != 1 || got[0] != "http://a.test/x" {
		t.Errorf("a seed with a space before and a newline after: %q, %v; want it trimmed", got, err)
	}
	e := newEnv(t, defaults(t), t.TempDir(), nil)
	if n, err := e.c.Seed(t.Context(), e.f, []string{"http://b.test/", "http://a.test/\x00"}); !errors.Is(err, urlnorm.ErrControl) || n != 0 {
		t.Errorf("Seed with a NUL: %d new, %v; want ErrControl", n, err)
	}
	if n, err := e.c.Seed(t.Context(), e.f, []string{"http://a.test/", "http://b.test/"}); err != nil || n != 2 {
		t.Errorf("Seed after the refusal: %d new, %v; want both new, nothing admitted before", n, err)
	}
}

// TestSeedsWithPortZeroAreRefused: a seed with port 0 was admitted and
// stayed queued, unreachable, run after run. It is a SeedError naming it,
// however the 0 is written; other ports, and none, are kept.
func TestSeedsWithPortZeroAreRefused(t *testing.T) {
	for _, bad := range []string{"http://example.com:0/", "https://example.com:00/a", "http://127.0.0.1:0", "http://[::1]:0/"} {
		_, err := crawler.NormalizeSeeds([]string{"http://b.test/", bad})
		var se *crawler.SeedError
		if !errors.As(err, &se) || se.URL != bad || !strings.Contains(err.Error(), urlnorm.Quote(bad)+": port 0") {
			t.Errorf("NormalizeSeeds(%q): %v, want a SeedError naming it and port 0", bad, err)
		}
	}
	for in, want := range map[string]string{"http://a.test:8080/": "http://a.test:8080/", "http://a.test:80/": "http://a.test/", "http://a.test:/": "http://a.test/", "http://a.test:10/": "http://a.test:10/"} {
		if got, err := crawler.NormalizeSeeds([]string{in}); err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("NormalizeSeeds(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
