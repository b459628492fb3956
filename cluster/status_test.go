package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/cluster/natstest"
)

func TestSettingsWithoutAURLNeedNoNodeButStillTheirLimits(t *testing.T) {
	if err := (Config{Shards: 12, Replicas: 3, LeaseTTL: 15 * time.Second, Dedup: time.Minute, SearchTimeout: 2 * time.Second}).ValidateSettings(); err != nil {
		t.Errorf("ValidateSettings() of a single machine's settings = %v", err)
	}
	err := Config{Node: "a b", Shards: 5000, Replicas: 3, LeaseTTL: time.Second, Dedup: time.Second}.ValidateSettings()
	for _, want := range []string{`cluster.node = "a b"`, "cluster.shards = 5000", "cluster.search_timeout = 0s: must be in (0, 1m]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateSettings() = %v, want it to name %q", err, want)
		}
	}
	if err := (Config{URL: "nats://x", Shards: 1, Replicas: 1, LeaseTTL: time.Second, Dedup: time.Second}).Validate(); err == nil || !strings.Contains(err.Error(), "cluster.node") {
		t.Errorf("Validate() of a joining node without a name = %v", err)
	}
	// A node that joins only to crawl may leave the search timeout unset,
	// but not set it out of range.
	crawler := Config{URL: "nats://x", Node: "n0", Shards: 1, Replicas: 1, LeaseTTL: time.Second, Dedup: time.Second}
	if err := crawler.Validate(); err != nil {
		t.Errorf("Validate() of a crawl-only node = %v", err)
	}
	crawler.SearchTimeout = -time.Second
	if err := crawler.Validate(); err == nil || !strings.Contains(err.Error(), "cluster.search_timeout = -1s: must be in (0, 1m]") {
		t.Errorf("Validate() with a negative search timeout = %v", err)
	}
}

// TestStatusShowsOwnersAndHeartbeats joins two nodes to one server and
// reads the cluster's state as `deltaq cluster status` does.
func TestStatusShowsOwnersAndHeartbeats(t *testing.T) {
	nc := natstest.Start(t, 1)
	const shards = 4
	var ms []*Member
	for _, name := range []string{"a", "b"} {
		cfg := testConfig(nc.URL(), name, shards)
		cfg.Replicas = 1
		m, err := Join(t.Context(), cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		beat := []byte(`{"fetched":7,"rate":1.5,"idle":true}`)
		m.leases.status = func() []byte { return beat }
		ms = append(ms, m)
	}
	ticked(t, ms, func() bool { return len(ms[0].leases.Owned()) == 2 && len(ms[1].leases.Owned()) == 2 })
	st, err := ReadStatus(t.Context(), nc.URL(), shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Shards) != shards {
		t.Fatalf("%d shards reported, want %d", len(st.Shards), shards)
	}
	for _, s := range st.Shards {
		want := "b"
		if ms[0].leases.Owns(s.Shard) {
			want = "a"
		}
		if s.Owner != want {
			t.Errorf("shard %d owned by %q, want %q", s.Shard, s.Owner, want)
		}
	}
	if len(st.Nodes) != 2 || st.Nodes["a"].Fetched != 7 || !st.Nodes["b"].Idle {
		t.Errorf("nodes = %+v, want a and b with their heartbeats", st.Nodes)
	}
	var out strings.Builder
	if err := st.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "a     2       7        1.5") {
		t.Errorf("status table lacks node a's row:\n%s", out.String())
	}
	// Idle as far as the heartbeats say: every shard leased, both nodes
	// idle, nothing in the stream.
	ok, mark, err := ms[0].idle(t.Context())
	if err != nil || !ok || mark != 14 {
		t.Errorf("idle() = %v, %d, %v; want true, 14, nil", ok, mark, err)
	}
}
