package relation

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchRelation is n tuples, each with a rare name keyword and three
// keywords from a Zipf-like vocabulary of 200 words.
func benchRelation(n int) ([]Tuple, *ScaledSample) {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.2, 1, 199)
	tuples := make([]Tuple, n)
	docs := make([][]string, 0, 4*n)
	for i := range tuples {
		kws := []string{fmt.Sprintf("name%d", i)}
		for range 3 {
			kws = append(kws, fmt.Sprintf("w%d", zipf.Uint64()))
		}
		tuples[i] = Tuple{ID: kws[0], Keywords: kws, Weight: 1 + rng.Float64()*9, Rate: rng.Float64(), LastSync: -rng.Float64() * 10}
		docs = append(docs, kws)
	}
	// The server holds three times as many records as the relation.
	for i := range 3 * n {
		docs = append(docs, []string{fmt.Sprintf("other%d", i), fmt.Sprintf("w%d", zipf.Uint64()), fmt.Sprintf("w%d", zipf.Uint64())})
	}
	return tuples, NewScaledSample(docs, 1)
}

// BenchmarkGreedyProbes plans a full cover of 1,000 tuples. Single
// keywords are the bare alternative to pairs; the pool bounds the pairs.
func BenchmarkGreedyProbes(b *testing.B) {
	tuples, est := benchRelation(1000)
	for _, c := range []struct {
		kws, pool int
	}{{1, 50}, {2, 10}, {2, 50}} {
		b.Run(fmt.Sprintf("keywords=%d/pool=%d", c.kws, c.pool), func(b *testing.B) {
			opts := ProbeOptions{Interface: Interface{PageSize: 10, MaxResults: 100}, Method: AllPages, Cost: PerRequest, MaxKeywords: c.kws, Pool: c.pool}
			var plan Plan
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if plan, err = GreedyProbes(tuples, 1, est, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(plan.Probes)), "probes")
			b.ReportMetric(plan.Speedup, "tuples/request")
		})
	}
}
