package cluster_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
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
	// Re-fetches: the demands, 40, fit in 60; the 20 left join the 180
	// for new URLs. New URLs: a floor of 200/(8·3) = 8 each, the other 176
	// as 60:20:0.
	want := map[string]frontier.Quota{
		"a": {classNew: 140},
		"b": {classNew: 52, classRecrawl: 30},
		"c": {classNew: 8, classRecrawl: 10},
	}
	if !maps.Equal(got, want) {
		t.Errorf("Allocate = %v, want %v", got, want)
	}
	// Re-fetch demands beyond the class's budget: shares in proportion,
	// 60 as 30:90 (15, 45), and nothing left for new URLs but the floor.
	got = cluster.Allocate(global, map[string]frontier.Demand{"a": {classRecrawl: 30}, "b": {classNew: 5, classRecrawl: 90}})
	if want := (map[string]frontier.Quota{"a": {classNew: 11, classRecrawl: 15}, "b": {classNew: 169, classRecrawl: 45}}); !maps.Equal(got, want) {
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
				if c != int(classNew) && q[c] > demand[name][c] {
					t.Fatalf("budget %v, demands %v: %s gets %d %v fetches, more than its demand", g, demand, name, q[c], repo.QueueClass(c))
				}
				for other, d := range demand {
					if d[c] > demand[name][c] && shares[other][c] < q[c] {
						t.Fatalf("budget %v, demands %v: %s demands more %v than %s but gets less", g, demand, other, repo.QueueClass(c), name)
					}
				}
			}
		}
		if sum.Total() != g.Total() || sum[classRecrawl] > g[classRecrawl] {
			t.Fatalf("budget %v, demands %v: shares sum to %v", g, demand, sum)
		}
		for name, q := range shares {
			if sum[classNew] >= len(demand) && q[classNew] < 1 {
				t.Fatalf("budget %v, demands %v: %s gets no new URL", g, demand, name)
			}
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

// budgetCluster is the budget tests' cluster: one NATS server, a manual
// clock 10 s before the first period p0, a budget of 240 fetches a
// minute, and the nodes joined by name.
type budgetCluster struct {
	nc    *natstest.Cluster
	clk   *clock.Manual
	p0    time.Time
	fcfg  frontier.Config
	nodes map[string]*budgetNode
}

func newBudgetCluster(t *testing.T) *budgetCluster {
	t.Helper()
	p0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	return &budgetCluster{nc: natstest.Start(t, 1), clk: clock.NewManual(p0.Add(-10 * time.Second)), p0: p0,
		fcfg: frontier.Config{Policy: "uniform", Budget: frontier.BudgetConfig{Fetches: 240, Period: time.Minute},
			Split: frontier.SplitConfig{Recrawl: 0.25}, HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"},
		nodes: map[string]*budgetNode{}}
}

// join joins a node with queued new URLs.
func (bc *budgetCluster) join(t *testing.T, name string, queued int) {
	t.Helper()
	bc.nodes[name] = newBudgetNode(t, bc.nc.URL(), name, bc.clk, bc.fcfg, queued)
}

// beat ticks the named nodes' leases, a heartbeat each.
func (bc *budgetCluster) beat(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := bc.nodes[name].m.Leases().Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// newBudgetNode joins url as name with a frontier holding queued new
// URLs: its demand.
func newBudgetNode(t *testing.T, url, name string, clk clock.Clock, fcfg frontier.Config, queued int) *budgetNode {
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
	quota, err := m.Budget(t.Context(), fcfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(t.Context(), db, fcfg, c.Gate(), frontier.Uniform{}, frontier.Options{Clock: clk, Quota: quota})
	if err != nil {
		t.Fatal(err)
	}
	n := &budgetNode{m: m, f: f, db: db}
	n.queue(t, name, 0, queued, clk.Now())
	cluster.Heartbeats(m, c, f)
	return n
}

// queue queues new URLs from, …, to-1 of host name, due at due.
func (n *budgetNode) queue(t *testing.T, name string, from, to int, due time.Time) {
	t.Helper()
	batch := n.db.NewBatch(t.Context())
	defer batch.Close()
	var items []repo.QueueItem
	for i := from; i < to; i++ {
		it, err := n.f.Enqueue(batch, fmt.Sprintf("http://%s.test/new%d", name, i), repo.ReasonLink, due)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := batch.Commit(); err != nil {
		t.Fatal(err)
	}
	n.f.Publish(items...)
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
	bc := newBudgetCluster(t)
	bc.join(t, "a", 60)
	bc.join(t, "b", 20)
	bc.join(t, "c", 0)
	nc, clk, p0, fcfg, nodes := bc.nc, bc.clk, bc.p0, bc.fcfg, bc.nodes
	beat := func(names ...string) { bc.beat(t, names...) }
	beat("a", "b", "c") // demands measured before p0
	clk.Set(p0)
	// No re-fetch demand (no plan has run): the whole 240 goes to new URLs,
	// a floor of 10 each and 210 as 60:20:0 (157.5, 52.5; the one left
	// over to a, first by name on a tie).
	want := map[string]int{"a": 168, "b": 62, "c": 10}
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
	if ns := st.Nodes["b"]; ns.Settled != (frontier.Demand{classNew: 20}) || ns.Share.Total() != 62 {
		t.Errorf("status of b: demand %v, share %v; want 20 new URLs and 62 in all", ns.Settled, ns.Share)
	}
	var out strings.Builder
	if err := st.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "DEMAND N/R/D/M  SHARE N/R/D/M") || !strings.Contains(out.String(), "20/0/0/0        62/0/0/0") {
		t.Errorf("status table lacks b's demand and share:\n%s", out.String())
	}

	// c stops heartbeating; its heartbeat expires (the server's TTL).
	clustertest.Until(t, "c's heartbeat did not expire", time.Minute, func() error {
		st, err := cluster.ReadStatus(t.Context(), nc.URL(), 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, alive := st.Nodes["c"]; alive {
			beat("a", "b")
			return errors.New("c is still listed")
		}
		return nil
	})
	if got := nodes["a"].limit(t); got != want["a"] {
		t.Errorf("a's budget changed within the period to %d", got)
	}
	// a's demand grows just before the next period: too late for it (a
	// heartbeat measured then might not be stored when the others ask).
	clk.Set(p0.Add(time.Minute - 100*time.Millisecond))
	nodes["a"].queue(t, "a", 60, 90, clk.Now())
	beat("a", "b")
	clk.Set(p0.Add(time.Minute))
	// a's and b's demands as measured in p0, more than a lease tick before.
	shares := cluster.Allocate(frontier.QuotaOf(fcfg), map[string]frontier.Demand{
		"a": {classNew: 60}, "b": {classNew: 20}})
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

// TestANodeJoiningMidPeriodSpendsFromTheNextPeriod: the first node to ask
// for a period stores its allocation, and every node spends its share of
// that one. A node joining after it was stored gets nothing until the
// next period, so the shares still sum to the cluster's budget; it is in
// the next period's allocation. A stored value that cannot be decoded is
// replaced.
func TestANodeJoiningMidPeriodSpendsFromTheNextPeriod(t *testing.T) {
	bc := newBudgetCluster(t)
	bc.join(t, "a", 60)
	bc.join(t, "b", 20)
	clk, p0, fcfg, nodes := bc.clk, bc.p0, bc.fcfg, bc.nodes
	beat := func(names ...string) { bc.beat(t, names...) }
	beat("a", "b")
	// A value nobody can decode is replaced, not spent from.
	kv, err := bc.nc.JetStream(t).KeyValue(t.Context(), "deltaq_budget")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(t.Context(), "allocation", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	clk.Set(p0)
	a := nodes["a"].limit(t) // a stores p0's allocation
	// c joins with the most queued and heartbeats before b asks: b still
	// spends its share of the stored allocation, c nothing.
	bc.join(t, "c", 200)
	beat("c")
	b, c := nodes["b"].limit(t), nodes["c"].limit(t)
	two := cluster.Allocate(frontier.QuotaOf(fcfg), map[string]frontier.Demand{"a": {classNew: 60}, "b": {classNew: 20}})
	if a != two["a"].Total() || b != two["b"].Total() || c != 0 {
		t.Errorf("budgets in the period c joined: a %d, b %d, c %d; want %d, %d, 0", a, b, c, two["a"].Total(), two["b"].Total())
	}
	if a+b+c != fcfg.Budget.Fetches {
		t.Errorf("the budgets sum to %d, want the cluster's %d", a+b+c, fcfg.Budget.Fetches)
	}

	// The next period is divided among the three.
	beat("a", "b", "c")
	clk.Set(p0.Add(time.Minute))
	three := cluster.Allocate(frontier.QuotaOf(fcfg), map[string]frontier.Demand{
		"a": {classNew: 60}, "b": {classNew: 20}, "c": {classNew: 200}})
	total := 0
	for _, name := range []string{"c", "a", "b"} {
		got := nodes[name].limit(t)
		total += got
		if got != three[name].Total() {
			t.Errorf("node %s's budget in the next period = %d, want %d", name, got, three[name].Total())
		}
	}
	if total != fcfg.Budget.Fetches {
		t.Errorf("the budgets sum to %d in the next period, want the cluster's %d", total, fcfg.Budget.Fetches)
	}
}

// TestANodeAskingLateSpendsTheStoredAllocation: a node that asks for a
// period after later periods' allocations were stored (stalled on a busy
// machine) spends its share of the allocation the others spent, found in
// the bucket's history. One asking for a period older than the history
// takes a share of its own making, reported as apart from the stored
// allocation, and the next period it asks for in time is the stored
// one's again.
func TestANodeAskingLateSpendsTheStoredAllocation(t *testing.T) {
	bc := newBudgetCluster(t)
	bc.join(t, "a", 60)
	bc.join(t, "b", 20)
	clk, p0, budget := bc.clk, bc.p0, bc.fcfg.Budget.Fetches
	a, b := bc.nodes["a"].m, bc.nodes["b"].m
	period := func(k int) time.Time { return p0.Add(time.Duration(k) * time.Minute) }
	shares := map[int]frontier.Quota{} // a's, by period
	// a asks for each period in time, b for none: each period's
	// allocation is stored by a. Heartbeats keep both alive (their TTL
	// runs on the servers' clock).
	for k := 0; k <= cluster.BudgetHistory+1; k++ {
		bc.beat(t, "a", "b")
		clk.Set(period(k))
		q, agreed := cluster.Share(a, period(k))
		if !agreed {
			t.Fatalf("a's share of period %d, the first asked for: not the stored allocation's", k)
		}
		shares[k] = q
	}
	last := cluster.BudgetHistory + 1
	// b asks late for a period still kept, then for one kept no longer.
	for _, late := range []struct {
		k    int
		kept bool
	}{{last - cluster.BudgetHistory + 1, true}, {1, false}} {
		qb, agreed := cluster.Share(b, period(late.k))
		if agreed != late.kept {
			t.Errorf("b's share of period %d, asked after %d later allocations were stored: stored allocation's = %v, want %v",
				late.k, last-late.k, agreed, late.kept)
		}
		if sum := shares[late.k].Total() + qb.Total(); late.kept && sum != budget {
			t.Errorf("a's and b's shares of period %d sum to %d, want the cluster's %d", late.k, sum, budget)
		}
	}
	qb, agreed := cluster.Share(b, period(last))
	if !agreed {
		t.Error("b's share of the current period: not the stored allocation's")
	}
	if sum := shares[last].Total() + qb.Total(); sum != budget {
		t.Errorf("a's and b's shares of the current period sum to %d, want the cluster's %d", sum, budget)
	}
}
