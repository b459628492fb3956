package frontier

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// BenchmarkPlanDeltaQ is one deltaq plan over repositories of 10k, 100k
// and 1M pages (100 hosts, 20 directories each, four fetches and a ΔQ_A
// measurement per page), side by side with the uniform plan, the bare
// alternative that reads each page record once: ns/page should stay flat
// as the repository grows, and the heap the plan holds should not grow
// with it (heap-B/page falls as pages grow; B/op counts garbage). The 1M
// repository takes about a minute to fill; -short leaves it out.
func BenchmarkPlanDeltaQ(b *testing.B) {
	sizes := []int{10000, 100000, 1000000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, n := range sizes {
		db, err := repo.Open(b.TempDir(), repo.Config{VersionsKept: 1, FetchLogKept: 8, StatsKept: 8, CacheBytes: 64 << 20}, repo.Options{})
		if err != nil {
			b.Fatal(err)
		}
		fillPlanRepo(b, db, n)
		for _, policy := range []Policy{Uniform{}, &DeltaQ{Window: 8, Exploration: "thompson", Seed: 1, SitemapLastMod: true}} {
			b.Run(fmt.Sprintf("pages=%d/%s", n, policy.Name()), func(b *testing.B) {
				plan := Plan{Now: epoch.Add(10 * week), N: 100, Period: week}
				var peak uint64
				b.ReportAllocs()
				for b.Loop() {
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					got, err := policy.Select(context.Background(), plan, candidates{db: db})
					if err != nil || len(got) != plan.N {
						b.Fatalf("picked %d, %v", len(got), err)
					}
					runtime.ReadMemStats(&after)
					peak = max(peak, after.HeapInuse-min(after.HeapInuse, before.HeapInuse))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/page")
				b.ReportMetric(float64(peak)/float64(n), "heap-B/page")
			})
		}
		db.Close()
	}
}

func fillPlanRepo(b *testing.B, db *repo.DB, n int) {
	b.Helper()
	batch := db.NewBatch(context.Background())
	for i := range n {
		u := fmt.Sprintf("http://host-%d.example.com/dir-%d/page-%d.html", i%100, (i/100)%20, i)
		last := epoch.Add(time.Duration(1+i%8) * week)
		p := repo.Page{URL: u, State: repo.StateLive, Fetches: 4, LastFetch: last}
		if err := batch.PutPage(&p); err != nil {
			b.Fatal(err)
		}
		for k := range 4 {
			r := repo.FetchRecord{At: last.Add(-time.Duration(3-k) * week / 4), Outcome: repo.OutcomeOK, Changed: (i+k)%3 == 0, Difference: 0.5}
			if err := batch.LogFetch(u, &r); err != nil {
				b.Fatal(err)
			}
		}
		if err := batch.PutDeltaQ(u, &repo.DeltaQ{At: last, Value: float64(i % 7)}); err != nil {
			b.Fatal(err)
		}
		if i%5000 == 4999 {
			if err := batch.Commit(); err != nil {
				b.Fatal(err)
			}
			batch.Close()
			batch = db.NewBatch(context.Background())
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	batch.Close()
}
