package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
)

// TestANodeJoinsACrawlThatHasBegun: two nodes waiting for a third do not
// begin; waiting for two, they do. One of them then dies, and a node that
// comes later waiting for three joins the crawl that has begun, once the
// shards are split fairly with it, instead of waiting for a node that is
// gone. Before a node's heartbeat said it had begun, such a node waited
// forever: a NATS request lost for a minute made a node miss the moment
// the others began, and one of them was killed meanwhile.
func TestANodeJoinsACrawlThatHasBegun(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	nc := natstest.Start(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a guard against a hang
	defer cancel()
	const shards = 4
	type running struct {
		m    *cluster.Member
		stop context.CancelFunc
		done chan struct{} // closed once Run has returned err
		err  error
		run  func() // starts Run
	}
	join := func(name string) *running {
		cfg := crawlConfig(t, srv, nil)
		db := openRepo(t, cfg)
		m, err := cluster.Join(ctx, cluster.Config{URL: nc.URL(), Node: name, Shards: shards, Replicas: 1,
			LeaseTTL: 3 * time.Second, Dedup: time.Hour}, cluster.Options{Repo: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		n := newNode(t, cfg, db, m)
		runCtx, stop := context.WithCancel(ctx)
		r := &running{m: m, stop: stop, done: make(chan struct{})}
		r.run = func() {
			go func() { r.err = m.Run(runCtx, n.c, n.f); close(r.done) }()
			t.Cleanup(func() { stop(); <-r.done })
		}
		return r
	}
	start := func(name string) *running {
		r := join(name)
		r.run()
		return r
	}
	n0, n1 := start("n0"), start("n1")

	// Four lease ticks: time enough to split the shards, and no node has
	// begun, so two nodes are not the three asked for.
	if err := waitsOut(ctx, n0.m, 3, 4*time.Second); err != nil {
		t.Fatalf("WaitNodes(3) with two nodes alive, none crawling: %v", err)
	}
	for _, n := range []*running{n0, n1} {
		if err := n.m.WaitNodes(ctx, 2); err != nil {
			t.Fatal(err)
		}
	}

	n1.stop() // it leaves: its leases and heartbeat go
	if <-n1.done; n1.err != nil {
		t.Fatal(n1.err)
	}
	// Until its first heartbeat a node is not one of the nodes, and its
	// share is not yet split off: it waits, even though the crawl has
	// begun and the live nodes hold every shard.
	n2 := join("n2")
	if err := waitsOut(ctx, n2.m, 3, 2*time.Second); err != nil {
		t.Fatalf("WaitNodes(3) of a node not yet heartbeating: %v", err)
	}
	n2.run()
	if err := n2.m.WaitNodes(ctx, 3); err != nil {
		t.Fatalf("WaitNodes(3) of a node joining a crawl begun by nodes of which one is left: %v", err)
	}
	st, err := cluster.ReadStatus(ctx, nc.URL(), shards)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	for _, s := range st.Shards {
		held[s.Owner]++
	}
	if want := map[string]int{"n0": shards / 2, "n2": shards / 2}; fmt.Sprint(held) != fmt.Sprint(want) {
		t.Errorf("shards held when n2 began: %v, want %v", held, want)
	}
	// Its next heartbeat tells nodes coming later that it has begun.
	clustertest.Until(t, "n2's heartbeat did not say it had begun", 10*time.Second, func() error {
		st, err := cluster.ReadStatus(ctx, nc.URL(), shards)
		if err == nil && !st.Nodes["n2"].Crawling {
			err = fmt.Errorf("n2's heartbeat: %+v", st.Nodes["n2"])
		}
		return err
	})
}

// waitsOut calls m.WaitNodes(n) for d and reports an error unless it kept
// waiting until then.
func waitsOut(ctx context.Context, m *cluster.Member, n int, d time.Duration) error {
	short, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := m.WaitNodes(short, n)
	switch {
	case err == nil:
		return errors.New("it returned, want it to wait")
	case short.Err() == nil:
		return fmt.Errorf("it failed before its deadline: %w", err)
	}
	return nil
}
