package crawler_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
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
