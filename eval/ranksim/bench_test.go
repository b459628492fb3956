package ranksim

import (
	"testing"
)

// BenchmarkSimulate measures simulated days per second in the default
// community of §5.7.1.
func BenchmarkSimulate(b *testing.B) {
	for _, p := range []Policy{{Rule: Nonrandomized}, {Rule: Selective, K: 1, R: 0.1}, {Rule: Uniform, K: 1, R: 0.1}} {
		b.Run(p.String(), func(b *testing.B) {
			c := DefaultCommunity()
			spec := runSpec{Community: c, Policy: p, WarmupDays: 1000, MeasureDays: 1000, Ghosts: 256,
				TBPThreshold: tbpThreshold(c.Monitored), QPCSample: 100, CommunitySeed: 1, VisitSeed: 2}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := simulate(b.Context(), spec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2000*float64(b.N)/b.Elapsed().Seconds(), "days/s")
		})
	}
}

// BenchmarkAnalyze measures one solution of the §5.6 model.
func BenchmarkAnalyze(b *testing.B) {
	c := DefaultCommunity()
	for b.Loop() {
		if _, err := analyze(b.Context(), c, Policy{Rule: Selective, K: 1, R: 0.1}, false); err != nil {
			b.Fatal(err)
		}
	}
}
