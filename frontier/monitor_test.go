package frontier

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// A period's usage persisted before the monitoring class existed (three
// counts) still loads, with nothing counted for monitoring.
func TestUsageOfFewerClassesDecodes(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	old := binary.AppendVarint(nil, start.UnixNano())
	for _, n := range []uint64{7, 3, 2} {
		old = binary.AppendUvarint(old, n)
	}
	u, err := decodeUsage(old)
	if err != nil {
		t.Fatal(err)
	}
	want := [repo.NumClasses]int{7, 3, 2, 0}
	if !u.start.Equal(start) || u.byClass != want {
		t.Errorf("decoded %v %v, want %v %v", u.start, u.byClass, start, want)
	}
}

// TestOnItsWayKnowsQueuedPages asks both forms, by URL and by a record
// already read, about a live page never queued (no), the same page queued
// for a re-fetch (yes), a page the repository holds only as queued for its
// first fetch (yes), and a URL the repository does not know (no).
func TestOnItsWayKnowsQueuedPages(t *testing.T) {
	db := memDB(t)
	const live, first, unknown = "http://a.test/live", "http://a.test/first", "http://a.test/unknown"
	b := db.NewBatch(t.Context())
	if err := b.PutPage(&repo.Page{URL: live, State: repo.StateLive, Fetches: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutPage(&repo.Page{URL: first, State: repo.StateQueued}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	f := openFrontier(t, db, Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 100, Period: time.Hour}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}, fixedGate{capacity: 1}, clock.Real{})
	ask := func(url string, want bool) {
		t.Helper()
		if got := f.onItsWay(url); got != want {
			t.Errorf("onItsWay(%s) = %v, want %v", url, got, want)
		}
		p, err := db.Page(url)
		if errors.Is(err, repo.ErrNotFound) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := f.RecordOnItsWay(&p); got != want {
			t.Errorf("RecordOnItsWay(%s) = %v, want %v", url, got, want)
		}
	}
	ask(live, false)
	ask(first, true)
	ask(unknown, false)
	add(t, db, f, []string{live}, repo.ReasonRecrawl, time.Now())
	ask(live, true)
}
