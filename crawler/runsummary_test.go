package crawler_test

import (
	"net"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEachRunSummarizesItsOwnHosts: a crawler that runs more than once
// (deltaq serve, deltaq run) names in each run's summary only the hosts
// that run refused or found unreachable, not those of earlier runs. The
// URLs an earlier refusal left queued are still said to be left for it.
func TestEachRunSummarizesItsOwnHosts(t *testing.T) {
	t.Run("a host refused in the first run is not named by the second", func(t *testing.T) {
		srv := httptest.NewServer(smallWeb(1, nil, nil))
		defer srv.Close()
		cfg := defaults(t)
		cfg.Crawler.Sitemaps = false
		e := newEnv(t, cfg, t.TempDir(), nil)
		host := strings.TrimPrefix(srv.URL, "http://")
		if first := e.crawl(t, srv.URL+"/"); first.Refused[host] == "" {
			t.Fatalf("first run: refused %v, want %s named", first.Refused, host)
		}
		second := e.crawl(t)
		if len(second.Refused) != 0 || strings.Contains(second.String(), "refused by the address guard") {
			t.Errorf("second run, which asked no host, names refused hosts %v:\n%s", second.Refused, second)
		}
		if second.Left["address refused"] != 1 {
			t.Errorf("second run: left %v, want the seed still left for its refused address", second.Left)
		}
	})
	t.Run("a host unreachable in the first run is not named by the second", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		silent := ln.Addr().String()
		ln.Close() // nothing listens there: connections are refused
		srv := httptest.NewServer(smallWeb(1, nil, nil))
		defer srv.Close()
		cfg := defaults(t)
		cfg.Crawler.AllowPrivate = true
		cfg.Crawler.Sitemaps = false
		cfg.Crawler.Politeness.MinDelay = 0
		e := newEnv(t, cfg, t.TempDir(), nil)
		if first := e.crawl(t, "http://"+silent+"/"); first.Unreachable[silent] == "" {
			t.Fatalf("first run: unreachable %v, want %s named", first.Unreachable, silent)
		}
		second := e.crawl(t, srv.URL+"/")
		if len(second.Unreachable) != 0 || second.New != 3 {
			t.Errorf("second run: unreachable %v, %d new pages; want none named, 3 new (home, page, secret):\n%s", second.Unreachable, second.New, second)
		}
	})
}
