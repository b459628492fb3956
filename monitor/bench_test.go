package monitor

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkInstant is one WIC instant over many URLs: the O(1) incremental
// forms beside the definition recomputed over the history (formDirect).
func BenchmarkInstant(b *testing.B) {
	for _, tc := range []struct {
		name string
		life Life
	}{
		{"append-exp-incremental", Life{Kind: UnboundedAppend}},
		{"changes20-exp-direct", Life{Kind: ChangeWindowAppend, Window: 20}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			s, _ := NewScheduler(64)
			const n = 2000
			pis := map[string]float64{}
			for i := range n {
				u := fmt.Sprintf("http://h%d/", i)
				pis[u] = 0.05 * rng.Float64()
				if _, err := s.Add(Demand{URL: u, Life: tc.life, Urgency: Urgency{Kind: Exponential, R: 0.9}, Weight: 1}); err != nil {
					b.Fatal(err)
				}
			}
			pi := func(u string) float64 { return pis[u] }
			for b.Loop() {
				s.Advance(pi)
				s.Pick(8, nil)
			}
			b.ReportMetric(float64(n), "urls/instant")
		})
	}
}
