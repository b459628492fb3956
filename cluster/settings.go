package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The settings every crawl node of a cluster shares, kept as the first
// node to join stored them.
const (
	settingsBucket = "deltaq_cluster"
	settingsKey    = "settings"
)

// sharedSettings are the settings two crawl nodes of one cluster must
// agree on. A node of another shard count routes hosts to subjects no
// other node reads, and claims shards that are not the others': hosts
// would be fetched twice or never. A node of another lease TTL sets the
// leases' and heartbeats' buckets' TTL to its own (CreateOrUpdate), and
// the others then hold leases the servers already let expire, or count
// a dead node alive.
type sharedSettings struct {
	Shards   int           `json:"shards"`
	LeaseTTL time.Duration `json:"lease_ttl"`
}

// agreeSettings stores cfg's shared settings if the cluster has none yet,
// and otherwise refuses settings other than the stored ones, naming each
// setting, its value and the cluster's.
func agreeSettings(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	kv, err := createBucket(ctx, js, cfg, jetstream.KeyValueConfig{Bucket: settingsBucket})
	if err != nil {
		return err
	}
	own := sharedSettings{Shards: cfg.Shards, LeaseTTL: cfg.LeaseTTL}
	b, err := json.Marshal(own)
	if err != nil {
		return err
	}
	err = useAsset(ctx, func(ctx context.Context) error {
		_, err := kv.Create(ctx, settingsKey, b)
		return err
	})
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("cluster: store the cluster's settings: %w", err)
	}
	stored, err := readSettings(ctx, kv)
	if err != nil {
		return err
	}
	var errs []error
	if own.Shards != stored.Shards {
		errs = append(errs, fmt.Errorf("cluster.shards = %d: the cluster at %s has %d shards", own.Shards, cfg.URL, stored.Shards))
	}
	if own.LeaseTTL != stored.LeaseTTL {
		errs = append(errs, fmt.Errorf("cluster.lease_ttl = %v: the cluster at %s has leases of %v", own.LeaseTTL, cfg.URL, stored.LeaseTTL))
	}
	if errs != nil {
		errs = append(errs, errors.New("every crawl node must have the settings of the node that first joined the cluster (other ones need a cluster of their own: other NATS servers, or their storage emptied)"))
	}
	return errors.Join(errs...)
}

// readSettings reads the cluster's shared settings from kv, its
// settingsBucket; jetstream.ErrKeyNotFound if no node stored them.
func readSettings(ctx context.Context, kv jetstream.KeyValue) (sharedSettings, error) {
	var e jetstream.KeyValueEntry
	err := useAsset(ctx, func(ctx context.Context) (err error) {
		e, err = kv.Get(ctx, settingsKey)
		return err
	})
	if err != nil {
		return sharedSettings{}, fmt.Errorf("cluster: the cluster's settings: %w", err)
	}
	var s sharedSettings
	if err := json.Unmarshal(e.Value(), &s); err != nil {
		return sharedSettings{}, fmt.Errorf("cluster: the cluster's settings in bucket %s: %w", settingsBucket, err)
	}
	return s, nil
}
