package ranking

import (
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// testConfig is a valid configuration; tests change what they exercise.
func testConfig() Config {
	return Config{
		Order:             OrderBlend,
		BlendWeight:       0.5,
		Popularity:        SourcePageRank,
		Promotion:         PromotionConfig{Rule: RuleSelective, K: 2, R: 0.1},
		MonitoredFraction: 1,
		PageRank:          PageRankConfig{Damping: 0.85, Tolerance: 1e-12, MaxIterations: 1000, Interval: time.Hour},
		Candidates:        1000,
	}
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func openRepo(t testing.TB) *repo.DB {
	t.Helper()
	db, err := repo.Open("", repo.Config{VersionsKept: 2, FetchLogKept: 3, StatsKept: 2, CacheBytes: 8 << 20}, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openStore(t testing.TB, cfg Config, c clock.Clock) (*repo.DB, *Store) {
	t.Helper()
	db := openRepo(t)
	s, err := NewStore(db, cfg, StoreOptions{Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

// setLinks stores out-links src → dsts in the repository.
func setLinks(t testing.TB, db *repo.DB, links map[string][]string) {
	t.Helper()
	b := db.NewBatch(t.Context())
	defer b.Close()
	for src, dsts := range links {
		var ls []repo.Link
		for _, d := range dsts {
			ls = append(ls, repo.Link{URL: d})
		}
		if err := b.SetOutLinks(src, ls); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}
