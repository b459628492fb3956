package monitoreval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/monitor"
)

func testConfig(t *testing.T) Config {
	return Config{Archive: datasets.Path(t, "archives", "digitalgov-2023"), Seed: 1, FPN: 0.1, Sigma: 2, WeeklySigma: 0.5,
		R: []float64{0, 1}, WeeklyC: []int{5, 25}, SynthC: []int{4}, SynthLives: []string{"append", "overwrite"}, BidsSweep: []float64{8, 16},
		Auction: AuctionConfig{Pages: 1500, Instants: 360, Durations: []int{1, 3, 7}, Shares: []float64{0.2, 0.3, 0.5},
			MeanBids: 8, Stage: 1.0 / 7, Early: 0.15, Late: 0.6, Snipe: 0.4}, FigureC: 4}
}

func TestTradeOffDirection(t *testing.T) {
	cfg := testConfig(t)
	sum, err := Run(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages[sum.Weekly] == 0 || sum.Changes[sum.Weekly] < sum.Pages[sum.Weekly] || sum.Instants[sum.Weekly] != 47 {
		t.Fatalf("weekly instance: %d pages, %d changes, %d instants", sum.Pages[sum.Weekly], sum.Changes[sum.Weekly], sum.Instants[sum.Weekly])
	}
	if sum.WeeklyLists == 0 || sum.WeeklyLists >= sum.Pages[sum.Weekly] {
		t.Errorf("weekly instance: %d list pages of %d; want some, and articles besides", sum.WeeklyLists, sum.Pages[sum.Weekly])
	}
	if len(sum.Synthetic) != 2 || sum.Changes[sum.Synthetic[0]] != sum.Changes[sum.Synthetic[1]] {
		t.Fatalf("synthetic settings %q with %v changes: want one web under two lives", sum.Synthetic, sum.Changes)
	}
	for _, setting := range sum.settings() {
		if len(sum.cs(setting)) == 0 {
			t.Errorf("%s: no runs", setting)
		}
		for _, c := range sum.cs(setting) {
			r0, _ := sum.find(setting, c, 0)
			r1, _ := sum.find(setting, c, 1)
			rr, _ := sum.find(setting, c, -1)
			// Completeness against timeliness: r=1 captures more, r=0 a
			// larger share at zero delay.
			if !(r1.Captured > r0.Captured && r1.ZeroDelay < r0.ZeroDelay) {
				t.Errorf("%s C=%d: captured r=0 %.3f r=1 %.3f, zero-delay r=0 %.3f r=1 %.3f", setting, c, r0.Captured, r1.Captured, r0.ZeroDelay, r1.ZeroDelay)
			}
			if r1.Captured < rr.Captured {
				t.Errorf("%s C=%d: WIC r=1 captured %.3f, round-robin %.3f", setting, c, r1.Captured, rr.Captured)
			}
		}
	}
	// The sweep draws the same web as the main run at the same mean of
	// bids (same seeds), so its rows there equal the main run's.
	if len(sum.Sweep) != 4 {
		t.Fatalf("sweep: %d rows, want 2 loads × 2 lives", len(sum.Sweep))
	}
	for i, setting := range sum.Synthetic {
		same, busier := sum.Sweep[i], sum.Sweep[2+i]
		r0, _ := sum.find(setting, cfg.FigureC, 0)
		r1, _ := sum.find(setting, cfg.FigureC, 1)
		if same.MeanBids != cfg.Auction.MeanBids || !strings.HasSuffix(setting, same.Life) || same.R0 != r0 || same.R1 != r1 {
			t.Errorf("sweep row %+v differs from the main run of %s: r=0 %+v, r=1 %+v", same, setting, r0, r1)
		}
		if !(busier.PerInstant > same.PerInstant) {
			t.Errorf("%s: %g bids change %.2f pages a minute, %g bids %.2f", setting, busier.MeanBids, busier.PerInstant, same.MeanBids, same.PerInstant)
		}
	}
	out := t.TempDir()
	if err := sum.Write(out, cfg); err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if want := fmt.Sprintf("author lists): %d of them; every other page is Overwrite", sum.WeeklyLists); err != nil || !strings.Contains(string(report), want) {
		t.Errorf("report.md does not say %q (%v)", want, err)
	}
	for _, f := range []string{"report.md", "results.csv", "captured-weekly.svg", "tradeoff-synthetic-unbounded-append.png", "tradeoff-synthetic-overwrite.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestScoreFollowsLife(t *testing.T) {
	// One page changing at 2, 3 and 7; fetched at 4 and 8.
	// Append keeps all three; Overwrite loses 2 (overwritten by 3 before
	// the fetch at 4); a window of one change loses 2 the same way.
	for _, c := range []struct {
		life     monitor.Life
		captured int
	}{{monitor.Life{Kind: monitor.UnboundedAppend}, 3}, {monitor.Life{Kind: monitor.Overwrite}, 2}, {monitor.Life{Kind: monitor.ChangeWindowAppend, Window: 1}, 2}} {
		in := &instance{n: 8, pages: []page{{url: "p", life: c.life, changes: []int{2, 3, 7}}}}
		res := score(in, [][]int{{4, 8}}, 1, 1)
		if got := int(res.Captured*3 + 0.5); got != c.captured {
			t.Errorf("%s: %d captured, want %d", c.life, got, c.captured)
		}
	}
}

// With exact π, r=0 fetches a page only in an instant it changes, so every
// capture is at zero delay unless more than C pages change in one instant:
// a page skipped there is captured late at its next change.
func TestExactPiDelaysOnlyCrowdedInstants(t *testing.T) {
	life := monitor.Life{Kind: monitor.UnboundedAppend}
	calm := &instance{n: 6, pages: []page{{url: "a", life: life, changes: []int{1, 3}}, {url: "b", life: life, changes: []int{2, 3, 6}}}}
	x, err := exact(t.Context(), calm, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x.Crowded != 0 || x.R0.ZeroDelay != 1 || x.R0.Captured != 1 {
		t.Errorf("calm: crowded %.2f, r=0 captured %.2f zero-delay %.2f; want 0, 1, 1", x.Crowded, x.R0.Captured, x.R0.ZeroDelay)
	}
	// At instant 2 all three change and C=2 fetches two: the third ("c",
	// last by URL) waits until its change at 4.
	crowded := &instance{n: 4, pages: []page{{url: "a", life: life, changes: []int{2}}, {url: "b", life: life, changes: []int{2}}, {url: "c", life: life, changes: []int{2, 4}}}}
	if x, err = exact(t.Context(), crowded, 2, nil); err != nil {
		t.Fatal(err)
	}
	if x.Crowded != 0.25 || x.R0.Delays[2] != 1 || x.R0.ZeroDelay != 0.75 {
		t.Errorf("crowded: crowded %.2f, r=0 delays %v zero-delay %.2f; want 0.25, one at 2, 0.75", x.Crowded, x.R0.Delays, x.R0.ZeroDelay)
	}
}

// The bid times follow the configured stages: the opening and closing
// stages hold their shares, the closing surge is a power law in the time
// left, and 7-day auctions with bids get one in their last five minutes as
// often as that law implies.
func TestAuctionBidStages(t *testing.T) {
	cfg := testConfig(t).Auction
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200_000
	early, late, lastTenth := 0, 0, 0
	for range n {
		u := bidAt(cfg, rng)
		if u < 0 || u > 1 {
			t.Fatalf("bid at elapsed fraction %g", u)
		}
		switch {
		case u < cfg.Stage:
			early++
		case u > 1-cfg.Stage:
			late++
			if u > 1-cfg.Stage/10 {
				lastTenth++
			}
		}
	}
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%s: %.4f, want %.4f", name, got, want)
		}
	}
	near("opening stage share", float64(early)/n, cfg.Early)
	near("closing stage share", float64(late)/n, cfg.Late)
	near("closing stage's last tenth", float64(lastTenth)/float64(late), math.Pow(0.1, cfg.Snipe))

	// A 7-day auction with k bids has one in its last five minutes with
	// probability 1 − (1 − Late·(5/(Stage·7 days))^Snipe)^k.
	q := cfg.Late * math.Pow(5/(cfg.Stage*7*minutesPerDay), cfg.Snipe)
	withBids, sniped := 0, 0.0
	want := 0.0
	keep := cfg.MeanBids / (1 + cfg.MeanBids)
	for k := 1; k < 500; k++ {
		p := (1 - keep) * math.Pow(keep, float64(k))
		want += p * (1 - math.Pow(1-q, float64(k)))
		sniped += p
	}
	want /= sniped
	sniped = 0
	for range 20_000 {
		bids := int(math.Log(1-rng.Float64()) / math.Log(keep))
		if bids == 0 {
			continue
		}
		withBids++
		for range bids {
			if (1-bidAt(cfg, rng))*7*minutesPerDay <= 5 {
				sniped++
				break
			}
		}
	}
	near("7-day auctions bid on in their last 5 minutes", sniped/float64(withBids), want)
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	cfg := testConfig(t)
	cfg.SynthLives = []string{"append", "sideways"}
	cfg.BidsSweep = []float64{8, -1}
	err := cfg.Validate()
	for _, want := range []string{"eval.monitor.synth_lives = sideways: must be append or overwrite", "eval.monitor.bids_sweep = -1: must be in (0, 10000]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
}

// TestEveryCFindingNamesWhereBothFiguresHold: of three C, only the one
// where r=1 captures 1.2–1.8× and r=0 keeps ≥ 0.9 at zero delay (r=1
// lower) is named.
func TestEveryCFindingNamesWhereBothFiguresHold(t *testing.T) {
	const web = "SYNTHETIC web"
	s := &Summary{Synthetic: []string{web}}
	for _, x := range []struct {
		c            int
		cap0, cap1   float64
		zero0, zero1 float64
	}{
		{1, 0.2, 0.5, 0.95, 0.1}, // 2.5×: too many more
		{4, 0.5, 0.7, 0.92, 0.2}, // 1.4×, r=0 0.92: both
		{8, 0.8, 0.9, 0.85, 0.3}, // 1.125×, r=0 0.85: neither
	} {
		s.Results = append(s.Results,
			Result{Setting: web, C: x.c, R: 0, Captured: x.cap0, ZeroDelay: x.zero0},
			Result{Setting: web, C: x.c, R: 1, Captured: x.cap1, ZeroDelay: x.zero1})
	}
	got := s.everyCFinding(web)
	if !strings.Contains(got, "C=4 (r=1 / r=0 1.40, zero-delay r=0 0.920, r=1 0.200)") || strings.Contains(got, "C=1 ") || strings.Contains(got, "C=8 ") {
		t.Errorf("finding %q: want C=4 alone", got)
	}
	s.Results = s.Results[4:] // C=8 alone
	if got := s.everyCFinding(web); !strings.Contains(got, "at no C swept") {
		t.Errorf("finding %q: want none", got)
	}
}

// TestConfigValidateUpperBounds: every size the runs allocate or loop over
// is refused past its bound, naming the key and the range, and accepted at
// the bound.
func TestConfigValidateUpperBounds(t *testing.T) {
	fresh := func() Config { return testConfig(t) }
	boundstest.Check(t, "eval.monitor.", fresh, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "sigma", Hi: maxSigma, Limit: "must be in [0, 1000]", Float: true, Set: func(c *Config, v int64) { c.Sigma = float64(v) }},
		{Key: "weekly_sigma", Hi: maxSigma, Limit: "must be in [0, 1000]", Float: true, Set: func(c *Config, v int64) { c.WeeklySigma = float64(v) }},
		{Key: "weekly_c[1]", Hi: maxC, Limit: "must be in [1, 100000]", Set: func(c *Config, v int64) { c.WeeklyC[1] = int(v) }},
		{Key: "synth_c[0]", Hi: maxC, Limit: "must be in [1, 100000]", Set: func(c *Config, v int64) { c.SynthC[0] = int(v) }},
		{Key: "figure_c", Hi: maxC, Limit: "must be in [1, 100000]", Set: func(c *Config, v int64) { c.FigureC = int(v) }},
		{Key: "bids_sweep", Hi: maxMeanBids, Limit: "must be in (0, 10000]", Float: true, Set: func(c *Config, v int64) { c.BidsSweep[0] = float64(v) }},
		{Key: "auction.pages", Hi: maxPages, Limit: "must be in [1, 1000000]", Set: func(c *Config, v int64) { c.Auction.Pages = int(v) }},
		{Key: "auction.instants", Hi: maxInstants, Limit: "must be in [2, 1000000]", Set: func(c *Config, v int64) { c.Auction.Instants = int(v) }},
		{Key: "auction.durations", Hi: maxDurationDays, Limit: "must be in [1, 3650]", Set: func(c *Config, v int64) { c.Auction.Durations, c.Auction.Shares = []int{int(v)}, []float64{1} }},
		{Key: "auction.mean_bids", Hi: maxMeanBids, Limit: "must be in (0, 10000]", Float: true, Set: func(c *Config, v int64) { c.Auction.MeanBids = float64(v) }},
	})
}
