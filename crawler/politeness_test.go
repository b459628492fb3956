package crawler_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deltaq/deltaq/crawler"
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

// The politeness tests run in a testing/synctest bubble: the crawler's
// waits use the bubble's clock, the test web is served on an in-process
// network (memNet), and the delays are checked exactly, with no sleeping.

func TestRobotsAndPolitenessHoldPerHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const minDelay = time.Second
		robots := map[string]string{
			"a.test": "User-agent: *\nDisallow: /private/\nCrawl-delay: 3\n",
			"b.test": "User-agent: other\nDisallow: /\n\nUser-agent: deltaq\nDisallow: /private/\n",
		}
		var log requestLog
		web := serveMem(t, log.wrap(smallWeb(6, robots, nil)))

		cfg := defaults(t)
		cfg.Crawler.Politeness.MinDelay = minDelay
		cfg.Crawler.Sitemaps = false
		e := newEnvWith(t, cfg, t.TempDir(), crawler.Options{Dial: web.Dial})
		e.crawl(t, "http://a.test/", "http://b.test/", "http://c.test/")

		for _, h := range []string{"a.test", "b.test"} {
			if n := log.count(h, "/private/secret"); n != 0 {
				t.Errorf("%s: disallowed /private/secret fetched %d times", h, n)
			}
		}
		if n := log.count("c.test", "/private/secret"); n != 1 {
			t.Errorf("c.test has no robots.txt (404 = allow all), but /private/secret was fetched %d times", n)
		}
		// Starts of requests to one host are at least the delay apart: 3 s
		// (Crawl-delay) on a.test, crawler.politeness.min_delay elsewhere.
		last := map[string]time.Time{}
		hits := map[string]int{}
		for _, r := range log.all() {
			want := minDelay
			if r.host == "a.test" {
				want = 3 * time.Second
			}
			if prev, ok := last[r.host]; ok {
				if gap := r.at.Sub(prev); gap < want {
					t.Errorf("%s: requests %v apart, want at least %v (%s)", r.host, gap, want, r.path)
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
	})
}

func TestTooManyRequestsPausesOnlyThatHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var throttledAt atomic.Int64
		special := func(host, path string, w http.ResponseWriter) bool {
			if host == "slow.test" && path == "/p0" && throttledAt.Load() == 0 {
				throttledAt.Store(time.Now().UnixNano())
				w.Header().Set("Retry-After", "20")
				w.WriteHeader(http.StatusTooManyRequests)
				return true
			}
			return false
		}
		var log requestLog
		web := serveMem(t, log.wrap(smallWeb(30, nil, special)))
		cfg := defaults(t)
		cfg.Crawler.Politeness.MinDelay = time.Second
		cfg.Crawler.Sitemaps = false
		e := newEnvWith(t, cfg, t.TempDir(), crawler.Options{Dial: web.Dial})
		e.crawl(t, "http://slow.test/", "http://fast.test/")

		if throttledAt.Load() == 0 {
			t.Fatal("the 429 was never served")
		}
		at := time.Unix(0, throttledAt.Load())
		var slowDuring, fastDuring int
		for _, r := range log.all() {
			if r.at.After(at) && r.at.Before(at.Add(20*time.Second)) {
				if r.host == "slow.test" {
					slowDuring++
				} else {
					fastDuring++
				}
			}
		}
		if slowDuring != 0 {
			t.Errorf("slow.test got %d requests within its 20 s Retry-After", slowDuring)
		}
		if fastDuring < 15 {
			t.Errorf("fast.test got %d requests while slow.test was backing off for 20 s at 1 s per request: the back-off was not per host", fastDuring)
		}
		if n := log.count("slow.test", "/p0"); n != 2 {
			t.Errorf("slow.test/p0 requested %d times, want the throttled attempt and one retry", n)
		}
		p, err := e.db.Page("http://slow.test/p0")
		if err != nil || p.LastOutcome.String() != "ok" {
			t.Errorf("slow.test/p0 after retry: %+v, %v", p.LastOutcome, err)
		}
	})
}
