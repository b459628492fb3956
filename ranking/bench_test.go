package ranking

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func BenchmarkPageRank(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d/edges=%d", n, 10*n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			edges := make([][2]int, 0, 10*n)
			for range 10 * n {
				edges = append(edges, [2]int{rng.IntN(n), rng.IntN(n)})
			}
			g, err := NewGraph(n, edges)
			if err != nil {
				b.Fatal(err)
			}
			cfg := PageRankConfig{Damping: 0.85, Tolerance: 1e-6, MaxIterations: 100}
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				res, err := PageRank(b.Context(), g, cfg)
				if err != nil {
					b.Fatal(err)
				}
				iters = res.Iterations
			}
			b.ReportMetric(float64(iters), "iterations")
			b.ReportMetric(float64(g.Edges()*iters)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}

// benchSearcher returns a searcher over a fake retriever of 1,000
// candidates whose statistics live in a real (in-memory) Pebble store:
// every candidate has a PageRank, half have been clicked by monitored users.
func benchSearcher(b *testing.B, rule string) *Searcher {
	b.Helper()
	store, retr := benchStore(b)
	cfg := testConfig()
	cfg.Promotion.Rule = rule
	return newSearcher(b, cfg, retr, store)
}

func benchStore(b *testing.B) (*Store, *fakeRetriever) {
	b.Helper()
	db, store := openStore(b, testConfig(), nil)
	retr := newFakeRetriever(1000)
	rng := rand.New(rand.NewPCG(1, 2))
	batch := db.NewBatch(b.Context())
	defer batch.Close()
	for i, c := range retr.cands {
		if err := batch.PutBucket(Bucket, prefixLinks+c.URL, encodeLinkStats(rng.Float64()/1000, rng.IntN(50))); err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			if err := batch.PutBucket(Bucket, prefixClicks+c.URL, encodeClickStats(3, 1)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	return store, retr
}

func BenchmarkSearch(b *testing.B) {
	for _, rule := range []string{RuleNone, RuleSelective, RuleUniform} {
		b.Run("promotion="+rule, func(b *testing.B) {
			s := benchSearcher(b, rule)
			b.ReportAllocs()
			q := 0
			for b.Loop() {
				q++
				if _, err := s.Search(b.Context(), "ABCDEFGHIJKLMNOPQRSTUVWXYZ", fmt.Sprintf("query %d", q%64), 1, 10); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

// BenchmarkPromotionOverhead alternates searches with selective promotion
// and without it over the same 1,000 candidates and reports how much
// longer the promoted search takes (target: at most 10 %).
func BenchmarkPromotionOverhead(b *testing.B) {
	store, retr := benchStore(b)
	cfgOff, cfgOn := testConfig(), testConfig()
	cfgOff.Promotion.Rule = RuleNone
	off, on := newSearcher(b, cfgOff, retr, store), newSearcher(b, cfgOn, retr, store)
	var tOff, tOn time.Duration
	timed := func(s *Searcher, query string) time.Duration {
		t0 := time.Now()
		if _, err := s.Search(b.Context(), "ABCDEFGHIJKLMNOPQRSTUVWXYZ", query, 1, 10); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	q := 0
	for b.Loop() {
		q++
		query := fmt.Sprintf("query %d", q%64)
		if q%2 == 0 { // alternate which goes first, so caches and GC favour neither
			tOff += timed(off, query)
			tOn += timed(on, query)
		} else {
			tOn += timed(on, query)
			tOff += timed(off, query)
		}
	}
	b.ReportMetric(100*(tOn.Seconds()/tOff.Seconds()-1), "promotion-overhead-%")
	b.ReportMetric(float64(tOff.Microseconds())/float64(b.N), "µs/search-off")
	b.ReportMetric(float64(tOn.Microseconds())/float64(b.N), "µs/search-on")
}

func BenchmarkPromote(b *testing.B) {
	pool := make([]bool, 1000)
	for i := 500; i < 1000; i++ {
		pool[i] = true
	}
	b.ReportAllocs()
	seed := uint64(0)
	for b.Loop() {
		seed++
		Promote(pool, 2, 0.1, rand.New(rand.NewPCG(seed, 0)))
	}
}
