package relation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
)

// TestKeeperSyncsOnSchedule runs a keeper over a relation of the shop:
// its first sync comes at once, the next one Every after it, a change at
// the source shows after it, and a source that fails is tried again
// Every later, not at once, with the stored records kept.
func TestKeeperSyncsOnSchedule(t *testing.T) {
	s := newShop()
	var requests atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		s.ServeHTTP(w, r)
	}))
	defer ts.Close()
	st, db, _ := shopRelation(t, ts.URL)
	defer db.Close()
	clk := clock.NewReporting(t0.Add(time.Hour), 1)
	k := &Keeper{Store: st, Every: 6 * time.Hour, Sync: syncOpts(10), Clock: clk,
		Client: func(def Definition) (*Client, error) {
			return NewClient(def.Source, ClientOptions{MaxBytes: 1 << 20, Clock: clk.Manual})
		}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run: %v, want context.Canceled", err)
		}
	}()
	// idle waits for the keeper to finish a pass and says until when it
	// sleeps.
	idle := func() time.Time {
		t.Helper()
		select {
		case d := <-clk.Waits:
			return d
		case <-time.After(10 * time.Second):
			t.Fatal("the keeper did not finish its pass within 10s")
			return time.Time{}
		}
	}
	status := func() Status {
		t.Helper()
		sts, err := st.Statuses(t.Context())
		if err != nil || len(sts) != 1 {
			t.Fatalf("statuses %+v, %v", sts, err)
		}
		return sts[0]
	}
	if next := idle(); !next.Equal(t0.Add(7 * time.Hour)) {
		t.Errorf("after the first sync the keeper sleeps until %v, want %v", next, t0.Add(7*time.Hour))
	}
	if first := status(); !first.LastSync.Equal(t0.Add(time.Hour)) || first.Records != 3 {
		t.Fatalf("first sync %+v, want the 3 records read at once, at %v", first, t0.Add(time.Hour))
	}
	s.mu.Lock()
	s.items["a1"] = [2]string{"red apple", "1.40"}
	s.mu.Unlock()
	clk.Advance(6 * time.Hour)
	if next := idle(); !next.Equal(t0.Add(13 * time.Hour)) {
		t.Errorf("after the second sync the keeper sleeps until %v, want %v", next, t0.Add(13*time.Hour))
	}
	second := status()
	if !second.LastSync.Equal(t0.Add(7*time.Hour)) || second.Changes != 1 {
		t.Fatalf("second sync %+v, want a1's new price found at %v", second, t0.Add(7*time.Hour))
	}
	// The source fails: the relation is tried again Every later, not at
	// once, and keeps what it holds.
	s.set("/", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	sent := requests.Load()
	clk.Advance(6 * time.Hour)
	if next := idle(); !next.Equal(t0.Add(19 * time.Hour)) {
		t.Errorf("after a failed sync the keeper sleeps until %v, want %v", next, t0.Add(19*time.Hour))
	}
	if requests.Load() == sent {
		t.Error("no request 6h after the second sync")
	}
	if after := status(); after.Records != 3 || after.Changes != 1 || !after.LastSync.Equal(second.LastSync) {
		t.Errorf("after a failed sync %+v, want the 3 records, the change and the last sync kept", after)
	}
	sent = requests.Load()
	clk.Advance(6 * time.Hour)
	idle()
	if requests.Load() == sent {
		t.Error("no retry Every after the failed sync")
	}
}
