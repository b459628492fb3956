package poll_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor"
	"github.com/deltaq/deltaq/monitor/poll"
	"github.com/deltaq/deltaq/repo"
)

// BenchmarkInstant is one monitor instant's work for n subscribed feeds at
// the shipped configuration (1-minute instants): find the feeds whose
// planned poll is due and pick the instant's polls. bare is what the plan
// replaced, WIC alone with linear urgency over a week on the same feeds
// and a constant π. It also reports the heap the poller holds per feed
// (plan, model and a week of planned times).
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
			st, err := feeds.NewStore(b.Context(), db, cfg.Feeds)
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if _, _, err := st.Add(b.Context(), fmt.Sprintf("http://f%d.test/feed.xml", i), feeds.AddOptions{}, t0); err != nil {
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

// BenchmarkPlan is one planning of n feeds with 200 postings each
// (feeds.PlanAll, what New and each re-plan run, outside the poller's
// lock), beside bare, the square-root allocation alone on the same rates;
// and of 10,000 feeds just imported, without postings yet (new), as
// `deltaq feeds explain` plans them before a poller has.
func BenchmarkPlan(b *testing.B) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		n        int
		postings int
	}{{10, 200}, {100, 200}, {1000, 200}, {10000, 0}} {
		n := c.n
		list := make([]feeds.Feed, n)
		for i := range list {
			f := feeds.Feed{ID: fmt.Sprint(i), URL: fmt.Sprintf("http://f%d.test/feed.xml", i), Weight: 1,
				MinInterval: cfg.Feeds.MinInterval, MaxInterval: cfg.Feeds.MaxInterval, LastFetch: t0}
			gap := time.Duration(i%7+1) * 5 * time.Hour / 4
			for k := range c.postings {
				f.History = append(f.History, t0.Add(-time.Duration(c.postings-k)*gap))
			}
			list[i] = f
		}
		name := fmt.Sprintf("feeds=%d", n)
		if c.postings == 0 {
			name += "/new"
		}
		b.Run(name+"/plan", func(b *testing.B) {
			for b.Loop() {
				if _, err := feeds.PlanAll(cfg.Feeds, list, t0, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
		if c.postings == 0 {
			continue // no rates for the square-root rule alone
		}
		b.Run(name+"/bare", func(b *testing.B) {
			weights, rates, bounds := make([]float64, n), make([]float64, n), make([]feeds.Bounds, n)
			for i, f := range list {
				weights[i], rates[i] = 1, float64(len(f.History))/t0.Sub(f.History[0]).Seconds()
				if bounds[i], err = feeds.BoundsFor(f.MinInterval, f.MaxInterval); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, err := feeds.SqrtAllocation(feeds.WeeklyPolls(cfg.Feeds.PollsPerDay, n), weights, rates, bounds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
