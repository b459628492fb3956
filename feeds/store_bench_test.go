package feeds

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/repo"
)

// BenchmarkRiver reads the river's newest riverLimit items, and the items
// of the last hour, from a store of many feeds each holding
// feeds.seen_kept (500) items, the default: what GET /api/v1/river does on
// every request, and a feed reader polling /feeds/river.atom with ?since.
//
//	go test ./feeds -run '^$' -bench River -benchtime 20x
func BenchmarkRiver(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("feeds=%d", n), func(b *testing.B) {
			s, last := riverStore(b, n, 500)
			for _, c := range []struct {
				name  string
				since time.Time
			}{{"newest-200", time.Time{}}, {"last-hour", last.Add(-time.Hour)}} {
				b.Run(c.name, func(b *testing.B) {
					got := 0
					for b.Loop() {
						items, err := s.River(b.Context(), c.since, 200)
						if err != nil {
							b.Fatal(err)
						}
						got = len(items)
					}
					b.ReportMetric(float64(got), "items")
				})
			}
		})
	}
}

// riverStore returns a store on disk of n feeds, each polled until it
// holds kept items (50 new ones a poll, one poll per feed a minute), and
// the time of the last poll.
func riverStore(b *testing.B, n, kept int) (*Store, time.Time) {
	b.Helper()
	db, err := repo.Open(b.TempDir(), repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 64 << 20}, repo.Options{FS: vfs.Default})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	cfg := testConfig()
	cfg.SeenKept, cfg.MaxItems = kept, 50
	s, err := NewStore(b.Context(), db, cfg)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, n)
	for i := range ids {
		f, _, err := s.Add(b.Context(), fmt.Sprintf("http://x%d.test/feed.atom", i), AddOptions{}, t0)
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = f.ID
	}
	at := t0
	for poll := range kept / cfg.MaxItems {
		published := make([]time.Time, cfg.MaxItems)
		for i := range ids {
			at = at.Add(time.Minute)
			for k := range published {
				published[k] = at.Add(time.Duration(k-len(published)) * time.Second)
			}
			if _, err := s.Record(b.Context(), ids[i], Fetch{At: at, Status: 200, Body: atomFrom(poll*cfg.MaxItems, published)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s, at
}

// BenchmarkList reads every feed of a store of 1,000 feeds, each holding
// the default feeds.seen_kept (500) item keys, feeds.history_kept (2,000)
// posting times and 64 delays: with their lists (List: what planning
// reads) and without (Subscriptions: what GET /api/v1/feeds, `deltaq
// feeds list`, a /metrics scrape and the poller's refresh read).
//
//	go test ./feeds -run '^$' -bench List -benchtime 5x
func BenchmarkList(b *testing.B) {
	s := listStore(b, 1000)
	for _, c := range []struct {
		name string
		read func(context.Context) ([]Feed, error)
	}{{"with-lists", s.List}, {"subscriptions", s.Subscriptions}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.read(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// listStore returns a store of n feeds with full lists.
func listStore(b *testing.B, n int) *Store {
	b.Helper()
	db, err := repo.Open(b.TempDir(), repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 64 << 20}, repo.Options{FS: vfs.Default})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s, err := NewStore(b.Context(), db, testConfig())
	if err != nil {
		b.Fatal(err)
	}
	batch := db.NewBatch(b.Context())
	defer batch.Close()
	for i := range n {
		f := Feed{ID: IDOf(fmt.Sprint(i)), URL: fmt.Sprintf("http://x%d.test/feed.atom", i), Weight: 1, MinInterval: time.Minute, MaxInterval: time.Hour, LastFetch: t0}
		for k := range 2000 {
			f.History = append(f.History, t0.Add(time.Duration(k)*time.Hour+time.Duration(k)))
		}
		for k := range 500 {
			f.Seen = append(f.Seen, fmt.Sprintf("g:https://github.com/owner/repo/commit/%040d", k))
		}
		for k := range delaysKept {
			f.Delays = append(f.Delays, time.Duration(k)*time.Minute)
		}
		if err := s.put(batch, &f, true); err != nil {
			b.Fatal(err)
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkItems reads the items of a feed's last poll, and all of them,
// from a feed holding feeds.seen_kept (500) items polled 50 at a time:
// what GET /api/v1/feeds/{id}/items?since= does for a reader that keeps
// up, and for one that starts over.
//
//	go test ./feeds -run '^$' -bench Items -benchtime 200x
func BenchmarkItems(b *testing.B) {
	s, last := riverStore(b, 1, 500)
	feeds, err := s.Subscriptions(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		since time.Time
		want  int
	}{{"last-poll", last.Add(-time.Second), 50}, {"all", time.Time{}, 500}} {
		b.Run(c.name, func(b *testing.B) {
			got := 0
			for b.Loop() {
				items, err := s.Items(b.Context(), feeds[0].ID, c.since)
				if err != nil {
					b.Fatal(err)
				}
				got = len(items)
			}
			if got != c.want {
				b.Fatalf("%d items, want %d", got, c.want)
			}
		})
	}
}
