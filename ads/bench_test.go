package ads

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// reportLatency adds p50 and p99 of the measured durations, in µs.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(d[len(d)-1].Nanoseconds())/1e3, "max-µs")
}

// BenchmarkSelectPolicy ranks 1,000 candidates for one query with each
// policy: the pure function the server and the simulation share.
func BenchmarkSelectPolicy(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	cands := make([]Candidate, 1000)
	for i := range cands {
		shown := int64(rng.IntN(5000))
		cands[i] = Candidate{ID: uint64(i), Bid: float64(1 + rng.IntN(1000)), Shown: shown, Clicks: shown / 200,
			Budgeted: i%5 < 3, Budget: 1000, Remaining: float64(rng.IntN(1000))}
	}
	for _, p := range Policies() {
		for _, c := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/C=%d", p.Name(), c), func(b *testing.B) {
				b.ReportAllocs()
				dst := make([]int, 0, c)
				for b.Loop() {
					dst = Select(p, cands, 1_000_000, c, dst[:0])
				}
			})
		}
	}
}

// BenchmarkStoreSelect is the serving path for a phrase targeted by 1,000
// active ads of 200 advertisers: snapshot, rank, count the impressions and
// sign the click URLs. Target: p99 <= 1 ms.
func BenchmarkStoreSelect(b *testing.B) {
	for _, c := range []int{1, 4} {
		b.Run(fmt.Sprintf("ads=1000/C=%d", c), func(b *testing.B) {
			e := newEnv(b, testConfig())
			advs := make([]Advertiser, 200)
			for i := range advs {
				a, _, err := e.s.CreateAdvertiser(b.Context(), AdvertiserParams{Name: "a", DailyBudget: MoneyFromUnits(float64(i%3) * 50)})
				if err != nil {
					b.Fatal(err)
				}
				advs[i] = a
			}
			for i := range 1000 {
				spec := AdSpec{Title: "t", URL: "https://a.example/", Targets: []Target{{Phrase: "shoes", Bid: MoneyFromUnits(0.01 * float64(1+i%100))}}}
				if _, err := e.s.SubmitAd(b.Context(), advs[i%200].ID, spec); err != nil {
					b.Fatal(err)
				}
			}
			// Warm up past the first display of every ad.
			for range 1000 {
				if _, err := e.s.Select(b.Context(), "shoes", c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			d := make([]time.Duration, 0, 1<<16)
			for b.Loop() {
				start := time.Now()
				if _, err := e.s.Select(b.Context(), "Shoes", c); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(start))
			}
			reportLatency(b, d)
		})
	}
}
