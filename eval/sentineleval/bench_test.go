package sentineleval

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/watch"
)

// BenchmarkPageCheck checks real pages of digitalgov-2023 that change
// from week 20 to week 21, ten sentinels of the nine types on each (placed
// as the throughput runs place them), grouped (one check per page) and
// ungrouped (one check per sentinel), side by side over loopback with
// Pebble on disk. "changed" flips the archive between the two weeks so
// that every check finds its page changed; "unchanged" leaves it, so that
// every check stops at the MD5. A check pass is a mix of the two, and
// grouping's gain is the mix's: ten to one on unchanged pages, less on
// changed ones, where each sentinel's table and record cost the same
// grouped or not (WebCQ §6.1.2).
func BenchmarkPageCheck(b *testing.B) {
	const week, perPage, maxPages = 20, 10, 40
	s, err := serve(datasets.Path(b, "archives", "digitalgov-2023"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.close)
	var pages []*pageInfo
	for _, p := range s.a.Week(week) {
		next, ok := s.a.Lookup(p.URL, week+1)
		if !ok || bytes.Equal(next.Body, p.Body) {
			continue
		}
		pi, err := newPageInfo(s.host, p.URL, p.Body, extractLimits)
		if err != nil {
			b.Fatal(err)
		}
		if pages = append(pages, pi); len(pages) == maxPages {
			break
		}
	}
	if err := s.rs.SetWeek(week); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	queries := [][]string{{"plain", "language"}, {"federal", "website"}, {"accessibility"}}
	engines := map[bool]*watch.Engine{}
	keys := map[bool][]string{}
	for _, ungrouped := range []bool{false, true} {
		db, done, err := tempRepo(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { done() })
		e, err := watch.New(db, watchConfig(), nil, watch.Options{Fetcher: s.fetcher(), Ungrouped: ungrouped})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			if err := e.Close(); err != nil {
				b.Error(err)
			}
		})
		rng := rand.New(rand.NewPCG(1, 2)) // the same sentinels in both
		for i := range len(pages) * perPage {
			p := pages[i%len(pages)]
			spec, ok := specFor(watch.Types[i%len(watch.Types)], p, queries, rng)
			if !ok {
				spec, _ = specFor(watch.Words, p, queries, rng)
			}
			if _, err := e.Install(ctx, spec); err != nil {
				spec, _ = specFor(watch.Words, p, queries, rng)
				if _, err := e.Install(ctx, spec); err != nil {
					b.Fatal(err)
				}
			}
		}
		gs, err := e.Groups(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range gs {
			keys[ungrouped] = append(keys[ungrouped], g.Key)
		}
		engines[ungrouped] = e
	}
	if len(keys[true]) != perPage*len(keys[false]) {
		b.Fatalf("%d groups ungrouped, %d grouped: want %d× as many", len(keys[true]), len(keys[false]), perPage)
	}
	rounds := 0
	for _, changed := range []bool{true, false} {
		name := "unchanged"
		if changed {
			name = "changed"
		}
		b.Run(name, func(b *testing.B) {
			var took [2]time.Duration
			n := 0
			for b.Loop() {
				if changed {
					rounds++
					if err := s.rs.SetWeek(week + rounds%2); err != nil {
						b.Fatal(err)
					}
				}
				for i, ungrouped := range []bool{false, true} {
					start := time.Now()
					for _, k := range keys[ungrouped] {
						res, err := engines[ungrouped].Check(ctx, k)
						if err != nil {
							b.Fatal(err)
						}
						if res.Unchanged == changed {
							b.Fatalf("%s: check of %s found the page unchanged = %v", name, res.URL, res.Unchanged)
						}
					}
					took[i] += time.Since(start)
				}
				n += len(keys[false])
			}
			grouped, ungrouped := float64(took[0].Microseconds())/float64(n), float64(took[1].Microseconds())/float64(n)
			b.ReportMetric(grouped, "µs/page-grouped")
			b.ReportMetric(ungrouped, "µs/page-ungrouped")
			b.ReportMetric(ungrouped/grouped, "×ungrouped")
			// A page of k sentinels costs k(A + B) ungrouped and A + kB
			// grouped, A the work once per check (fetch, MD5, copy, diff,
			// commit), B the work per sentinel (table, record, history):
			// A = (ungrouped − grouped)/(k − 1), B = (grouped − A)/k.
			a := (ungrouped - grouped) / (perPage - 1)
			b.ReportMetric(a, "µs/check-A")
			b.ReportMetric((grouped-a)/perPage, "µs/sentinel-B")
		})
	}
}
