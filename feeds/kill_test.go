package feeds

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/killtest"
)

// TestFeedStateSurvivesKill9 polls a feed in a child process, one new item
// per poll, kills it with SIGKILL mid-stream, and checks that every poll the
// child reported is there after reopening, and that each feed record agrees
// with its items: a poll is one batch, never half applied.
func TestFeedStateSurvivesKill9(t *testing.T) {
	if dir := os.Getenv("FEEDS_KILL_CHILD"); dir != "" {
		killChild(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := killtest.Child("TestFeedStateSurvivesKill9", "FEEDS_KILL_CHILD", dir)
	acked := killtest.KillAfter(t, cmd, false, killtest.Prefixed("recorded "), 60)
	if acked < 60 {
		t.Fatalf("child recorded only %d polls before exiting", acked)
	}
	s, db := openStore(t, nil, dir)
	defer db.Close()
	f, err := s.Get(IDOf("http://x.test/feed"))
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	if f.Fetches < acked {
		t.Fatalf("%d polls acknowledged, %d stored", acked, f.Fetches)
	}
	items, err := s.Items(t.Context(), f.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// Every poll added exactly one item; the bounds keep the newest.
	wantSeen := min(f.Fetches, testConfig().SeenKept)
	if len(f.Seen) != wantSeen || len(items) != wantSeen || len(f.History) != min(f.Fetches, testConfig().HistoryKept) {
		t.Fatalf("after %d polls: %d seen, %d items, %d history; want %d, %d, %d", f.Fetches, len(f.Seen), len(items), len(f.History),
			wantSeen, wantSeen, min(f.Fetches, testConfig().HistoryKept))
	}
	if last := items[len(items)-1].Key; last != fmt.Sprintf("g:urn:e%d", f.Fetches-1) {
		t.Fatalf("newest stored item %s, want the one of poll %d", last, f.Fetches-1)
	}
	// The river's index was written in the same batches as the items.
	river, err := s.River(t.Context(), time.Time{}, 2*wantSeen)
	if err != nil || len(river) != wantSeen || countKeys(t, db, "r/") != wantSeen || river[0].Key != items[len(items)-1].Key {
		t.Fatalf("river after kill -9: %d items (%d entries), %v; want the %d items, newest first", len(river), countKeys(t, db, "r/"), err, wantSeen)
	}
}

func killChild(t *testing.T, dir string) {
	s, db := openStore(t, nil, dir)
	defer db.Close()
	ctx := context.Background()
	f, _, err := s.Add(ctx, "http://x.test/feed", AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var published []time.Time
	for i := 0; ; i++ {
		at := t0.Add(time.Duration(i) * time.Hour)
		published = append(published, at.Add(-time.Minute))
		shown := published[max(0, len(published)-20):] // the feed shows its latest 20
		body := atom(published...)
		if len(published) > 20 {
			body = atomFrom(len(published)-20, shown)
		}
		if _, err := s.Record(ctx, f.ID, Fetch{At: at, Status: 200, ETag: fmt.Sprintf(`"%d"`, i), Body: body}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("recorded %d\n", i+1)
	}
}
