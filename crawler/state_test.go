package crawler_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// TestAFetchThatLeavesNothingQueuedIsNotQueued: a first fetch that
// answers 403, a 304 nobody asked for, or errors past
// crawler.limits.max_retries queues nothing more; its record must not
// stay "queued (never fetched)", which every re-fetch path (the recrawl
// candidates, feeds poll's queueNow, the monitoring planner's onItsWay)
// takes for "on its way" and skips for ever.
func TestAFetchThatLeavesNothingQueuedIsNotQueued(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/forbidden":
			w.WriteHeader(http.StatusForbidden)
		case "/notmod":
			w.WriteHeader(http.StatusNotModified)
		case "/down":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "st.test")
	unpolite(cfg, 2, "st.test")
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Limits.MaxRetries = 0
	e := newEnv(t, cfg, t.TempDir(), nil)
	urls := []string{"http://st.test/forbidden", "http://st.test/notmod", "http://st.test/down"}
	e.crawl(t, urls...)
	f := e.frontier(t, frontier.Options{})
	for _, u := range urls {
		p, err := e.db.Page(u)
		if err != nil {
			t.Fatal(err)
		}
		if p.Fetches != 1 {
			t.Errorf("%s: %d fetches, want 1", u, p.Fetches)
		}
		if p.State == repo.StateQueued || f.RecordOnItsWay(&p) {
			t.Errorf("%s: state %s after a %s (HTTP %d) that queued nothing: on its way for ever, never fetched again", u, p.State, p.LastOutcome, p.HTTPStatus)
		}
	}
}
