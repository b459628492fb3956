package crawler_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// router owns the hosts set true, as a cluster node owns its shards'.
type router struct {
	mu     sync.Mutex
	owns   map[string]bool
	handed []crawler.Handoff
}

func (r *router) route(u string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.owns[urlnorm.Host(u)]
}

func (r *router) handoff(h crawler.Handoff) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handed = append(r.handed, h)
}

func (r *router) set(host string, own bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.owns[host] = own
}

// TestRouteHandsOverOtherHostsAndAdmitTakesThemIn: a crawler that owns
// a.test only fetches nothing from b.test; the b.test URLs it meets are
// handed over once, and a second crawler owning b.test admits them and
// crawls b.test. A job queued while its host was owned and no longer is
// is put back, not fetched, and fetched once the host is owned again.
func TestRouteHandsOverOtherHostsAndAdmitTakesThemIn(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(log.wrap(smallWeb(3, nil, nil)))
	defer srv.Close()
	const routeWait = time.Hour
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	node := func(owned string) (*env, *router) {
		cfg := defaults(t)
		loopback(cfg, srv, "a.test", "b.test")
		unpolite(cfg, 2, "a.test", "b.test")
		cfg.Crawler.Sitemaps = false
		r := &router{owns: map[string]bool{owned: true}}
		opts := crawler.Options{Clock: clk, Route: r.route, Handoff: r.handoff, RouteWait: routeWait}
		return newEnvWith(t, cfg, t.TempDir(), opts), r
	}
	a, ra := node("a.test")
	seeds := []string{"http://a.test/", "http://b.test/"}
	a.crawl(t, seeds...)
	for _, req := range log.all() {
		if req.host != "a.test" {
			t.Errorf("the a.test node requested %s%s", req.host, req.path)
		}
	}
	if len(ra.handed) != 1 || ra.handed[0].URL != "http://b.test/" {
		t.Fatalf("handed over %+v, want the b.test seed", ra.handed)
	}

	b, rb := node("b.test")
	// The b.test node admits what the a.test node handed over, and knows
	// the seeds (its scope), as every node of a cluster does; the a.test
	// seed it hands over in turn.
	if n, err := b.c.Admit(t.Context(), b.f, ra.handed); err != nil || n != 1 {
		t.Fatalf("Admit = %d, %v; want the one new URL", n, err)
	}
	if n, err := b.c.Seed(t.Context(), b.f, seeds); err != nil || n != 0 {
		t.Fatalf("Seed = %d, %v; want nothing new on this node", n, err)
	}
	if len(rb.handed) != 1 || rb.handed[0].URL != "http://a.test/" {
		t.Fatalf("the b.test node handed over %+v, want the a.test seed", rb.handed)
	}
	// b.test's pages are queued, but the host is let go before the crawl:
	// nothing of it may be fetched.
	rb.set("b.test", false)
	before := len(log.all())
	b.crawl(t)
	if got := len(log.all()); got != before {
		t.Fatalf("%d requests while b.test was not owned", got-before)
	}
	// Owned again one RouteWait later: b.test is crawled, and only by it.
	rb.set("b.test", true)
	clk.Advance(routeWait)
	sum := b.crawl(t)
	var bReqs []string
	for _, req := range log.all()[before:] {
		if req.host != "b.test" {
			t.Errorf("the b.test node requested %s%s", req.host, req.path)
		}
		bReqs = append(bReqs, req.path)
	}
	// robots.txt, the home page, its three pages and /private/secret.
	if sum.New != 5 || len(bReqs) != 6 {
		t.Errorf("b.test crawl: %d new pages, requests %v; want 5 pages and robots.txt\n%s", sum.New, bReqs, sum)
	}
	if len(rb.handed) != 1 {
		t.Errorf("the b.test node handed over %+v; every link it met was its own", rb.handed[1:])
	}
}

// TestHandOwnQueuesOnlyWhatAdmitTakesBack: with HandOwn a crawler queues
// none of the new URLs it meets, its own hosts' included, but hands them
// over; only Admit queues. Handing back what it handed over, round after
// round, crawls the site exactly as a crawler alone would, and OnFetched
// reports every fetch once.
func TestHandOwnQueuesOnlyWhatAdmitTakesBack(t *testing.T) {
	srv := httptest.NewServer(smallWeb(3, nil, nil))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "a.test")
	unpolite(cfg, 2, "a.test")
	cfg.Crawler.Sitemaps = false
	r := &router{owns: map[string]bool{"a.test": true}}
	var mu sync.Mutex
	fetched := map[string]int{}
	opts := crawler.Options{Route: r.route, Handoff: r.handoff, RouteWait: time.Hour, HandOwn: true,
		OnFetched: func(urls []string) {
			mu.Lock()
			defer mu.Unlock()
			for _, u := range urls {
				fetched[u]++
			}
		}}
	a := newEnvWith(t, cfg, t.TempDir(), opts)
	if n, err := a.c.Seed(t.Context(), a.f, []string{"http://a.test/"}); err != nil || n != 0 {
		t.Fatalf("Seed = %d, %v; want nothing queued here", n, err)
	}
	newPages := int64(0)
	for round := 0; len(r.handed) > 0; round++ {
		if round > 10 {
			t.Fatalf("still handing over after %d rounds: %+v", round, r.handed)
		}
		back := r.handed
		r.handed = nil
		if _, err := a.c.Admit(t.Context(), a.f, back); err != nil {
			t.Fatal(err)
		}
		newPages += a.crawl(t).New
	}
	// The home page, its three pages and /private/secret, as alone.
	if newPages != 5 || len(fetched) != 5 {
		t.Errorf("%d new pages, OnFetched reported %v; want the 5 pages of a.test", newPages, fetched)
	}
	for u, n := range fetched {
		if n != 1 {
			t.Errorf("OnFetched reported %s %d times", u, n)
		}
	}
}

// TestAdmitDoesNotRouteAgain: Admit's caller took the URLs for this
// crawler's hosts (a cluster node checks its lease first). A host let go
// in between does not make Admit hand them over a second time, a copy a
// cluster's deduplication would drop while the caller acknowledges the
// first: they are recorded and queued.
func TestAdmitDoesNotRouteAgain(t *testing.T) {
	srv := httptest.NewServer(smallWeb(3, nil, nil))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "a.test")
	cfg.Crawler.Scope = crawler.ScopeAll
	r := &router{owns: map[string]bool{}} // a.test let go since the caller's check
	a := newEnvWith(t, cfg, t.TempDir(), crawler.Options{Route: r.route, Handoff: r.handoff, RouteWait: time.Hour, HandOwn: true})
	const url = "http://a.test/p1"
	n, err := a.c.Admit(t.Context(), a.f, []crawler.Handoff{{URL: url, Source: "http://a.test/", Reason: repo.ReasonLink}})
	if err != nil || n != 1 {
		t.Fatalf("Admit = %d, %v; want the URL admitted", n, err)
	}
	if len(r.handed) != 0 {
		t.Errorf("Admit handed over %+v", r.handed)
	}
	if p, err := a.db.Page(url); err != nil || p.State != repo.StateQueued {
		t.Errorf("%s: %+v, %v; want it recorded, queued", url, p, err)
	}
}

// TestHandsOverEachURLOnce: a link every page of a site carries, to its
// own host (HandOwn) or to another node's, is handed over once in the
// whole crawl, not once per page it is found on, however the pages fall
// into commit groups.
func TestHandsOverEachURLOnce(t *testing.T) {
	const pages = 8
	srv := httptest.NewServer(smallWeb(pages, nil, func(host, path string, w http.ResponseWriter) bool {
		if host != "a.test" || !strings.HasPrefix(path, "/p") {
			return false
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><title>%s</title><body>", path)
		for i := range pages {
			fmt.Fprintf(w, `<a href="/p%d">page %d</a> `, i, i)
		}
		fmt.Fprint(w, `<a href="http://b.test/shared">shared</a></body></html>`)
		return true
	}))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "a.test", "b.test")
	unpolite(cfg, 4, "a.test")
	cfg.Crawler.Sitemaps = false
	r := &router{owns: map[string]bool{"a.test": true}}
	a := newEnvWith(t, cfg, t.TempDir(), crawler.Options{Route: r.route, Handoff: r.handoff, RouteWait: time.Hour, HandOwn: true})
	if _, err := a.c.Seed(t.Context(), a.f, []string{"http://a.test/", "http://b.test/"}); err != nil {
		t.Fatal(err)
	}
	times := map[string]int{}
	for round := 0; len(r.handed) > 0; round++ {
		if round > 10 {
			t.Fatalf("still handing over after %d rounds: %+v", round, r.handed)
		}
		var back []crawler.Handoff
		for _, h := range r.handed {
			times[h.URL]++
			if r.route(h.URL) {
				back = append(back, h)
			}
		}
		r.handed = nil
		if _, err := a.c.Admit(t.Context(), a.f, back); err != nil {
			t.Fatal(err)
		}
		a.crawl(t)
	}
	// The two seeds, the home page's pages and secret, and the shared link.
	if want := 2 + pages + 1 + 1; len(times) != want {
		t.Errorf("handed over %d URLs, want %d: %v", len(times), want, times)
	}
	for u, n := range times {
		if n != 1 {
			t.Errorf("%s handed over %d times", u, n)
		}
	}
}
