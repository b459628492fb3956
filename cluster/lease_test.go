package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster/clustertest"
	"github.com/deltaq/deltaq/cluster/natstest"
)

func testConfig(url, node string, shards int) Config {
	return Config{URL: url, Node: node, Shards: shards, Replicas: 3, LeaseTTL: 2 * time.Second, Dedup: time.Minute}
}

// ticked ticks every member once per round until cond holds; a deadline
// far beyond a lease's TTL turns a stuck cluster into a failure, not a hang.
// A tick that fails is logged and the next round ticks again, as a
// member's Run does: three servers just started may still be electing a
// bucket's leader ("no response from stream").
func ticked(t *testing.T, ms []*Member, cond func() bool) {
	t.Helper()
	ctx := t.Context()
	var failed error
	clustertest.Until(t, "leases did not settle", 60*time.Second, func() error {
		if cond() {
			return nil
		}
		for _, m := range ms {
			if err := m.leases.Tick(ctx); err != nil {
				t.Logf("tick of %s: %v", m.cfg.Node, err)
				failed = err
			}
		}
		return fmt.Errorf("the last failed tick: %v", failed)
	})
}

func TestLeasesSplitShardsFairlyAndOutliveADeadNode(t *testing.T) {
	nc := natstest.Start(t, 3)
	const shards = 12
	var ms []*Member
	for i := range 3 {
		m, err := Join(t.Context(), testConfig(nc.URL(), fmt.Sprintf("n%d", i), shards), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		ms = append(ms, m)
	}
	owners := func(ms []*Member) (map[int][]string, []int) {
		by := map[int][]string{}
		var counts []int
		for _, m := range ms {
			owned := m.leases.Owned()
			counts = append(counts, len(owned))
			for _, s := range owned {
				by[s] = append(by[s], m.cfg.Node)
			}
		}
		return by, counts
	}
	balanced := func(ms []*Member, each int) func() bool {
		return func() bool {
			by, counts := owners(ms)
			return len(by) == shards && slices.Max(counts) == each && slices.Min(counts) == each
		}
	}
	// All three join at once: after a few rounds each holds a third.
	ticked(t, ms, balanced(ms, shards/3))
	by, _ := owners(ms)
	for s, nodes := range by {
		if len(nodes) != 1 {
			t.Errorf("shard %d held by %v", s, nodes)
		}
	}

	// n2 dies: it stops renewing. Its leases expire on the servers, and the
	// two others, seeing two heartbeats, take six shards each.
	dead := ms[2].leases.Owned()
	ms[2].Close()
	ticked(t, ms[:2], balanced(ms[:2], shards/2))
	by, _ = owners(ms[:2])
	for _, s := range dead {
		if len(by[s]) != 1 {
			t.Errorf("shard %d of the dead node: held by %v, want one survivor", s, by[s])
		}
	}
	// Meanwhile the dead node's own view has run out: it owns nothing.
	if owned := ms[2].leases.Owned(); len(owned) != 0 {
		t.Errorf("the dead node still believes it owns %v", owned)
	}
}

func TestConfigRejectsBadValuesByKey(t *testing.T) {
	err := Config{Node: "a.b", Shards: 0, Replicas: 2}.Validate()
	for _, want := range []string{"cluster.url", `cluster.node = "a.b"`, "cluster.shards = 0", "cluster.replicas = 2", "cluster.lease_ttl", "cluster.dedup"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %q", err, want)
		}
	}
	if _, err := Join(context.Background(), Config{}, Options{}); err == nil {
		t.Error("Join accepted an empty config")
	}
}

// TestJoinNamesReplicasASingleServerCannotHold: a NATS server that runs
// alone holds one copy of each stream and bucket; a node asking it for
// cluster.replicas = 3 (the default) was told only "replicas > 1 not
// supported in non-clustered mode" of a bucket, naming no setting.
func TestJoinNamesReplicasASingleServerCannotHold(t *testing.T) {
	nc := natstest.Start(t, 1)
	m, err := Join(t.Context(), testConfig(nc.URL(), "a", 4), Options{})
	if err == nil {
		m.Close()
		t.Fatal("a single server took cluster.replicas = 3")
	}
	for _, want := range []string{"cluster.replicas = 3", nc.URL(), "cluster.replicas: 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Join: %v; want it to name %q", err, want)
		}
	}
}

// TestJoinRefusesTheNameOfARunningNode: a second node given the name of a
// running one took its leases every tick and was counted as the same
// node, so that both waited for ever for --wait-nodes 2; it is refused,
// naming cluster.node. A node of that name that was killed, its heartbeat
// left to expire, is no obstacle once the heartbeat has expired.
func TestJoinRefusesTheNameOfARunningNode(t *testing.T) {
	nc := natstest.Start(t, 1)
	cfg := testConfig(nc.URL(), "a", 4)
	cfg.Replicas = 1
	running, err := Join(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- running.leases.run(ctx, func() {}) }()
	clustertest.Until(t, "the running node's heartbeat", 10*time.Second, func() error {
		_, err := running.leases.nodes.Get(t.Context(), "a")
		return err
	})
	if m, err := Join(t.Context(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), `cluster.node = "a": a node of that name is running`) {
		if m != nil {
			m.Close()
		}
		t.Fatalf("a second node named a: %v; want it refused, naming cluster.node", err)
	}
	stop()
	<-done

	// The node is killed after one heartbeat: it never renews it.
	if err := running.leases.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	running.Close()
	start := time.Now()
	m, err := Join(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatalf("a node restarted under a killed one's name: %v", err)
	}
	m.Close()
	if took := time.Since(start); took > cfg.LeaseTTL+time.Second {
		t.Errorf("the restarted node waited %s, more than cluster.lease_ttl (%s)", took, cfg.LeaseTTL)
	}
}
