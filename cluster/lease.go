package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltaq/deltaq/internal/clock"
)

// Bucket names in JetStream.
const (
	shardBucket = "deltaq_shards" // "s<N>" → owning node; a lease
	nodeBucket  = "deltaq_nodes"  // node name → ""; a heartbeat
)

// Leases holds this node's share of the shards. A lease is a key of a
// JetStream key-value bucket whose entries expire after LeaseTTL unless
// renewed: a node that dies (or loses the servers) stops renewing, its
// keys expire, and the nodes still alive create them for themselves. Each
// node aims at a fair share, ⌈S / nodes alive⌉, counting the nodes by
// their heartbeats in a second bucket with the same TTL; a node over its
// share (a node joined) lets leases go, one under it takes free ones.
//
// A lease counts as held until two thirds of its TTL after the renewal
// that set it was sent: earlier than the server can let it expire, so two
// nodes never both believe they own a shard (a fetch already in flight
// when a lease is let go may still finish). Renewals every TTL/3 leave one
// missed renewal of slack.
type Leases struct {
	cfg    Config
	clock  clock.Clock
	logger *slog.Logger
	shards jetstream.KeyValue
	nodes  jetstream.KeyValue
	// status, if set, is the heartbeat's value (a NodeStatus).
	status func() []byte
	mu     struct {
		sync.Mutex
		held map[int]lease
	}
}

type lease struct {
	rev   uint64    // KV revision of our last write
	until time.Time // held until then unless renewed
}

// newLeases creates (or opens) the buckets, once cfg agrees with the
// cluster's shared settings: the buckets' TTL is cfg's lease TTL.
func newLeases(ctx context.Context, js jetstream.JetStream, cfg Config, clk clock.Clock, logger *slog.Logger) (*Leases, error) {
	l := &Leases{cfg: cfg, clock: clk, logger: logger}
	l.mu.held = map[int]lease{}
	if err := agreeSettings(ctx, js, cfg); err != nil {
		return nil, err
	}
	var err error
	if l.shards, err = createBucket(ctx, js, cfg, jetstream.KeyValueConfig{Bucket: shardBucket, TTL: cfg.LeaseTTL}); err != nil {
		return nil, err
	}
	if l.nodes, err = createBucket(ctx, js, cfg, jetstream.KeyValueConfig{Bucket: nodeBucket, TTL: cfg.LeaseTTL}); err != nil {
		return nil, err
	}
	if err := l.nameFree(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// nameFree refuses a node name another running node has: two nodes of one
// name would take each other's leases every tick, and count as one node.
// A heartbeat of this name renewed before it expires is a running node's;
// one left to expire is a node of this name that was killed, and the node
// restarted in its place waits for it, at most a LeaseTTL (a node stopped
// with Ctrl-C or SIGTERM deletes its heartbeat as it leaves).
func (l *Leases) nameFree(ctx context.Context) error {
	var seen jetstream.KeyValueEntry
	err := useAsset(ctx, func(ctx context.Context) (err error) {
		seen, err = l.nodes.Get(ctx, l.cfg.Node)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster: heartbeat of %s: %w", l.cfg.Node, err)
	}
	w, err := l.nodes.Watch(ctx, l.cfg.Node, jetstream.UpdatesOnly())
	if err != nil {
		return fmt.Errorf("cluster: heartbeat of %s: %w", l.cfg.Node, err)
	}
	defer w.Stop()
	l.logger.Info("a heartbeat of this node's name: waiting up to cluster.lease_ttl for it to expire (a killed node's) or be renewed (a running node's)", "ttl", l.cfg.LeaseTTL)
	expired := time.NewTimer(l.cfg.LeaseTTL)
	defer expired.Stop()
	updates := w.Updates()
	for {
		select {
		case e, ok := <-updates:
			if !ok {
				updates = nil // the watch ended: wait out the heartbeat
				continue
			}
			if e == nil || e.Revision() <= seen.Revision() {
				continue
			}
			if e.Operation() != jetstream.KeyValuePut {
				return nil // the node left
			}
			return fmt.Errorf("cluster.node = %q: a node of that name is running in the cluster at %s (its heartbeat was renewed within cluster.lease_ttl = %s); give each node its own name",
				l.cfg.Node, l.cfg.URL, l.cfg.LeaseTTL)
		case <-expired.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func shardKey(s int) string { return "s" + strconv.Itoa(s) }

// Owns reports whether this node holds the lease of shard s now.
func (l *Leases) Owns(s int) bool {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.mu.held[s]
	return ok && now.Before(h.until)
}

// Owned lists the shards this node holds now, in order.
func (l *Leases) Owned() []int {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for s, h := range l.mu.held {
		if now.Before(h.until) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Tick does one round: renew what is held, heartbeat, let go of leases
// beyond the fair share, take free ones up to it. Renewals come first so
// that a heartbeat or a listing that fails (a server lost) does not keep
// the leases from being renewed.
func (l *Leases) Tick(ctx context.Context) error {
	l.renew(ctx)
	var beat []byte
	if l.status != nil {
		beat = l.status()
	}
	if _, err := l.nodes.Put(ctx, l.cfg.Node, beat); err != nil {
		return fmt.Errorf("cluster: heartbeat: %w", err)
	}
	alive, err := listKeys(ctx, l.nodes)
	if err != nil {
		return fmt.Errorf("cluster: list nodes: %w", err)
	}
	share := (l.cfg.Shards + max(len(alive), 1) - 1) / max(len(alive), 1)
	l.release(ctx, share)
	return l.acquire(ctx, share)
}

func (l *Leases) renew(ctx context.Context) {
	l.mu.Lock()
	held := maps2slice(l.mu.held)
	l.mu.Unlock()
	for _, s := range held {
		sent := l.clock.Now()
		l.mu.Lock()
		h := l.mu.held[s]
		l.mu.Unlock()
		rev, err := l.shards.Update(ctx, shardKey(s), []byte(l.cfg.Node), h.rev)
		l.mu.Lock()
		switch {
		case err == nil:
			l.mu.held[s] = lease{rev: rev, until: sent.Add(l.cfg.LeaseTTL * 2 / 3)}
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
			delete(l.mu.held, s) // expired and taken, or gone: not ours
			l.logger.Info("lease lost", "shard", s, "err", err)
		default:
			// Servers unreachable: the lease runs out on its own clock;
			// once it has, acquire takes it again from the bucket (where
			// the renewal may have landed after all).
			if !sent.Before(h.until) {
				delete(l.mu.held, s)
				l.logger.Info("lease lapsed", "shard", s)
			}
			l.logger.Warn("lease renewal", "shard", s, "err", err)
		}
		l.mu.Unlock()
	}
}

// release lets go of the highest-numbered leases beyond share, dropping
// each locally before deleting it so this node stops first.
func (l *Leases) release(ctx context.Context, share int) {
	l.mu.Lock()
	held := maps2slice(l.mu.held)
	var extra []int
	revs := map[int]uint64{}
	for len(held) > share {
		s := held[len(held)-1]
		held = held[:len(held)-1]
		extra = append(extra, s)
		revs[s] = l.mu.held[s].rev
		delete(l.mu.held, s)
	}
	l.mu.Unlock()
	for _, s := range extra {
		l.logger.Info("lease released", "shard", s, "share", share)
		// A failed delete leaves the key to expire; nobody renews it.
		if err := l.shards.Delete(ctx, shardKey(s), jetstream.LastRevision(revs[s])); err != nil {
			l.logger.Debug("lease left to expire", "shard", s, "err", err)
		}
	}
}

// acquire takes free shards, starting from one that depends on the node's
// name so that nodes starting together try different shards first.
func (l *Leases) acquire(ctx context.Context, share int) error {
	start := ShardOf(l.cfg.Node, l.cfg.Shards)
	for i := range l.cfg.Shards {
		s := (start + i) % l.cfg.Shards
		l.mu.Lock()
		_, have := l.mu.held[s]
		n := len(l.mu.held)
		l.mu.Unlock()
		if n >= share {
			return nil
		}
		if have {
			continue
		}
		sent := l.clock.Now()
		rev, err := l.shards.Create(ctx, shardKey(s), []byte(l.cfg.Node))
		if errors.Is(err, jetstream.ErrKeyExists) {
			// Another node's, or this node's own whose renewal was
			// answered too late to count: the bucket says which.
			e, gerr := l.shards.Get(ctx, shardKey(s))
			if gerr != nil || string(e.Value()) != l.cfg.Node {
				continue
			}
			rev = e.Revision()
			err = nil
		}
		if err != nil {
			return fmt.Errorf("cluster: take shard %d: %w", s, err)
		}
		l.mu.Lock()
		l.mu.held[s] = lease{rev: rev, until: sent.Add(l.cfg.LeaseTTL * 2 / 3)}
		l.mu.Unlock()
		l.logger.Info("lease taken", "shard", s, "share", share)
	}
	return nil
}

// run ticks every LeaseTTL/3, calling ticked once each tick succeeded,
// until ctx ends; then it lets every lease go so the other nodes need not
// wait for them to expire. It returns nil. ticked must not block: the
// next renewals wait for it.
func (l *Leases) run(ctx context.Context, ticked func()) error {
	for {
		start := l.clock.Now()
		// A failed tick (a server lost, the client reconnecting) is tried
		// again next tick; meanwhile the leases run out on their own clock.
		// A tick gets one period: a request lost while a bucket elects a
		// leader would otherwise wait for the client's timeout (a minute),
		// and the leases expire on the servers, moving their shards
		// between live nodes, before the next renewal is sent.
		tctx, cancel := context.WithTimeout(ctx, l.cfg.LeaseTTL/3)
		err := l.Tick(tctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			l.logger.Warn("lease tick", "err", err)
		} else if err == nil {
			ticked()
		}
		if err := l.clock.WaitUntil(ctx, start.Add(l.cfg.LeaseTTL/3)); err != nil {
			l.releaseAll()
			return nil
		}
	}
}

// releaseAll lets every lease and the heartbeat go, on a short deadline
// of its own (the crawl's context has ended).
func (l *Leases) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.release(ctx, 0)
	if err := l.nodes.Delete(ctx, l.cfg.Node); err != nil {
		l.logger.Debug("heartbeat left to expire", "err", err)
	}
}

// maps2slice lists the held shards in order.
func maps2slice(m map[int]lease) []int {
	out := make([]int, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
