package crawler_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// smallWeb serves a few hosts by Host header: each has a home page linking
// to n pages, and whatever special paths the test adds.
func smallWeb(n int, robots map[string]string, special func(host, path string, w http.ResponseWriter) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if special != nil && special(host, r.URL.Path, w) {
			return
		}
		switch {
		case r.URL.Path == "/robots.txt":
			if body, ok := robots[host]; ok {
				fmt.Fprint(w, body)
				return
			}
			http.NotFound(w, r)
		case r.URL.Path == "/":
			var b strings.Builder
			b.WriteString("<html><title>home</title><body>")
			for i := range n {
				fmt.Fprintf(&b, `<a href="/p%d">page %d</a> `, i, i)
			}
			b.WriteString(`<a href="/private/secret">secret</a></body></html>`)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, b.String())
		case strings.HasPrefix(r.URL.Path, "/p") || strings.HasPrefix(r.URL.Path, "/private/"):
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><title>%s</title><body>text of %s on %s</body></html>", r.URL.Path, r.URL.Path, host)
		default:
			http.NotFound(w, r)
		}
	})
}

func TestRobotsAndPolitenessHoldPerHost(t *testing.T) {
	const minDelay = 100 * time.Millisecond
	robots := map[string]string{
		"a.test": "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n",
		"b.test": "User-agent: other\nDisallow: /\n\nUser-agent: deltaq\nDisallow: /private/\n",
	}
	var log requestLog
	srv := httptest.NewServer(log.wrap(smallWeb(6, robots, nil)))
	defer srv.Close()

	cfg := defaults(t)
	loopback(cfg, srv, "a.test", "b.test", "c.test")
	cfg.Crawler.Politeness.MinDelay = minDelay
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.crawl(t, "http://a.test/", "http://b.test/", "http://c.test/")

	for _, h := range []string{"a.test", "b.test"} {
		if n := log.count(h, "/private/secret"); n != 0 {
			t.Errorf("%s: disallowed /private/secret fetched %d times", h, n)
		}
	}
	if n := log.count("c.test", "/private/secret"); n != 1 {
		t.Errorf("c.test has no robots.txt (404 = allow all), but /private/secret was fetched %d times", n)
	}
	// Starts of requests to one host are at least the delay apart: 0.3 s
	// (Crawl-delay) on a.test, crawler.politeness.min_delay elsewhere. The
	// server sees arrivals, which may bunch by a few ms of scheduling.
	const slack = 15 * time.Millisecond
	last := map[string]time.Time{}
	hits := map[string]int{}
	for _, r := range log.all() {
		want := minDelay
		if r.host == "a.test" {
			want = 300 * time.Millisecond
		}
		if prev, ok := last[r.host]; ok {
			if gap := r.at.Sub(prev); gap < want-slack {
				t.Errorf("%s: requests %v apart, want at least %v (%s)", r.host, gap.Round(time.Millisecond), want, r.path)
			}
		}
		last[r.host] = r.at
		hits[r.host]++
	}
	for _, h := range []string{"a.test", "b.test", "c.test"} {
		if hits[h] < 7 {
			t.Errorf("%s: %d requests, want robots.txt, the home page and its pages", h, hits[h])
		}
	}
}

func TestTooManyRequestsPausesOnlyThatHost(t *testing.T) {
	var throttledAt atomic.Int64
	special := func(host, path string, w http.ResponseWriter) bool {
		if host == "slow.test" && path == "/p0" && throttledAt.Load() == 0 {
			throttledAt.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return true
		}
		return false
	}
	var log requestLog
	srv := httptest.NewServer(log.wrap(smallWeb(30, nil, special)))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "slow.test", "fast.test")
	cfg.Crawler.Politeness.MinDelay = 100 * time.Millisecond
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.crawl(t, "http://slow.test/", "http://fast.test/")

	at := time.Unix(0, throttledAt.Load())
	if throttledAt.Load() == 0 {
		t.Fatal("the 429 was never served")
	}
	var slowDuring, fastDuring int
	for _, r := range log.all() {
		if r.at.After(at) && r.at.Before(at.Add(2*time.Second-20*time.Millisecond)) {
			if r.host == "slow.test" {
				slowDuring++
			} else {
				fastDuring++
			}
		}
	}
	if slowDuring != 0 {
		t.Errorf("slow.test got %d requests within its 2 s Retry-After", slowDuring)
	}
	if fastDuring == 0 {
		t.Error("fast.test got no requests while slow.test was backing off: the back-off was not per host")
	}
	if n := log.count("slow.test", "/p0"); n != 2 {
		t.Errorf("slow.test/p0 requested %d times, want the throttled attempt and one retry", n)
	}
	p, err := e.db.Page("http://slow.test/p0")
	if err != nil || p.LastOutcome.String() != "ok" {
		t.Errorf("slow.test/p0 after retry: %+v, %v", p.LastOutcome, err)
	}
}
