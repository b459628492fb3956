package discovery

import (
	"math"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/repo"
)

func TestLoadReplaysEachSitesYieldsInTimeOrder(t *testing.T) {
	db, err := repo.Open("", repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 4, CacheBytes: 1 << 20}, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Key order (a, b, c on each host) runs against time order, and two
	// hosts interleave nothing: Load must sort within each host.
	type yield struct {
		page   string
		period int
		found  []string
	}
	other := func(name string) string { return "http://t.test/" + name }
	yields := []yield{
		{u("a"), 2, us("n4")},
		{u("a"), 0, us("n1", "n2")},
		{u("b"), 2, us("n5", "n6", "n7")},
		{u("c"), 0, us("n2", "n3")},
		{other("a"), 1, []string{other("m1")}},
		{other("b"), 0, []string{other("m2"), other("m3")}},
	}
	b := db.NewBatch(t.Context())
	for _, y := range yields {
		if err := b.PutPage(&repo.Page{URL: y.page, State: repo.StateLive}); err != nil {
			t.Fatal(err)
		}
		if err := b.AddDiscoveryYield(y.page, &repo.DiscoveryYield{At: at(y.period), New: y.found}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := Load(t.Context(), db, testConfig(), time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same yields recorded by hand in time order.
	want := newTestStats(t, testConfig())
	for _, p := range []int{0, 1, 2} {
		for _, y := range yields {
			if y.period == p {
				if err := want.Record(y.page, repo.DiscoveryYield{At: at(p), New: y.found}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, s := range []string{site, "t.test"} {
		got.Select(s, at(3))
		want.Select(s, at(3))
	}
	for _, x := range []string{u("a"), u("b"), u("c"), other("a"), other("b")} {
		g, w := got.Estimate(x), want.Estimate(x)
		if w == 0 || math.Abs(g-w) > 1e-12 {
			t.Errorf("p_x of %s = %v after Load, want %v (recorded in time order)", x, g, w)
		}
	}
	if n := got.Tracked(site); n != 3 {
		t.Errorf("%s tracks %d pages after Load, want 3", site, n)
	}
}
