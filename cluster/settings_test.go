package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster/natstest"
)

// TestNodesShareTheClustersShardsAndLeaseTTL: the first crawl node to
// join sets the cluster's shard count and lease TTL; a node joining with
// others is refused, naming each setting, its value and the cluster's,
// and leaves the buckets' TTL alone; the cluster's status shows the
// cluster's shard count whatever the reader's configuration says.
func TestNodesShareTheClustersShardsAndLeaseTTL(t *testing.T) {
	nc := natstest.Start(t, 1)
	ctx := t.Context()
	cfg := testConfig(nc.URL(), "a", 4)
	cfg.Replicas = 1
	a, err := Join(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)

	other := cfg
	other.Node = "b"
	shardsErr := "cluster.shards = 8: the cluster at " + nc.URL() + " has 4 shards"
	ttlErr := "cluster.lease_ttl = 3s: the cluster at " + nc.URL() + " has leases of 2s"
	for _, c := range []struct {
		shards int
		ttl    time.Duration
		want   []string
	}{
		{8, cfg.LeaseTTL, []string{shardsErr}},
		{4, 3 * time.Second, []string{ttlErr}},
		{8, 3 * time.Second, []string{shardsErr, ttlErr}},
	} {
		other.Shards, other.LeaseTTL = c.shards, c.ttl
		m, err := Join(ctx, other, Options{})
		if err == nil {
			m.Close()
			t.Errorf("a node of %d shards and leases of %v joined a cluster of 4 and 2s", c.shards, c.ttl)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("join with %d shards and leases of %v: %v; want it to say %q", c.shards, c.ttl, err, w)
			}
		}
	}
	beats, err := nc.JetStream(t).KeyValue(ctx, nodeBucket)
	if err != nil {
		t.Fatal(err)
	}
	s, err := beats.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.TTL() != cfg.LeaseTTL {
		t.Errorf("the heartbeats' TTL after the refused joins: %v, want %v", s.TTL(), cfg.LeaseTTL)
	}

	other.Shards, other.LeaseTTL = cfg.Shards, cfg.LeaseTTL
	b, err := Join(ctx, other, Options{})
	if err != nil {
		t.Fatalf("a node with the cluster's settings: %v", err)
	}
	t.Cleanup(b.Close)
	ticked(t, []*Member{a, b}, func() bool { return len(a.leases.Owned()) == 2 && len(b.leases.Owned()) == 2 })
	status, err := ReadStatus(ctx, nc.URL(), 16)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.Shards) != 4 {
		t.Errorf("status read with cluster.shards 16 shows %d shards, want the cluster's 4", len(status.Shards))
	}
}
