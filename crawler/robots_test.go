package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
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

// TestAnUnreachableRobotsRefreshKeepsTheCachedRules: when robots.txt,
// fetched before, is unreachable as its cached copy expires, the host is
// crawled under the rules it gave (RFC 9309 §2.4) rather than deferred,
// and the summary and Hosts say so and since when; a restart keeps them,
// and the refresh is retried after crawler.robots.error_defer. Past
// crawler.robots.stale_for from the first failed refresh, the host is
// deferred as one whose robots.txt was never read.
func TestAnUnreachableRobotsRefreshKeepsTheCachedRules(t *testing.T) {
	var down atomic.Bool
	robots := map[string]string{"s.test": "User-agent: *\nDisallow: /private/\n"}
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(smallWeb(3, robots, func(host, path string, w http.ResponseWriter) bool {
		if path == "/robots.txt" && down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	})))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "s.test")
	unpolite(cfg, 1, "s.test")
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Robots.StaleFor = 48 * time.Hour
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	e := newEnv(t, cfg, t.TempDir(), clk)
	e.crawl(t, "http://s.test/p0")

	down.Store(true)
	clk.Advance(cfg.Crawler.Robots.CacheTTL + time.Hour)
	failed := clk.Now()
	sum := e.crawl(t, "http://s.test/p1", "http://s.test/private/secret")
	if sum.New != 1 || sum.Disallowed() != 1 || sum.Queued != 0 {
		t.Errorf("refresh failed: %d new, %d disallowed, %d left queued (%v); want /p1 fetched and /private/secret disallowed under the cached rules\n%s",
			sum.New, sum.Disallowed(), sum.Queued, sum.Left, sum)
	}
	want := "rules of 2026-01-01 00:00:00 UTC in use, robots.txt unreachable since 2026-01-02 01:00:00 UTC"
	if got := sum.StaleRobots["s.test"]; got != want || !strings.Contains(sum.String(), "cached rules obeyed (crawler.robots.stale_for): s.test: "+want) {
		t.Errorf("summary names stale rules %q, want %q\n%s", got, want, sum)
	}
	checkHost := func(when string, since time.Time, deferred bool) {
		t.Helper()
		hosts, err := crawler.Hosts(t.Context(), e.db)
		if err != nil || len(hosts) != 1 {
			t.Fatalf("%s: hosts %+v, %v", when, hosts, err)
		}
		h := hosts[0]
		if deferred != !h.RobotsDeferredUntil.IsZero() || !h.RobotsUnreachableSince.Equal(since) {
			t.Errorf("%s: robots.txt %d, deferred until %v, unreachable since %v; want deferred %v, unreachable since %v", when, h.RobotsStatus, h.RobotsDeferredUntil, h.RobotsUnreachableSince, deferred, since)
		}
		if !deferred && (h.RobotsStatus != http.StatusOK || !h.RobotsFetched.Equal(start) || h.StaleRobots() != want) {
			t.Errorf("%s: robots.txt %d of %v (%q), want the 200 of %v in use: %q", when, h.RobotsStatus, h.RobotsFetched, h.StaleRobots(), start, want)
		}
	}
	checkHost("refresh failed", failed, false)

	// A restart keeps the cached rules, and asks again only once
	// crawler.robots.error_defer has passed.
	c, err := crawler.New(cfg.Crawler, e.db, crawler.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	e = &env{cfg: cfg, db: e.db, c: c}
	e.f = e.frontier(t, frontier.Options{Clock: clk})
	clk.Advance(cfg.Crawler.Robots.ErrorDefer / 2)
	if sum := e.crawl(t, "http://s.test/p2"); sum.New != 1 || sum.Robots != 0 {
		t.Errorf("after a restart: %d new, %d robots.txt requests; want /p2 fetched under the cached rules, robots.txt not asked before error_defer\n%s", sum.New, sum.Robots, sum)
	}
	checkHost("after a restart", failed, false)

	// Past stale_for, a failed refresh defers the host.
	clk.Set(failed.Add(cfg.Crawler.Robots.StaleFor))
	sum = e.crawl(t, "http://s.test/")
	if sum.Robots != 1 || sum.New != 0 || sum.Left["robots.txt unreachable, host deferred"] != 1 || len(sum.StaleRobots) != 0 {
		t.Errorf("past stale_for: %d robots.txt requests, %d new, left %v, stale %v; want the host deferred\n%s", sum.Robots, sum.New, sum.Left, sum.StaleRobots, sum)
	}
	checkHost("past stale_for", time.Time{}, true)
	if n := log.count("s.test", "/robots.txt"); n != 3 {
		t.Errorf("robots.txt asked %d times, want 3: the first fetch, the failed refresh, the one past stale_for", n)
	}
}

// TestARestartGoesOnDoublingARobotsFailure: the wait a failed robots.txt
// put off its host is kept in the host's record, so the next failure in a
// row after a restart defers the host twice as long, as it would have
// without the restart; a restart used to start again from
// crawler.robots.error_defer. A host with rules fetched before, crawled
// under them (crawler.robots.stale_for), doubles its retries the same way.
func TestARestartGoesOnDoublingARobotsFailure(t *testing.T) {
	var down atomic.Bool
	srv := httptest.NewServer(smallWeb(3, nil, func(host, path string, w http.ResponseWriter) bool {
		if path == "/robots.txt" && (host == "c.test" || down.Load()) {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "c.test", "k.test")
	unpolite(cfg, 1, "c.test", "k.test")
	cfg.Crawler.Sitemaps = false
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e := newEnv(t, cfg, t.TempDir(), clk)
	e.crawl(t, "http://k.test/p0")
	down.Store(true)
	clk.Advance(cfg.Crawler.Robots.CacheTTL + time.Hour)
	base := cfg.Crawler.Robots.ErrorDefer
	for i, want := range []time.Duration{base, 2 * base, 4 * base} {
		if i > 0 {
			// A new crawler on the same repository: nothing in memory.
			c, err := crawler.New(cfg.Crawler, e.db, crawler.Options{Clock: clk})
			if err != nil {
				t.Fatal(err)
			}
			e = &env{cfg: cfg, db: e.db, c: c}
			e.f = e.frontier(t, frontier.Options{Clock: clk})
		}
		now := clk.Now()
		e.crawl(t, "http://c.test/", fmt.Sprintf("http://k.test/p%d", i+1))
		for _, host := range []string{"c.test", "k.test"} {
			st, err := e.db.Host(host)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.RobotsExpires.Sub(now); got != want || st.RobotsRetryWait != want {
				t.Errorf("failure %d of %s (after %d restarts): asked again after %s, retry wait %s; want %s", i+1, host, i, got, st.RobotsRetryWait, want)
			}
		}
		clk.Advance(want + time.Minute)
	}
}
