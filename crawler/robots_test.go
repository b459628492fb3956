package crawler_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/repo"
)

// TestACutShortRobotsTxtDisallowsNothingByAccident: a robots.txt that
// disallows everything but whose body ends before its Content-Length (a
// reset, a time-out mid-body) was not read; RFC 9309 §2.3.1.4 reads an
// unreachable robots.txt as "disallow all", so the host waits
// (crawler.robots.error_defer) and none of its pages is fetched. It
// used to count as a 200 with an empty body: everything allowed.
func TestACutShortRobotsTxtDisallowsNothingByAccident(t *testing.T) {
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			body := "User-agent: *\nDisallow: /\n"
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)+100))
			w.Write([]byte(body)) // the server closes the connection short of Content-Length
		default:
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body>secret <a href="/b">b</a></body></html>`))
		}
	})))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "cut.test")
	unpolite(cfg, 1, "cut.test")
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.crawl(t, "http://cut.test/a")
	if n := log.count("cut.test", "/a") + log.count("cut.test", "/b"); n != 0 {
		t.Errorf("%d pages fetched from a host whose robots.txt (Disallow: /) was cut short; want none", n)
	}
	h, err := e.db.Host("cut.test")
	if err != nil {
		t.Fatal(err)
	}
	if h.RobotsStatus >= 200 && h.RobotsStatus < 300 {
		t.Errorf("robots.txt cut short recorded as status %d, as if it had been read", h.RobotsStatus)
	}
}

// TestARobotsTxtFetchCutByAStopDefersNothing: a crawl stopped (Ctrl-C)
// while a host's robots.txt was being read learned nothing of the host:
// the next run asks for robots.txt again at once, rather than deferring
// the host for crawler.robots.error_defer as for a robots.txt that failed.
func TestARobotsTxtFetchCutByAStopDefersNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte("User-agent: *\n"))
			w.(http.Flusher).Flush()
			cancel() // stopped while the body is read
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body>a</body></html>`))
	}))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "stop.test")
	unpolite(cfg, 1, "stop.test")
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	if _, err := e.c.Seed(t.Context(), e.f, []string{"http://stop.test/a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Run(ctx, e.f, crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second}); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	h, err := e.db.Host("stop.test")
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		t.Fatal(err)
	}
	if !h.RobotsExpires.IsZero() {
		t.Errorf("a robots.txt cut by the stop recorded status %d, the host deferred until %s; want nothing recorded", h.RobotsStatus, h.RobotsExpires)
	}
}
