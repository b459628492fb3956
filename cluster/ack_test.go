package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/cluster/natstest"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/repo"
)

// TestAFetchWhoseConsumerMovedIsNotAcknowledgedInVain: a node holds a
// handed-over URL, loses its shard, and another node creates the shard's
// consumer anew before delivering anything. The first node's fetch then
// commits. The new consumer would ignore an acknowledgement of the URL's
// message without an answer, and each attempt would wait out its deadline
// while the crawler's writer waits for a slot: up to a minute for each,
// nine for a full backlog. The acknowledgement is not sent; the message
// stays in the stream for the shard's new reader.
func TestAFetchWhoseConsumerMovedIsNotAcknowledgedInVain(t *testing.T) {
	nc := natstest.Start(t, 1)
	db, err := repo.Open(t.TempDir(), repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 4 << 20}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m, err := Join(t.Context(), Config{URL: nc.URL(), Node: "n0", Shards: 1, Replicas: 1,
		LeaseTTL: time.Hour, Dedup: time.Hour}, Options{Repo: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a guard against a hang
	defer cancel()

	// n0 holds shard 0's lease and consumes its subject.
	m.leases.mu.Lock()
	m.leases.mu.held[0] = lease{until: time.Now().Add(time.Hour)}
	m.leases.mu.Unlock()
	r := newReceiver(m, 1)
	if err := r.follow(ctx); err != nil {
		t.Fatal(err)
	}
	const url = "http://h0.test/a"
	data, err := json.Marshal(crawler.Handoff{URL: url, Reason: repo.ReasonLink})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.js.Publish(ctx, linkSubject+"0", data); err != nil {
		t.Fatal(err)
	}
	var msg delivery
	select {
	case msg = <-r.in:
	case <-ctx.Done():
		t.Fatal("the handoff was not delivered")
	}
	// Admitted and held, as commit does.
	m.held.m[url] = msg
	m.busy.Add(-1)

	// The lease moves: n0 stops consuming, and the new owner creates the
	// consumer afresh, as follow does, before it pulls anything.
	m.leases.mu.Lock()
	clear(m.leases.mu.held)
	m.leases.mu.Unlock()
	if err := r.follow(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.js.DeleteConsumer(ctx, linkStream, "shard-0"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.js.CreateOrUpdateConsumer(ctx, linkStream, jetstream.ConsumerConfig{
		Durable: "shard-0", FilterSubject: linkSubject + "0", AckPolicy: jetstream.AckExplicitPolicy,
	}); err != nil {
		t.Fatal(err)
	}

	// n0's fetch of the URL commits.
	g, gctx := errgroup.WithContext(ctx)
	runCtx, stop := context.WithCancel(gctx)
	g.Go(func() error { return m.publish(runCtx) })
	g.Go(func() error { return m.ack(runCtx) })
	m.fetched([]string{url})
	for m.busy.Load() > 0 {
		if ctx.Err() != nil {
			t.Fatal("the acknowledgement is still waiting for an answer")
		}
		time.Sleep(10 * time.Millisecond) // waiting on the acker, not measuring
	}
	stop()
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := m.stats.StaleAcks.Load(); got != 1 {
		t.Errorf("StaleAcks = %d, want 1", got)
	}
	if n, err := m.Pending(ctx); err != nil || n != 1 {
		t.Errorf("Pending = %d, %v; want the message kept in the stream for its new reader", n, err)
	}
}
