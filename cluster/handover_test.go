package cluster_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/repo"
)

// TestAHandedOverURLOutlivesALeaseLapsingDuringItsAdmission: the receiver
// takes a URL for a shard its node owns, and the lease lapses before the
// crawler records it (a lease tick late on a loaded machine or while a
// NATS server is lost). The URL is still recorded and its message kept in
// the stream until the fetch commits, so nothing is lost: handing it over
// again would be dropped by deduplication, its message acknowledged, and
// the URL never fetched by anyone. Once the lease is back, the URL is
// fetched and the stream empties.
func TestAHandedOverURLOutlivesALeaseLapsingDuringItsAdmission(t *testing.T) {
	var requests atomic.Int64 // of the page
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a" { // robots.txt, sitemaps
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>a page</title><body>no links</body></html>")
	}))
	t.Cleanup(srv.Close)
	cfg := crawlConfig(t, srv, []string{"h0.test"})
	cfg.Crawler.Scope = crawler.ScopeAll // no seeds here: the URL comes from another node
	db := openRepo(t, cfg)
	nc := natstest.Start(t, 1)
	m, err := cluster.Join(t.Context(), cluster.Config{URL: nc.URL(), Node: "n0", Shards: 1, Replicas: 1,
		LeaseTTL: 3 * time.Second, Dedup: time.Hour}, cluster.Options{Repo: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	// The crawler sees the lease lapsed from the start; the receiver,
	// which asks the member, sees it held: the moment between the two.
	var lapsed atomic.Bool
	lapsed.Store(true)
	opts := m.CrawlerOptions()
	opts.Route = func(u string) bool { return !lapsed.Load() && m.Route(u) }
	n := newNodeWith(t, cfg, db, m, opts)
	c, f := n.c, n.f

	// A guard against a hang, not a measurement.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	crawlCtx, stop := context.WithCancel(gctx)
	defer stop()
	g.Go(func() error { return m.Run(crawlCtx, c, f) })
	const url = "http://h0.test/a"
	m.Handoff(crawler.Handoff{URL: url, Source: "http://h0.test/", Reason: repo.ReasonLink})

	// Either the URL is recorded or its message leaves the stream.
	var page repo.Page
	for {
		if ctx.Err() != nil {
			t.Fatal("the handed-over URL was neither recorded nor acknowledged")
		}
		page, err = db.Page(url)
		if err == nil {
			break
		}
		if !errors.Is(err, repo.ErrNotFound) {
			t.Fatal(err)
		}
		if m.Stats().Received.Load() > 0 {
			if p, err := m.Pending(ctx); err != nil {
				t.Fatal(err)
			} else if p == 0 {
				t.Fatalf("%s was acknowledged without being recorded: lost", url)
			}
		}
		time.Sleep(20 * time.Millisecond) // waiting on the servers, not measuring
	}
	if page.State != repo.StateQueued {
		t.Fatalf("%s is %s, want queued", url, page.State)
	}
	st, err := cluster.ReadStatus(ctx, nc.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if lag := st.Shards[0].Lag; lag != 1 {
		t.Fatalf("the shard's subject holds %d messages; want the URL's kept until its fetch", lag)
	}

	// The lease is back: the URL is fetched once and the stream empties.
	lapsed.Store(false)
	g.Go(func() error {
		_, err := c.Run(crawlCtx, f, crawler.RunOptions{})
		return err
	})
	g.Go(func() error {
		defer stop()
		return m.Quiesce(crawlCtx)
	})
	if err := clustertest.Wait(t, "the crawl", 3*time.Minute, g.Wait); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the crawl did not end")
	}
	if page, err = db.Page(url); err != nil || page.Fetches != 1 {
		t.Fatalf("%s: %+v, %v; want fetched once", url, page, err)
	}
	if p, err := m.Pending(t.Context()); err != nil || p != 0 {
		t.Fatalf("Pending = %d, %v after the crawl; want 0", p, err)
	}
	if requests.Load() != 1 {
		t.Errorf("%d requests for the page, want 1", requests.Load())
	}
}

// TestANodeWaitsOnlyForItsOwnShardsQueue: a URL of a shard another node
// leases, left in a node's queue (a lease moved mid-crawl: the URL's
// message goes to the new owner, which fetches it), does not keep the
// node from reporting itself idle, so the crawl can end; a URL of its own
// shard keeps it busy until fetched.
func TestANodeWaitsOnlyForItsOwnShardsQueue(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler()) // every page is gone: one fetch each
	t.Cleanup(srv.Close)
	nc := natstest.Start(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a guard against a hang
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	runCtx, stop := context.WithCancel(gctx)
	var nodes []*node
	for _, name := range []string{"n0", "n1"} {
		cfg := crawlConfig(t, srv, []string{"h0.test", "h1.test", "h2.test", "h3.test", "h4.test", "h5.test"})
		cfg.Crawler.Scope = crawler.ScopeAll
		db := openRepo(t, cfg)
		m, err := cluster.Join(ctx, cluster.Config{URL: nc.URL(), Node: name, Shards: 2, Replicas: 1,
			LeaseTTL: 3 * time.Second, Dedup: time.Hour}, cluster.Options{Repo: db, DrainHorizon: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		n := newNode(t, cfg, db, m)
		g.Go(func() error { return m.Run(runCtx, n.c, n.f) })
		nodes = append(nodes, n)
	}
	n0 := nodes[0]
	if err := n0.m.WaitNodes(ctx, 2); err != nil {
		t.Fatal(err)
	}
	// A host of each shard: n0 leases one, n1 the other.
	own, other := "", ""
	for k := 0; k < 6 && (own == "" || other == ""); k++ {
		h := fmt.Sprintf("h%d.test", k)
		if n0.m.Leases().Owns(cluster.ShardOf(h, 2)) {
			own = cmp.Or(own, h)
		} else {
			other = cmp.Or(other, h)
		}
	}
	if own == "" || other == "" {
		t.Fatalf("hosts h0-h5.test all fall in one shard (own %q, other %q)", own, other)
	}
	idle := func(want bool) {
		t.Helper()
		for {
			st, err := cluster.ReadStatus(ctx, nc.URL(), 2)
			switch {
			case ctx.Err() != nil:
				t.Fatalf("n0 did not report idle = %v within the guard", want)
			case err != nil:
				t.Fatal(err)
			case st.Nodes["n0"].Idle == want:
				return
			}
			time.Sleep(100 * time.Millisecond) // waiting for a heartbeat, not measuring
		}
	}
	// Queued here directly, as handovers admitted before a lease moved.
	otherURL, ownURL := "http://"+other+"/a", "http://"+own+"/a"
	var hs []crawler.Handoff
	for _, u := range []string{otherURL, ownURL} {
		hs = append(hs, crawler.Handoff{URL: u, Source: u, Reason: repo.ReasonLink})
	}
	if _, err := n0.c.Admit(ctx, n0.f, hs); err != nil {
		t.Fatal(err)
	}
	idle(false)
	g.Go(func() error {
		_, err := n0.c.Run(runCtx, n0.f, crawler.RunOptions{})
		return err
	})
	idle(true)
	stop()
	if err := clustertest.Wait(t, "the nodes' Run", time.Minute, g.Wait); err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]int{ownURL: 1, otherURL: 0} {
		if p, err := n0.db.Page(u); err != nil || p.Fetches != want {
			t.Errorf("%s: %d fetches (%v) at n0, want %d", u, p.Fetches, err, want)
		}
	}
}
