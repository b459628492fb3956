package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
)

// The crawl of TestThreeNodesSpendTheClusterBudget: a budget of
// clusterBudget fetches per second, far too small to finish the replay in
// budgetPeriods seconds, over budgetShards shards.
const (
	clusterBudget = 60
	budgetPeriods = 10
	budgetShards  = 12
)

// periodUse is one node's budget period: its share, the most of it seen
// spent, and whether the share was ever not of the period's stored
// allocation (an even split or the node's own: cluster.Share).
type periodUse struct {
	limit, used int
	apart       bool
}

// TestThreeNodesSpendTheClusterBudget crawls the loopback replay with
// three nodes on a small budget, reading each node's frontier as the
// crawl goes, once with the budget divided (Member.Budget) and once with
// every node spending the whole budget, as nodes did before. No node may
// hand out more than its share, and divided, in every period whose shares
// are all of the period's stored allocation the three must sum to the
// cluster's budget. A node that cannot read the allocation within a lease
// tick, or asks after 16 later periods' were stored (a machine so busy
// that a node stalls for that many seconds), takes a share apart, which
// the report marks; so does a period in which the sampler, as busy, did
// not read every node. At least one period must be whole.
func TestThreeNodesSpendTheClusterBudget(t *testing.T) {
	srv, hosts := testWeb(t)
	for _, divided := range []bool{true, false} {
		periods, use := crawlOnBudget(t, srv, hosts, divided)
		var report strings.Builder
		fmt.Fprintf(&report, "%-9s %-15s %-15s %s\n", "period", "share n0/n1/n2", "spent n0/n1/n2", "spent in all")
		spentAll, most, whole := 0, 0, 0
		for _, p := range periods {
			limits, spent, apart := 0, 0, false
			var ls, ss []string
			for i := range use {
				u, sampled := use[i][p]
				limits += u.limit
				spent += u.used
				apart = apart || u.apart || !sampled
				l := fmt.Sprint(u.limit)
				switch {
				case !sampled:
					l = "?"
				case u.apart:
					l += "*"
				}
				ls, ss = append(ls, l), append(ss, fmt.Sprint(u.used))
				if u.used > u.limit {
					t.Errorf("period %s: node %d spent %d of a share of %d", p.Format("15:04:05"), i, u.used, u.limit)
				}
			}
			if divided && !apart {
				whole++
				if limits != clusterBudget {
					t.Errorf("period %s: shares %v sum to %d, want the cluster's budget %d", p.Format("15:04:05"), ls, limits, clusterBudget)
				}
			}
			fmt.Fprintf(&report, "%-9s %-15s %-15s %d\n", p.Format("15:04:05"), strings.Join(ls, "/"), strings.Join(ss, "/"), spent)
			spentAll += spent
			most = max(most, spent)
		}
		if len(periods) < budgetPeriods/2 {
			t.Fatalf("only %d whole periods seen", len(periods))
		}
		if divided && whole == 0 {
			t.Errorf("no period of %d had every share of its stored allocation", len(periods))
		}
		how := "divided among the nodes (*: a share apart from the period's stored allocation; ?: a node not sampled in the period)"
		if !divided {
			how = "spent by every node"
		}
		t.Logf("budget %d per 1s period %s:\n%s%d periods: %d fetches, %.1f per period (%.2f× the budget), at most %d in one",
			clusterBudget, how, report.String(), len(periods), spentAll, float64(spentAll)/float64(len(periods)),
			float64(spentAll)/float64(len(periods)*clusterBudget), most)
	}
}

// crawlOnBudget runs three nodes on one NATS server for budgetPeriods
// seconds and returns the whole periods seen, in order (the first, which
// began before the crawl, and the last, cut short, left out), and each
// node's use of each. divided gives each node its share of the budget;
// otherwise each spends all of it.
func crawlOnBudget(t *testing.T, srv *httptest.Server, hosts []string, divided bool) ([]time.Time, []map[time.Time]periodUse) {
	nc := natstest.Start(t, 1)
	var nodes []*node
	for i := range 3 {
		cfg := crawlConfig(t, srv, hosts)
		cfg.Frontier.Budget.Fetches, cfg.Frontier.Budget.Period = clusterBudget, time.Second
		db := openRepo(t, cfg)
		m, err := cluster.Join(t.Context(), cluster.Config{URL: nc.URL(), Node: fmt.Sprintf("n%d", i), Shards: budgetShards,
			Replicas: 1, LeaseTTL: 6 * time.Second, Dedup: time.Hour}, cluster.Options{Repo: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		n := newNode(t, cfg, db, m)
		if divided {
			// The frontier `deltaq crawl --cluster` wires, over the same repository.
			policy, err := frontier.NewPolicy(cfg.Frontier.Policy, cfg.Frontier, nil)
			if err != nil {
				t.Fatal(err)
			}
			quota, err := m.Budget(t.Context(), cfg.Frontier)
			if err != nil {
				t.Fatal(err)
			}
			if n.f, err = frontier.New(t.Context(), db, cfg.Frontier, n.c.Gate(), policy, frontier.Options{Quota: quota}); err != nil {
				t.Fatal(err)
			}
		}
		nodes = append(nodes, n)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute) // a guard against a hang
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	for _, n := range nodes {
		g.Go(func() error { return n.m.Run(gctx, n.c, n.f) })
	}
	for _, n := range nodes {
		if err := n.m.WaitNodes(gctx, len(nodes)); err != nil {
			var status strings.Builder
			if st, err := cluster.ReadStatus(t.Context(), nc.URL(), budgetShards); err != nil {
				fmt.Fprintf(&status, "(unreadable: %v)", err)
			} else if err := st.Write(&status); err != nil {
				fmt.Fprintf(&status, "(%v)", err)
			}
			t.Fatalf("waiting for %d nodes fairly leased: %v; the cluster:\n%s", len(nodes), err, status.String())
		}
	}
	var seeds []string
	for _, h := range hosts {
		seeds = append(seeds, "http://"+h+"/")
	}
	for _, n := range nodes {
		if _, err := n.c.Seed(gctx, n.f, seeds); err != nil {
			t.Fatal(err)
		}
	}

	// Each node read every few milliseconds: its share of the period now
	// (what its frontier gets when first used in the period) and the most
	// its frontier has handed out in it (a job deferred gives its count
	// back). A frontier not used in a period hands out nothing in it.
	var mu sync.Mutex
	use := make([]map[time.Time]periodUse, len(nodes))
	for i := range use {
		use[i] = map[time.Time]periodUse{}
	}
	crawlCtx, stop := context.WithTimeout(gctx, budgetPeriods*time.Second)
	defer stop()
	// The crawlers stop before their members, as `deltaq crawl --cluster`
	// stops them: a member's Run ended first would leave a crawler's
	// handoffs with nobody to publish them.
	var crawls errgroup.Group
	for _, n := range nodes {
		crawls.Go(func() error {
			_, err := n.c.Run(crawlCtx, n.f, crawler.RunOptions{})
			return err
		})
	}
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for crawlCtx.Err() == nil {
			for i, n := range nodes {
				p := time.Now().Truncate(time.Second)
				limit, agreed := clusterBudget, true
				if divided {
					var q frontier.Quota
					q, agreed = cluster.Share(n.m, p)
					limit = q.Total()
				}
				st := n.f.Stats()
				mu.Lock()
				u := use[i][p]
				u.limit = limit
				u.apart = u.apart || !agreed
				if st.PeriodStart.Equal(p) {
					u.used = max(u.used, st.BudgetUsed)
					if st.BudgetLimit != limit {
						t.Errorf("node %d: frontier's budget %d in period %s, its share %d", i, st.BudgetLimit, p.Format("15:04:05"), limit)
					}
				}
				use[i][p] = u
				mu.Unlock()
			}
			select {
			case <-crawlCtx.Done():
			case <-time.After(5 * time.Millisecond): // sampling, not a deadline
			}
		}
	}()
	<-crawlCtx.Done()
	end := time.Now()
	<-sampled
	if err := clustertest.Wait(t, "the crawlers' Run", time.Minute, crawls.Wait); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	cancel()
	if err := clustertest.Wait(t, "the members' Run", time.Minute, g.Wait); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	seen := map[time.Time]bool{}
	for i := range use {
		for p := range use[i] {
			seen[p] = true
		}
	}
	periods := slices.SortedFunc(maps.Keys(seen), time.Time.Compare)
	periods = slices.DeleteFunc(periods[1:], func(p time.Time) bool { return p.Add(time.Second).After(end) })
	return periods, use
}
