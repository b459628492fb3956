package poll_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor"
	"github.com/deltaq/deltaq/monitor/poll"
	"github.com/deltaq/deltaq/repo"
)

// BenchmarkInstant is one monitor instant's work for n subscribed feeds at
// the shipped configuration (1-minute instants, a week's max interval):
// fold every feed's π in and pick the instant's polls. bare is WIC alone
// on the same demands with a constant π, so poll's own cost (π from each
// feed's learned weekly profile) is the difference. It also reports the
// heap WIC holds per feed.
func BenchmarkInstant(b *testing.B) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("feeds=%d/poll", n), func(b *testing.B) {
			db, err := repo.Open("", cfg.Repo, repo.Options{FS: vfs.NewMem()})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			st, err := feeds.NewStore(db, cfg.Feeds)
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if _, err := st.Add(b.Context(), fmt.Sprintf("http://f%d.test/feed.xml", i), feeds.AddOptions{}, t0); err != nil {
					b.Fatal(err)
				}
			}
			clk := clock.NewManual(t0)
			before := heap()
			p, err := poll.New(b.Context(), db, cfg.Monitor, poll.Options{Feeds: st, FeedsConfig: cfg.Feeds, Clock: clk, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			held := float64(heap()-before) / float64(n)
			none := func(string) bool { return false }
			for b.Loop() {
				clk.Advance(cfg.Monitor.Instant)
				if _, err := p.Pick(b.Context(), clk.Now(), 10, none); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(held, "B/feed")
		})
		b.Run(fmt.Sprintf("feeds=%d/bare", n), func(b *testing.B) {
			s, err := monitor.NewScheduler(cfg.Monitor.MaxLookback)
			if err != nil {
				b.Fatal(err)
			}
			horizon := int(cfg.Feeds.MaxInterval / cfg.Monitor.Instant)
			for i := range n {
				if _, err := s.Add(monitor.Demand{URL: fmt.Sprintf("http://f%d.test/feed.xml", i), Weight: 1,
					Urgency: monitor.Urgency{Kind: monitor.Linear, Window: horizon}}); err != nil {
					b.Fatal(err)
				}
			}
			pi := func(string) float64 { return 1e-3 }
			for b.Loop() {
				s.Advance(pi)
				s.Pick(10, func(string) bool { return true })
			}
		})
	}
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
