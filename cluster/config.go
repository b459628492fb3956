package cluster

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Config says how a node joins a cluster. Every node of a cluster must
// use the same Shards, Replicas, LeaseTTL and Dedup; Node names this one.
type Config struct {
	// URL lists the NATS servers, comma-separated (nats://host:4222,...).
	URL string
	// Node names this node; unique within the cluster.
	Node string
	// Shards is S, the number of host partitions (ShardOf).
	Shards int
	// Replicas is how many NATS servers hold each stream and bucket
	// (1, or 3 so that one server's loss does not stop the crawl).
	Replicas int
	// LeaseTTL is how long a shard lease and a node's heartbeat live
	// without renewal: how soon the shards of a dead node are taken over.
	// Leases are renewed every LeaseTTL/3.
	LeaseTTL time.Duration
	// Dedup is JetStream's message deduplication window for handed-over
	// URLs; beyond it the owner's repository is what deduplicates.
	Dedup time.Duration
}

// Validate reports every problem in c, each naming its field.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, v any, limit string) {
		errs = append(errs, fmt.Errorf("cluster.%s = %v: %s", key, v, limit))
	}
	if strings.TrimSpace(c.URL) == "" {
		bad("url", `""`, "must list at least one NATS server")
	}
	if c.Node == "" || strings.ContainsAny(c.Node, ". *>") {
		bad("node", fmt.Sprintf("%q", c.Node), "must be a non-empty name without dots, spaces, '*' or '>'")
	}
	if c.Shards < 1 || c.Shards > 4096 {
		bad("shards", c.Shards, "must be in [1, 4096]")
	}
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		bad("replicas", c.Replicas, "must be 1, 3 or 5")
	}
	if c.LeaseTTL < time.Second {
		bad("lease_ttl", c.LeaseTTL, "must be >= 1s")
	}
	if c.Dedup < time.Second {
		bad("dedup", c.Dedup, "must be >= 1s")
	}
	return errors.Join(errs...)
}
