package cluster

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config says how a node joins a cluster. Every node of a cluster must
// use the same Shards, Replicas, LeaseTTL and Dedup; Node names this one.
type Config struct {
	// URL lists the NATS servers, comma-separated (nats://host:4222,...).
	URL string `mapstructure:"url"`
	// Node names this node; unique within the cluster.
	Node string `mapstructure:"node"`
	// Shards is S, the number of host partitions (ShardOf).
	Shards int `mapstructure:"shards"`
	// Replicas is how many NATS servers hold each stream and bucket
	// (1, or 3 so that one server's loss does not stop the crawl).
	Replicas int `mapstructure:"replicas"`
	// LeaseTTL is how long a shard lease and a node's heartbeat live
	// without renewal: how soon the shards of a dead node are taken over.
	// Leases are renewed every LeaseTTL/3.
	LeaseTTL time.Duration `mapstructure:"lease_ttl"`
	// Dedup is JetStream's message deduplication window for queued URLs:
	// the cluster's memory of what it has queued (see the package doc).
	Dedup time.Duration `mapstructure:"dedup"`
	// SearchTimeout bounds each node's answer to each round of a search
	// fanned out over the nodes (SearchNode); a node slower than that is
	// left out and the answer marked partial.
	SearchTimeout time.Duration `mapstructure:"search_timeout"`
}

// Validate reports every problem in c, each naming its field: the
// settings a node needs to join.
func (c Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.URL) == "" {
		errs = append(errs, fmt.Errorf("cluster.url = \"\": must list at least one NATS server"))
	}
	return errors.Join(append(errs, c.validate(true))...)
}

// ValidateSettings reports the problems of a configuration that need not
// join a cluster (a single machine, or a command that only reads the
// cluster's state): the node name may be empty.
func (c Config) ValidateSettings() error { return c.validate(false) }

// nodeRule is what validNode asks of a node's name: it is a NATS subject
// token (SearchSubject) and a key of the cluster's buckets.
const nodeRule = "must be a non-empty name without dots, spaces, '*' or '>'"

func validNode(name string) bool { return name != "" && !strings.ContainsAny(name, ". *>") }

func (c Config) validate(joining bool) error {
	report := bounds.NewReport("cluster.")
	if (joining || c.Node != "") && !validNode(c.Node) {
		report.Add("node", fmt.Sprintf("%q", c.Node), nodeRule)
	}
	if c.Shards < 1 || c.Shards > 4096 {
		report.Add("shards", c.Shards, "must be in [1, 4096]")
	}
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		report.Add("replicas", c.Replicas, "must be 1, 3 or 5")
	}
	if c.LeaseTTL < time.Second {
		report.Add("lease_ttl", c.LeaseTTL, "must be >= 1s")
	}
	if c.Dedup < time.Second {
		report.Add("dedup", c.Dedup, "must be >= 1s")
	}
	// A node that joins only to crawl never fans out a search, so Join
	// lets it leave the timeout unset; a whole configuration sets it.
	if (c.SearchTimeout != 0 || !joining) && (c.SearchTimeout <= 0 || c.SearchTimeout > time.Minute) {
		report.Add("search_timeout", c.SearchTimeout, "must be in (0, 1m]")
	}
	return report.Err()
}
