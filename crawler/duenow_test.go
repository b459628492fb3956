package crawler_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/deltaq/deltaq/frontier"
)

// TestDueNowDoesNotSkipTheRetryBackOff: a poll's frontier
// (frontier.Options.DueNow, as `deltaq feeds poll` makes it) hands out
// at once what was queued before it, but a retry the run itself queues
// after a 500 waits out crawler.politeness.backoff_initial (30 s) as
// crawler.limits.max_retries promises: not four requests in three
// seconds to a server that is failing.
func TestDueNowDoesNotSkipTheRetryBackOff(t *testing.T) {
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/feed" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		http.NotFound(w, r)
	})))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "dn.test")
	unpolite(cfg, 1, "dn.test")
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	e.f = e.frontier(t, frontier.Options{DueNow: true})
	e.crawl(t, "http://dn.test/feed") // drains within a 10 s horizon
	if n := log.count("dn.test", "/feed"); n != 1 {
		t.Errorf("/feed requested %d times in one run; want 1, its retries after backoff_initial (30s)", n)
	}
}
