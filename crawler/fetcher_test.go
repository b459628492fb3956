package crawler_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestKeepAlivePoolHoldsAHostsConnections crawls one host whose per-host
// override allows more requests in flight than crawler.politeness.per_host,
// and counts the TCP connections the server accepts. With the keep-alive
// pool sized for per_host alone, every request beyond it would open (and
// then drop) a connection of its own: hundreds for a few hundred pages.
func TestKeepAlivePoolHoldsAHostsConnections(t *testing.T) {
	const (
		pages    = 300
		parallel = 8
	)
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(smallWeb(pages, nil, nil))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	cfg := defaults(t)
	loopback(cfg, srv, "a.test")
	unpolite(cfg, parallel, "a.test")
	cfg.Crawler.Politeness.Global = parallel
	if cfg.Crawler.Politeness.PerHost >= parallel {
		t.Fatalf("crawler.politeness.per_host = %d: the test needs an override above it", cfg.Crawler.Politeness.PerHost)
	}
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum := e.crawl(t, "http://a.test/")
	if sum.Fetched() < pages {
		t.Fatalf("crawl fetched %d pages, want at least %d\n%s", sum.Fetched(), pages, sum)
	}
	// A connection per request slot, and a few more where a request
	// dialled while another returned its connection to the pool.
	n := opened.Load()
	t.Logf("%d fetches, %d connections", sum.Fetched()+1, n)
	if n > 2*parallel {
		t.Errorf("%d fetches opened %d connections, want at most %d (%d in flight)", sum.Fetched()+1, n, 2*parallel, parallel)
	}
}
