package cluster_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

const (
	classNew     = repo.ClassNew
	classRecrawl = repo.ClassRecrawl
)

func TestAllocateFollowsDemandAndSumsToTheBudget(t *testing.T) {
	global := frontier.Quota{classNew: 180, classRecrawl: 60}
	got := cluster.Allocate(global, map[string]frontier.Demand{
		"a": {classNew: 60},
		"b": {classNew: 20, classRecrawl: 30},
		"c": {classRecrawl: 10},
	})
	// New URLs: a floor of 180/(8·3) = 7 each, the other 159 as 60:20:0
	// (119.25, 39.75, 0; the one left over to the larger remainder, b).
	// Re-fetches: a floor of 2 each, the other 54 as 0:30:10 (40.5, 13.5;
	// the one left over to b, first by name on a tie).
	want := map[string]frontier.Quota{
		"a": {classNew: 126, classRecrawl: 2},
		"b": {classNew: 47, classRecrawl: 43},
		"c": {classNew: 7, classRecrawl: 15},
	}
	if !maps.Equal(got, want) {
		t.Errorf("Allocate = %v, want %v", got, want)
	}

	// Any demands, any budget: every class sums to its budget, every node
	// keeps the floor, and more demand never means a smaller share.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var g frontier.Quota
		for c := range g {
			g[c] = rng.IntN(1000)
		}
		demand := map[string]frontier.Demand{}
		for i := range 1 + rng.IntN(6) {
			var d frontier.Demand
			for c := range d {
				if rng.IntN(3) > 0 {
					d[c] = rng.IntN(5000)
				}
			}
			demand[fmt.Sprint("n", i)] = d
		}
		shares := cluster.Allocate(g, demand)
		var sum frontier.Quota
		for name, q := range shares {
			for c := range q {
				sum[c] += q[c]
				if g[c] >= len(demand) && q[c] < 1 {
					t.Fatalf("budget %v, demands %v: %s gets no %v fetch", g, demand, name, repo.QueueClass(c))
				}
				for other, d := range demand {
					if d[c] > demand[name][c] && shares[other][c] < q[c] {
						t.Fatalf("budget %v, demands %v: %s demands more %v than %s but gets less", g, demand, other, repo.QueueClass(c), name)
					}
				}
			}
		}
		if sum != g {
			t.Fatalf("budget %v, demands %v: shares sum to %v", g, demand, sum)
		}
	}
	if q := cluster.Allocate(frontier.Quota{classNew: 1 << 62}, map[string]frontier.Demand{"a": {classNew: 1 << 62}, "b": {classNew: 1 << 61}}); q["a"].Total()+q["b"].Total() != 1<<62 {
		t.Errorf("a budget of 2^62 splits into %v", q)
	}
}

// budgetNode is a cluster member with a frontier whose budget is its
// share, its heartbeat ticked by hand.
type budgetNode struct {
	m  *cluster.Member
	f  *frontier.Frontier
	db *repo.DB
}

// newBudgetNode joins url as name with a frontier holding queued new URLs
// and pages already fetched, so its demand is (queued, fetched) in the
// classes new and recrawl.
func newBudgetNode(t *testing.T, url, name string, clk clock.Clock, fcfg frontier.Config, queued, fetched int) *budgetNode {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := repo.Open(t.TempDir(), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := db.NewBatch(t.Context())
	for i := range fetched {
		b.PutPage(&repo.Page{URL: fmt.Sprintf("http://%s.test/old%d", name, i), State: repo.StateLive, Fetches: 1})
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	m, err := cluster.Join(t.Context(), cluster.Config{URL: url, Node: name, Shards: 4, Replicas: 1, LeaseTTL: 2 * time.Second, Dedup: time.Minute},
		cluster.Options{Clock: clk, Repo: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	c, err := crawler.New(cfg.Crawler, db, m.CrawlerOptions())
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(t.Context(), db, fcfg, c.Gate(), frontier.Uniform{}, frontier.Options{Clock: clk, Quota: m.Budget(fcfg)})
	if err != nil {
		t.Fatal(err)
	}
	batch := db.NewBatch(t.Context())
	var items []repo.QueueItem
	for i := range queued {
		it, err := f.Enqueue(batch, fmt.Sprintf("http://%s.test/new%d", name, i), repo.ReasonLink, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := batch.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Publish(items...)
	cluster.Heartbeats(m, c, f)
	return &budgetNode{m: m, f: f, db: db}
}

// limit is the node's budget for the clock's period, which the frontier
// asks its member for when first used in the period.
func (n *budgetNode) limit(t *testing.T) int {
	t.Helper()
	if job, ok := n.f.TryNext(); ok {
		n.f.Defer(job, time.Time{}) // not fetched: given back
	}
	return n.f.Stats().BudgetLimit
}

// TestSharesFollowDemandAndADeadNodesShareMoves joins three nodes with
// unequal demands to a real NATS server: each must spend the share that
// Allocate gives it, the three summing to the cluster's budget, and once
// one stops heartbeating its share goes to the other two at the next
// period.
func TestSharesFollowDemandAndADeadNodesShareMoves(t *testing.T) {
	nc := natstest.Start(t, 1)
	p0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewManual(p0.Add(-10 * time.Second))
	fcfg := frontier.Config{Policy: "uniform", Budget: frontier.BudgetConfig{Fetches: 240, Period: time.Minute},
		Split: frontier.SplitConfig{Recrawl: 0.25}, HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	nodes := map[string]*budgetNode{
		"a": newBudgetNode(t, nc.URL(), "a", clk, fcfg, 60, 0),
		"b": newBudgetNode(t, nc.URL(), "b", clk, fcfg, 20, 30),
		"c": newBudgetNode(t, nc.URL(), "c", clk, fcfg, 0, 10),
	}
	beat := func(names ...string) {
		for _, name := range names {
			if err := nodes[name].m.Leases().Tick(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	beat("a", "b", "c") // demands measured before p0
	clk.Set(p0)
	// The same demands as TestAllocateFollowsDemandAndSumsToTheBudget's.
	want := map[string]int{"a": 128, "b": 90, "c": 22}
	total := 0
	for _, name := range []string{"a", "b", "c"} {
		got := nodes[name].limit(t)
		total += got
		if got != want[name] {
			t.Errorf("node %s's budget in the first period = %d, want %d", name, got, want[name])
		}
	}
	if total != fcfg.Budget.Fetches {
		t.Errorf("the nodes' budgets sum to %d, want the cluster's %d", total, fcfg.Budget.Fetches)
	}
	// Heartbeats within p0 measure new demands but do not move p0's.
	beat("a", "b", "c")
	st, err := cluster.ReadStatus(t.Context(), nc.URL(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if ns := st.Nodes["b"]; ns.Settled != (frontier.Demand{classNew: 20, classRecrawl: 30}) || ns.Share.Total() != 90 {
		t.Errorf("status of b: demand %v, share %v; want 20/30 and 90 in all", ns.Settled, ns.Share)
	}

	// c stops heartbeating; its heartbeat expires (the server's TTL).
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := cluster.ReadStatus(t.Context(), nc.URL(), 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, alive := st.Nodes["c"]; !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("c's heartbeat did not expire")
		}
		beat("a", "b")
	}
	if got := nodes["a"].limit(t); got != want["a"] {
		t.Errorf("a's budget changed within the period to %d", got)
	}
	clk.Set(p0.Add(time.Minute))
	// a's and b's demands as measured in p0: unchanged, nothing fetched.
	shares := cluster.Allocate(frontier.QuotaOf(fcfg), map[string]frontier.Demand{
		"a": {classNew: 60}, "b": {classNew: 20, classRecrawl: 30}})
	total = 0
	for _, name := range []string{"a", "b"} {
		got := nodes[name].limit(t)
		total += got
		if got != shares[name].Total() || got <= want[name] {
			t.Errorf("node %s's budget once c is gone = %d, want %d (more than %d)", name, got, shares[name].Total(), want[name])
		}
	}
	if total != fcfg.Budget.Fetches {
		t.Errorf("the two nodes' budgets sum to %d, want the cluster's %d", total, fcfg.Budget.Fetches)
	}
}
