package discovery

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"github.com/deltaq/deltaq/repo"
)

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// at returns a time inside period p of an hourly schedule.
func at(p int) time.Time { return epoch.Add(time.Duration(p)*time.Hour + time.Minute) }

func testConfig() Config {
	return Config{Alpha: 0.5, EpsilonB: 0.8, FullRecrawlEvery: 4, PerSite: 2, TrackedPerSite: 10}
}

func newTestStats(t *testing.T, cfg Config) *Stats {
	t.Helper()
	s, err := NewStats(cfg, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func record(t *testing.T, s *Stats, p int, x string, newPages ...string) {
	t.Helper()
	if err := s.Record(u(x), repo.DiscoveryYield{At: at(p), New: us(newPages...)}); err != nil {
		t.Fatal(err)
	}
}

func TestStatsWeighting(t *testing.T) {
	s := newTestStats(t, testConfig())
	// Period 0: x finds n1 n2, z finds n2 n3: N_0 = 3, p_x = p_z = 2/3.
	record(t, s, 0, "x", "n1", "n2")
	record(t, s, 0, "z", "n2", "n3")
	// Period 2: x finds n4, y finds n5 n6 n7: N_2 = 4, p_x = 1/4, p_y = 3/4.
	record(t, s, 2, "x", "n4")
	record(t, s, 2, "y", "n5", "n6", "n7")

	// Selecting in period 3 closes period 2.
	got := names(s.Select(site, at(3)))
	t.Run("estimates follow §3.6.4 per page, with α = 0.5", func(t *testing.T) {
		want := map[string]float64{
			"x": (0.25*2.0/3 + 0.25) / 1.25, // = 1/3
			"y": 0.75,
			"z": 2.0 / 3, // re-fetched once: its only observation
		}
		for x, p := range want {
			if got := s.Estimate(u(x)); math.Abs(got-p) > 1e-12 {
				t.Errorf("p_%s = %v, want %v", x, got, p)
			}
		}
		if math.Abs(s.Estimate(u("x"))-1.0/3) > 1e-12 {
			t.Errorf("p_x = %v, want 1/3 by hand", s.Estimate(u("x")))
		}
	})
	t.Run("Select takes per_site pages with the largest p_x", func(t *testing.T) {
		if !same(got, []string{"y", "z"}) {
			t.Errorf("Select = %v, want [y z]", got)
		}
		if all := names(s.Top(site, 10, at(3))); !same(all, []string{"y", "z", "x"}) {
			t.Errorf("Top(10) = %v, want [y z x]", all)
		}
	})
	t.Run("a re-fetch that finds nothing lowers the estimate", func(t *testing.T) {
		record(t, s, 4, "z")
		record(t, s, 4, "w", "n8")
		s.Select(site, at(5))
		// p_z = (0.5⁴·2/3 + 0)/(0.5⁴ + 1) = (1/24)/(17/16) = 2/51.
		if got := s.Estimate(u("z")); math.Abs(got-2.0/51) > 1e-12 {
			t.Errorf("p_z = %v, want 2/51", got)
		}
	})
	t.Run("the period being gathered does not count yet", func(t *testing.T) {
		record(t, s, 6, "q", "n9")
		if got := s.Estimate(u("q")); got != 0 {
			t.Errorf("p_q = %v before its period closed", got)
		}
		// w found the only new page of period 4: p_w = 1.
		if got := names(s.Top(site, 1, at(6))); !same(got, []string{"w"}) {
			t.Errorf("Top(1) in the same period = %v", got)
		}
	})
}

func TestStatsRepeatedFetchesInOnePeriodAddUp(t *testing.T) {
	s := newTestStats(t, testConfig())
	record(t, s, 0, "x", "n1")
	record(t, s, 0, "x", "n2")
	record(t, s, 0, "y", "n3", "n4")
	s.Select(site, at(1))
	if px, py := s.Estimate(u("x")), s.Estimate(u("y")); px != 0.5 || py != 0.5 {
		t.Errorf("p_x, p_y = %v, %v; want 0.5, 0.5", px, py)
	}
}

func TestStatsBound(t *testing.T) {
	cfg := testConfig()
	cfg.TrackedPerSite = 2
	s := newTestStats(t, cfg)
	record(t, s, 0, "a", "n1", "n2", "n3")
	record(t, s, 0, "b", "n4")
	record(t, s, 0, "c", "n5", "n6")
	record(t, s, 0, "d", "n7", "n8", "n9", "n10")
	got := names(s.Top(site, 10, at(1)))
	t.Run("keeps the pages with the largest yields", func(t *testing.T) {
		if !same(got, []string{"d", "a"}) || s.Tracked(site) != 2 {
			t.Errorf("Top = %v, tracked %d; want [d a], 2", got, s.Tracked(site))
		}
	})
	t.Run("the distinct new pages of the period still count in full", func(t *testing.T) {
		if p := s.Estimate(u("d")); p != 0.4 {
			t.Errorf("p_d = %v, want 4/10", p)
		}
	})
	t.Run("later periods evict the lowest estimates", func(t *testing.T) {
		record(t, s, 1, "e", "n11")
		s.Select(site, at(2))
		if got := names(s.Top(site, 10, at(2))); !same(got, []string{"e", "d"}) || s.Tracked(site) != 2 {
			t.Errorf("Top = %v, tracked %d; want [e d], 2", got, s.Tracked(site))
		}
	})
}

func TestStatsFullRecrawlSchedule(t *testing.T) {
	s := newTestStats(t, testConfig()) // Δ = 4 periods
	tests := []struct {
		name string
		done int // period of FullRecrawlDone, -1 for none
		now  int
		want bool
	}{
		{"a site never fully re-crawled is due", -1, 0, true},
		{"not due within Δ periods", 2, 5, false},
		{"due once Δ periods have passed", 2, 6, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.done >= 0 {
				s.FullRecrawlDone(site, at(tt.done))
			}
			if got := s.FullRecrawlDue(site, at(tt.now)); got != tt.want {
				t.Errorf("FullRecrawlDue = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStatsRejectsBadInput(t *testing.T) {
	if _, err := NewStats(testConfig(), 0, nil); err == nil || !strings.Contains(err.Error(), "period") {
		t.Errorf("NewStats(period 0) = %v", err)
	}
	bad := testConfig()
	bad.Alpha = 2
	if _, err := NewStats(bad, time.Hour, nil); err == nil || !strings.Contains(err.Error(), "discovery.alpha") {
		t.Errorf("NewStats(alpha 2) = %v", err)
	}
	s := newTestStats(t, testConfig())
	if err := s.Record("not a url", repo.DiscoveryYield{At: at(0)}); err == nil {
		t.Error("Record accepted a relative URL")
	}
}

func TestStatsIsSafeForConcurrentUse(t *testing.T) {
	s := newTestStats(t, testConfig())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				p := i / 20
				x := fmt.Sprintf("w%d-%d", w, i%7)
				if err := s.Record(u(x), repo.DiscoveryYield{At: at(p), New: us(fmt.Sprint("n", i))}); err != nil {
					t.Error(err)
					return
				}
				s.Select(site, at(p))
				s.FullRecrawlDue(site, at(p))
			}
		}()
	}
	wg.Wait()
	if n := s.Tracked(site); n == 0 || n > 10 {
		t.Errorf("tracked %d pages, want 1..10", n)
	}
}

func TestDistinctCount(t *testing.T) {
	var d distinctCount
	for i := range 3 * kmvSize / 4 {
		d.add(fmt.Sprint("u", i))
		d.add(fmt.Sprint("u", i))
	}
	if got := d.count(); got != 3*kmvSize/4 {
		t.Errorf("exact count = %v, want %d", got, 3*kmvSize/4)
	}
	const n = 200000
	d.reset()
	for i := range n {
		d.add(fmt.Sprint("http://s.test/p/", i))
	}
	if got := d.count(); math.Abs(got-n)/n > 0.1 {
		t.Errorf("estimate %v for %d distinct", got, n)
	}
	if len(d.mins) != kmvSize {
		t.Errorf("kept %d hashes, bound %d", len(d.mins), kmvSize)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := testConfig().Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	bad := Config{Alpha: -0.1, EpsilonB: 1, FullRecrawlEvery: 0, PerSite: 0, TrackedPerSite: 0}
	err := bad.Validate()
	for _, want := range []string{
		"discovery.alpha = -0.1: must be in [0, 1]",
		"discovery.epsilon_b = 1: must be in [0, 1)",
		"discovery.full_recrawl_every = 0: must be >= 1",
		"discovery.per_site = 0: must be >= 1",
		"discovery.tracked_per_site = 0: must be >= discovery.per_site (0) and >= 1",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; missing %q", err, want)
		}
	}
	t.Run("the tracked bound may not be below the budget", func(t *testing.T) {
		c := testConfig()
		c.TrackedPerSite = 1
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "discovery.tracked_per_site = 1") {
			t.Errorf("Validate() = %v", err)
		}
	})
}

// TestConfigUpperBounds: Δ or the pages tracked per site past their bound
// are refused with the key and the range, and accepted at the bound.
func TestConfigUpperBounds(t *testing.T) {
	boundstest.Check(t, "discovery.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "full_recrawl_every", Lo: 1, Hi: MaxFullRecrawlEvery, Set: func(c *Config, v int64) { c.FullRecrawlEvery = int(v) }},
		{Key: "tracked_per_site", Hi: MaxTrackedPerSite, Limit: fmt.Sprintf("must be in [discovery.per_site (2), %d]", MaxTrackedPerSite),
			Set: func(c *Config, v int64) { c.TrackedPerSite = int(v) }},
	})
}

// TestStatsFedFullRecrawlsIsODWin feeds Stats every page's yield of each
// full re-crawl, as the crawler would record them, and checks it ranks and
// estimates exactly as OD-WIN does (§3.6.4), including for a page whose
// first yield comes after several re-crawls that found nothing there.
func TestStatsFedFullRecrawlsIsODWin(t *testing.T) {
	pages := []string{"a", "b", "c", "d"}
	recrawls := []struct {
		period int
		h      *Bipartite
	}{
		{0, coverOf(t, "a:1 2 3", "b:3 4")},
		{2, coverOf(t, "a:1", "c:2 3")},
		{3, coverOf(t, "b:1 2 3 4 5")},
		{5, coverOf(t, "d:1 2", "a:3")},
	}
	for _, alpha := range []float64{1, 0.8, 0.5} {
		t.Run(fmt.Sprintf("α = %v", alpha), func(t *testing.T) {
			cfg := testConfig()
			cfg.Alpha = alpha
			s := newTestStats(t, cfg)
			od := NewODWin(alpha)
			for _, rc := range recrawls {
				for _, x := range pages {
					if err := s.Record(u(x), repo.DiscoveryYield{At: at(rc.period), New: rc.h.Yield(u(x))}); err != nil {
						t.Fatal(err)
					}
				}
				s.FullRecrawlDone(site, at(rc.period))
				od.Observe(site, rc.period, rc.h)
			}
			got := s.Top(site, 10, at(6))
			if want := od.Select(site, 10); !same(got, want) {
				t.Errorf("Stats ranks %v, OD-WIN %v", names(got), names(want))
			}
			for _, x := range pages {
				if a, b := s.Estimate(u(x)), od.Estimate(site, u(x)); math.Abs(a-b) > 1e-12 {
					t.Errorf("p_%s: Stats %v, OD-WIN %v", x, a, b)
				}
			}
		})
	}
}
