package cluster_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// linkedHosts is how many small hosts of the test web link to each other,
// so that most of their links cross shards.
const linkedHosts = 12

// testWeb serves the replay of both archives and linkedHosts small hosts
// h0.test … h11.test, whose pages link across hosts.
func testWeb(t *testing.T) (*httptest.Server, []string) {
	t.Helper()
	rs := clustertest.Replay(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		var k, p int
		switch {
		case strings.HasSuffix(host, ".test") && strings.HasPrefix(host, "h"):
			if _, err := fmt.Sscanf(host, "h%d.test", &k); err != nil {
				http.NotFound(w, r)
				return
			}
		default:
			rs.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var kind byte = 'p'
		if r.URL.Path != "/" {
			if _, err := fmt.Sscanf(r.URL.Path, "/%c%d", &kind, &p); err != nil || kind != 'p' && kind != 'q' || p < 0 || p >= 10 {
				http.NotFound(w, r)
				return
			}
		}
		// Each page links to its host's ten /p pages and to /q<p> of the
		// next three hosts, a page only links from other hosts reach.
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><title>h%d p%d</title><body>page %d of host %d", k, p, p, k)
		for i := range 10 {
			fmt.Fprintf(w, ` <a href="/p%d">p%d</a>`, i, i)
		}
		for d := 1; d <= 3; d++ {
			fmt.Fprintf(w, ` <a href="http://h%d.test/q%d">h%d</a>`, (k+d)%linkedHosts, p, (k+d)%linkedHosts)
		}
		fmt.Fprint(w, "</body></html>")
	}))
	t.Cleanup(srv.Close)
	hosts := []string{"tldr-en.test", "digitalgov-2023.test"}
	for k := range linkedHosts {
		hosts = append(hosts, fmt.Sprintf("h%d.test", k))
	}
	return srv, hosts
}

// node is one crawler with its own repository and frontier.
type node struct {
	db *repo.DB
	c  *crawler.Crawler
	f  *frontier.Frontier
	m  *cluster.Member
}

func crawlConfig(t *testing.T, srv *httptest.Server, hosts []string) *configs.Config {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cfg.Crawler.AllowPrivate = true
	for _, h := range hosts {
		cfg.Crawler.Resolve = append(cfg.Crawler.Resolve, h+"=127.0.0.1:"+port)
		cfg.Crawler.Politeness.Overrides = append(cfg.Crawler.Politeness.Overrides, crawler.HostOverride{Host: h, PerHost: 4})
	}
	cfg.Crawler.Politeness.Global = 8
	return cfg
}

func openRepo(t *testing.T, cfg *configs.Config) *repo.DB {
	t.Helper()
	db, err := repo.Open(t.TempDir(), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newNode(t *testing.T, cfg *configs.Config, db *repo.DB, m *cluster.Member) *node {
	t.Helper()
	opts := crawler.Options{}
	if m != nil {
		opts = m.CrawlerOptions()
	}
	return newNodeWith(t, cfg, db, m, opts)
}

// newNodeWith is newNode with the crawler's options given.
func newNodeWith(t *testing.T, cfg *configs.Config, db *repo.DB, m *cluster.Member, opts crawler.Options) *node {
	t.Helper()
	c, err := crawler.New(cfg.Crawler, db, opts)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := frontier.NewPolicy(cfg.Frontier.Policy, cfg.Frontier, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(t.Context(), db, cfg.Frontier, c.Gate(), policy, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &node{db: db, c: c, f: f, m: m}
}

// TestThreeNodesCrawlWhatOneNodeCrawls starts a 3-server JetStream cluster
// and three crawl nodes, each with its own repository, and crawls both
// archives' replays and a web of hosts that link across shards. The union
// of the three repositories must hold exactly the pages a single node
// crawling alone fetches, in the same states, and no host may have been
// fetched by two nodes.
func TestThreeNodesCrawlWhatOneNodeCrawls(t *testing.T) {
	srv, hosts := testWeb(t)
	var seeds []string
	for _, h := range hosts {
		seeds = append(seeds, "http://"+h+"/")
	}

	// One node alone.
	soloCfg := crawlConfig(t, srv, hosts)
	solo := newNode(t, soloCfg, openRepo(t, soloCfg), nil)
	if _, err := solo.c.Seed(t.Context(), solo.f, seeds); err != nil {
		t.Fatal(err)
	}
	// The deadline guards against a hang; it is generous because the race
	// detector on a loaded machine slows a crawl tenfold.
	soloCtx, cancelSolo := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancelSolo()
	soloStart := time.Now()
	if _, err := solo.c.Run(soloCtx, solo.f, crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	soloTook := time.Since(soloStart)
	if soloCtx.Err() != nil {
		t.Fatal("the single-node crawl did not finish")
	}
	want := clustertest.Fetched(t, solo.db)
	if len(want) < 10000 {
		t.Fatalf("the single node fetched %d pages; both archives and the linked hosts hold more", len(want))
	}

	// Three nodes.
	nc := natstest.Start(t, 3)
	const shards = 12
	// The default TTL: the test needs the leases to stay put, and a shorter
	// one can lapse while the race detector and other packages' tests slow
	// a renewal down.
	const leaseTTL = 15 * time.Second
	var nodes []*node
	for i := range 3 {
		cfg := crawlConfig(t, srv, hosts)
		db := openRepo(t, cfg)
		m, err := cluster.Join(t.Context(), cluster.Config{URL: nc.URL(), Node: fmt.Sprintf("n%d", i), Shards: shards,
			Replicas: 3, LeaseTTL: leaseTTL, Dedup: time.Hour}, cluster.Options{Repo: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		nodes = append(nodes, newNode(t, cfg, db, m))
	}
	// The leases settle before the crawl starts, so that no shard changes
	// hands during it (takeover mid-crawl is the lease test's subject).
	settle := time.Now().Add(time.Minute)
	for {
		if time.Now().After(settle) {
			t.Fatal("leases did not settle")
		}
		for _, n := range nodes {
			// A tick failing while the new cluster elects its buckets'
			// leaders is tried again, as Run does.
			if err := n.m.Leases().Tick(t.Context()); err != nil {
				t.Logf("lease tick: %v", err)
			}
		}
		total, fair := 0, true
		for _, n := range nodes {
			k := len(n.m.Leases().Owned())
			total += k
			fair = fair && k == shards/3
		}
		if total == shards && fair {
			break
		}
	}
	for i, n := range nodes {
		t.Logf("node %d owns shards %v", i, n.m.Leases().Owned())
	}
	start := time.Now()
	g, gctx := errgroup.WithContext(t.Context())
	crawlCtx, stop := context.WithCancel(gctx)
	defer stop()
	for _, n := range nodes {
		// Every node is given every seed; each keeps its own shards' seeds
		// and hands the others over.
		if _, err := n.c.Seed(t.Context(), n.f, seeds); err != nil {
			t.Fatal(err)
		}
		g.Go(func() error { return n.m.Run(crawlCtx, n.c, n.f) })
		g.Go(func() error {
			_, err := n.c.Run(crawlCtx, n.f, crawler.RunOptions{})
			return err
		})
	}
	g.Go(func() error {
		defer stop()
		return quiesce(crawlCtx, nodes)
	})
	// quiesce fails a stalled crawl; this bound is for a hang of quiesce.
	if err := clustertest.Wait(t, "the cluster crawl", 15*time.Minute, g.Wait); err != nil {
		t.Fatal(err)
	}
	t.Logf("the cluster crawl took %v (the single node's %v)", time.Since(start).Round(100*time.Millisecond), soloTook.Round(100*time.Millisecond))

	var msgs, bytes int64
	for _, n := range nodes {
		msgs += n.m.Stats().Published.Load()
		bytes += n.m.Stats().Bytes.Load()
	}
	t.Logf("coordination: %d handoff messages, %d payload bytes for %d pages crawled alone (%.3f messages, %.1f bytes per page)",
		msgs, bytes, len(want), float64(msgs)/float64(len(want)), float64(bytes)/float64(len(want)))
	var pages []map[string]repo.PageState
	for i, n := range nodes {
		got := clustertest.Fetched(t, n.db)
		t.Logf("node %d fetched %d pages; %d handoffs published (%d duplicates), %d received, %d new, %d lost, %d left to the next reader",
			i, len(got), n.m.Stats().Published.Load(), n.m.Stats().Duplicates.Load(),
			n.m.Stats().Received.Load(), n.m.Stats().Admitted.Load(), n.m.Stats().Lost.Load(), n.m.Stats().StaleAcks.Load())
		pages = append(pages, got)
	}
	union := clustertest.Merge(pages)
	if len(union.Twice) > 0 {
		t.Errorf("%d pages fetched by two nodes: %v", len(union.Twice), union.Twice[:min(5, len(union.Twice))])
	}
	union.OneNodePerHost(t)
	union.Equal(t, want)
	if len(union.ByHost) != len(hosts) {
		t.Errorf("pages fetched on %d hosts, want %d", len(union.ByHost), len(hosts))
	}
}

// stall is how long the cluster crawl may go with no node's counters
// moving before quiesce calls it hung. A slow crawl is not a hung one:
// three JetStream servers and three crawlers under the race detector,
// beside other packages' tests, take several times their usual minute and
// a half, so the crawl has no deadline of its own.
const stall = 2 * time.Minute

// quiesce returns once, twice in a row, every node's frontier is drained
// (nothing due within the single node's drain horizon, jobs put back for a
// lease tick included),
// no handoff is pending anywhere, and no node's counters moved between.
// It fails, with what it last saw of each node, if nothing moved for
// stall while some node was not done.
func quiesce(ctx context.Context, nodes []*node) error {
	var last []int64
	var seen []string
	calm := 0
	moved := time.Now()
	for calm < 2 {
		// Waiting for the crawl to end, not measuring it.
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; the nodes last seen: %s", ctx.Err(), strings.Join(seen, "; "))
		case <-time.After(200 * time.Millisecond):
		}
		idle := true
		var now []int64
		seen = seen[:0]
		for i, n := range nodes {
			p, err := n.m.Pending(ctx)
			if err != nil {
				return err
			}
			s := n.c.Counters().Snapshot()
			st := n.m.Stats()
			drained := n.f.Drained(10 * time.Second)
			now = append(now, s.Fetched(), s.Admitted, st.Received.Load(), st.Published.Load(), int64(p))
			seen = append(seen, fmt.Sprintf("node %d owning %v fetched %d, admitted %d, received %d, published %d, pending %d, drained %t",
				i, n.m.Leases().Owned(), s.Fetched(), s.Admitted, st.Received.Load(), st.Published.Load(), p, drained))
			idle = idle && p == 0 && drained
		}
		switch {
		case !slices.Equal(now, last):
			moved = time.Now()
			calm = 0
		case idle:
			calm++
		case time.Since(moved) > stall:
			return fmt.Errorf("nothing moved for %v with work left: %s", stall, strings.Join(seen, "; "))
		}
		last = now
	}
	return nil
}
