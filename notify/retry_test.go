package notify_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
	"github.com/deltaq/deltaq/repo"
)

// deadLetters enqueues n webhook deliveries to rcv, which refuses them,
// and drains them to the dead-letter list (one attempt each).
func deadLetters(t *testing.T, db *repo.DB, cfg notify.Config, rcv *notifytest.Receiver, n int) {
	t.Helper()
	cfg.MaxAttempts = 1
	ob := notify.NewOutbox(db, cfg)
	for i := range n {
		enqueue(t, db, ob, sample(fmt.Sprintf("n%04d", i), time.Now(), notify.Target{Kind: notify.Webhook, Addr: rcv.URL}))
	}
	rcv.FailNext(n)
	if st, err := notify.NewService(ob, notify.Options{Client: noKeepAlive()}).Drain(t.Context()); err != nil || st.Dead != n {
		t.Fatalf("Drain = %+v, %v; want %d dead letters", st, err, n)
	}
}

// TestRetryCommitsInBatches: Retry moves the dead letters notify.batch at
// a time, so its memory does not grow with the list, and moves them all.
func TestRetryCommitsInBatches(t *testing.T) {
	db := openRepo(t)
	cfg := testConfig()
	cfg.Batch = 2
	deadLetters(t, db, cfg, notifytest.Webhooks(t), 5)
	ob := notify.NewOutbox(db, cfg)
	var commits []int
	notify.OnRetryCommit(ob, func(moved int) { commits = append(commits, moved) })
	if n, err := ob.Retry(t.Context(), time.Now()); err != nil || n != 5 {
		t.Fatalf("Retry = %d, %v; want 5", n, err)
	}
	if !slices.Equal(commits, []int{2, 2, 1}) {
		t.Errorf("commits moved %v letters, want [2 2 1]", commits)
	}
	if p, _ := ob.Pending(t.Context()); p != 5 {
		t.Errorf("pending = %d, want 5", p)
	}
	if d, _ := ob.Dead(t.Context()); d != 0 {
		t.Errorf("dead = %d, want 0", d)
	}
}

// TestRetryKilledPartWayLosesAndRepeatsNothing: Retry killed with
// SIGKILL between its batches leaves each letter dead or queued; a second
// Retry and a drain then send every one exactly once.
func TestRetryKilledPartWayLosesAndRepeatsNothing(t *testing.T) {
	const letters, batch, killAt = 400, 8, 40
	cfg := testConfig()
	cfg.Batch = batch
	open := func(dir string) *repo.DB {
		db, err := repo.Open(dir, repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 1 << 20}, repo.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	if dir := os.Getenv("DELTAQ_RETRY_KILL_DIR"); dir != "" { // the child: retry, saying how far it got
		db := open(dir)
		ob := notify.NewOutbox(db, cfg)
		moved := 0
		notify.OnRetryCommit(ob, func(n int) {
			moved += n
			fmt.Println("moved " + strconv.Itoa(moved))
			time.Sleep(10 * time.Millisecond) // time for the kill to come part-way
		})
		ob.Retry(t.Context(), time.Now())
		db.Close()
		return
	}
	dir := t.TempDir()
	rcv := notifytest.Webhooks(t)
	db := open(dir)
	deadLetters(t, db, cfg, rcv, letters)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	reached := killtest.KillAfter(t, killtest.Child("TestRetryKilledPartWayLosesAndRepeatsNothing", "DELTAQ_RETRY_KILL_DIR", dir), false, killtest.Prefixed("moved "), killAt)
	db = open(dir)
	defer db.Close()
	ob := notify.NewOutbox(db, cfg)
	pending, _ := ob.Pending(t.Context())
	dead, _ := ob.Dead(t.Context())
	if reached < killAt || pending < killAt || pending >= letters || pending+dead != letters {
		t.Fatalf("killed after %d moved: %d pending, %d dead; want part of the %d moved, each letter once", reached, pending, dead, letters)
	}
	if n, err := ob.Retry(t.Context(), time.Now()); err != nil || n != dead {
		t.Fatalf("Retry after the kill = %d, %v; want the %d left", n, err, dead)
	}
	if st, err := notify.NewService(ob, notify.Options{Client: noKeepAlive()}).Drain(t.Context()); err != nil || st.Delivered != letters {
		t.Fatalf("Drain = %+v, %v; want all %d delivered", st, err, letters)
	}
	seen := map[string]int{}
	for _, h := range rcv.Hooks() {
		seen[h.Key]++
	}
	for key, n := range seen {
		if n != 1 {
			t.Errorf("%s sent %d times", key, n)
		}
	}
	if len(seen) != letters {
		t.Errorf("%d notifications sent, want %d", len(seen), letters)
	}
}
