package frontier

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// rates are marginal gains per fetch with neither side saturated.
func rates(recrawl, discovery float64, ok bool) gainRates {
	return gainRates{recrawl: recrawl, discovery: discovery, ok: ok, recrawlCap: -1, discoveryCap: -1}
}

// The rule moves the discovery share toward the side that gained more per
// fetch, by at most split.step, holds a saturated side to the share it
// could use, and keeps both sides above split.floor.
func TestNextShareFollowsTheGainWithinBounds(t *testing.T) {
	c := SplitConfig{Recrawl: 0.6, Discovery: 0.3, Adaptive: true, Step: 0.1, Floor: 0.05, Window: 4}
	capped := func(g gainRates, re, disc float64) gainRates {
		g.recrawlCap, g.discoveryCap = re, disc
		return g
	}
	for _, tc := range []struct {
		name  string
		share float64
		g     gainRates
		want  float64
	}{
		{"discovery ahead", 0.3, rates(1, 3, true), 0.3 + 0.1*2.0/4},
		{"re-crawl ahead", 0.3, rates(3, 1, true), 0.3 - 0.1*2.0/4},
		{"only discovery gains: one full step", 0.3, rates(0, 2, true), 0.4},
		{"equal gains stay", 0.3, rates(2, 2, true), 0.3},
		{"no gain anywhere stays", 0.3, rates(0, 0, true), 0.3},
		{"a side unmeasured stays", 0.3, rates(0, 5, false), 0.3},
		{"discovery's floor", 0.08, rates(9, 0, true), 0.05},
		{"re-crawl's floor: the pool less the floor", 0.82, rates(0, 9, true), 0.85},
		{"a share outside the bounds is brought in", 0.95, rates(0, 0, false), 0.85},
		{"discovery saturated: held to what it used, however much it gains", 0.6, capped(rates(1, 9, true), -1, 0.2), 0.2},
		{"discovery saturated below its share after a step down", 0.3, capped(rates(9, 1, true), -1, 0.25), 0.3 - 0.1*8.0/10},
		{"re-crawl saturated: discovery gets the rest", 0.1, capped(rates(9, 1, true), 0.5, -1), 0.4},
		{"a cap below the floor keeps the floor", 0.3, capped(rates(1, 1, true), -1, 0.01), 0.05},
	} {
		if got := nextShare(tc.share, tc.g, c); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: nextShare(%v, %+v) = %v, want %v", tc.name, tc.share, tc.g, got, tc.want)
		}
	}
	// From any start, a long run of one-sided gains ends at the floor and
	// stays there, never moving more than a step at once.
	share := 0.5
	for range 100 {
		next := nextShare(share, rates(1, 0.2, true), c)
		if share-next > c.Step+1e-12 || next > share {
			t.Fatalf("moved from %v to %v: more than a step, or away from the better side", share, next)
		}
		share = next
	}
	if share != c.Floor {
		t.Fatalf("after 100 periods the share is %v, want the floor %v", share, c.Floor)
	}
}

// A side's marginal gain is the gain per fetch of the later half of its
// fetches in plan order, not its mean: with a skewed plan (the first
// fetch gains 9, the rest 1) the mean says 3, the tail 1.
func TestMeasureSideTakesTheLastFetches(t *testing.T) {
	g := measureSide([]float64{9, 1, 1, 1}, 4)
	if g.tail != 2 || g.tailFetches != 2 || g.fetches != 4 || g.allotted != 4 {
		t.Fatalf("measureSide = %+v, want the last 2 fetches' gain 2, of 4 fetches", g)
	}
	if g := measureSide([]float64{5, 3, 1}, 6); g.tail != 4 || g.tailFetches != 2 {
		t.Fatalf("measureSide of 3 fetches = %+v, want the last 2 (rounded up), gain 4", g)
	}
	if g := measureSide(nil, 3); g.tailFetches != 0 || g.perTailFetch() != 0 {
		t.Fatalf("measureSide of no fetch = %+v, want no gain", g)
	}
}

// marginalRates pools the window's tails; a side that left its latest
// share unspent is capped at the most it spent in the window, as a share
// of the budget, and still judged by its gain; no rate while a side was
// allotted nothing.
func TestMarginalRatesPoolTheWindow(t *testing.T) {
	g := marginalRates([]periodGain{
		{recrawl: sideGain{tail: 2, tailFetches: 2, fetches: 4, allotted: 4}, discovery: sideGain{tail: 0, tailFetches: 1, fetches: 1, allotted: 1}},
		{recrawl: sideGain{tail: 1, tailFetches: 2, fetches: 4, allotted: 4}, discovery: sideGain{tail: 3, tailFetches: 2, fetches: 3, allotted: 2}},
	}, 10)
	if !g.ok || math.Abs(g.recrawl-0.75) > 1e-12 || math.Abs(g.discovery-1) > 1e-12 || g.recrawlCap != -1 || g.discoveryCap != -1 {
		t.Fatalf("marginalRates = %+v, want re-crawl 0.75, discovery 1, no cap", g)
	}
	g = marginalRates([]periodGain{
		{recrawl: sideGain{tail: 2, tailFetches: 2, fetches: 4, allotted: 4}, discovery: sideGain{tail: 9, tailFetches: 3, fetches: 5, allotted: 5}},
		{recrawl: sideGain{tail: 1, tailFetches: 2, fetches: 4, allotted: 4}, discovery: sideGain{tail: 9, tailFetches: 1, fetches: 2, allotted: 5}},
	}, 10)
	if !g.ok || math.Abs(g.discovery-4.5) > 1e-12 || math.Abs(g.discoveryCap-0.5) > 1e-12 || g.recrawlCap != -1 {
		t.Fatalf("marginalRates with discovery's share left unspent = %+v, want discovery 4.5 per fetch, capped at 5 of 10 fetches", g)
	}
	if g := marginalRates([]periodGain{{recrawl: sideGain{tail: 2, tailFetches: 2, fetches: 4, allotted: 4}}}, 10); g.ok {
		t.Fatalf("marginalRates with no discovery fetch allotted = %+v, want not ok", g)
	}
}

// splitRun drives a frontier with the adaptive split through periods on a
// real repository: each period it plans, fetches everything it hands out
// and, for the re-crawl side, records the ΔQ_A the index would have
// measured (recrawlGain per re-fetch).
type splitRun struct {
	t   *testing.T
	db  *repo.DB
	clk *clock.Manual
	f   *Frontier
	// newURL counts the new pages linked; links is how many a period
	// links.
	newURL, links int
}

func newSplitRun(t *testing.T, cfg Config, arrival Arrival, d Discoverer) *splitRun {
	t.Helper()
	db := memDB(t)
	b := db.NewBatch(context.Background())
	for i := range 40 {
		b.PutPage(&repo.Page{URL: fmt.Sprintf("http://a.test/%02d", i), State: repo.StateLive, Fetches: 1, LastFetch: epoch})
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(epoch.Add(time.Hour))
	f, err := New(context.Background(), db, cfg, fixedGate{capacity: 100}, Uniform{}, Options{Clock: clk, Discoverer: d, Arrival: arrival})
	if err != nil {
		t.Fatal(err)
	}
	return &splitRun{t: t, db: db, clk: clk, f: f, links: 2}
}

// period plans one period, links r.links new pages and fetches every
// job; it returns the fetches per class.
func (r *splitRun) period(recrawlGain float64) map[repo.QueueClass]int {
	t := r.t
	t.Helper()
	ctx := context.Background()
	if _, err := r.f.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	b := r.db.NewBatch(ctx)
	var items []repo.QueueItem
	for range r.links {
		r.newURL++
		it, err := r.f.Enqueue(b, fmt.Sprintf("http://a.test/new/%d", r.newURL), repo.ReasonLink, r.clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	r.f.Publish(items...)
	byClass := map[repo.QueueClass]int{}
	for {
		job, ok := r.f.TryNext()
		if !ok {
			break
		}
		byClass[job.Class]++
		b := r.db.NewBatch(ctx)
		if job.Class == repo.ClassRecrawl && recrawlGain != 0 {
			if err := b.PutDeltaQ(job.URL, &repo.DeltaQ{At: r.clk.Now(), LastFetch: epoch, Value: recrawlGain}); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.f.Complete(b, job, true); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		r.f.Done(job, DoneInfo{})
	}
	r.clk.Advance(time.Hour)
	return byClass
}

// The frontier applies the adaptive shares: new pages worth more per fetch
// than re-fetches move the next plans toward discovery, step by step, up
// to re-crawl's floor; re-fetches worth more move them back to
// discovery's floor; each side keeps at least one fetch.
func TestAdaptiveSplitIsApplied(t *testing.T) {
	picks := make([]string, 0, 40)
	for i := range 40 {
		picks = append(picks, fmt.Sprintf("http://a.test/%02d", i))
	}
	d := &fakeDiscoverer{picks: map[string][]string{"a.test": picks}}
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 20, Period: time.Hour},
		Split:      SplitConfig{Recrawl: 0.5, Discovery: 0.4, Adaptive: true, Step: 0.1, Floor: 0.1, Window: 1},
		HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	// Every new page adds 1; re-fetches first add nothing.
	r := newSplitRun(t, cfg, func(string) float64 { return 1 }, d)

	got := r.period(0)
	if got[repo.ClassRecrawl] != 10 || got[repo.ClassDiscovery] != 8 || got[repo.ClassNew] != 2 {
		t.Fatalf("first period: %v; want the configured shares, 10 re-crawl and 8 discovery (2 new from the rest)", got)
	}
	var shares []float64
	for range 6 {
		got = r.period(0)
		shares = append(shares, r.f.SplitShare())
		if n := got[repo.ClassRecrawl] + got[repo.ClassDiscovery]; n != 18 {
			t.Fatalf("period with share %v: %d re-fetches planned, want the pool of 18", r.f.SplitShare(), n)
		}
		if want := int(math.Round((0.9 - r.f.SplitShare()) * 20)); got[repo.ClassRecrawl] != want {
			t.Fatalf("share %v: %d re-crawl fetches, want %d", r.f.SplitShare(), got[repo.ClassRecrawl], want)
		}
	}
	// Only discovery gained: a full step each period, 0.5, 0.6, 0.7, 0.8,
	// then re-crawl's floor (pool 0.9 − 0.1).
	for i, want := range []float64{0.5, 0.6, 0.7, 0.8, 0.8, 0.8} {
		if math.Abs(shares[i]-want) > 1e-9 {
			t.Fatalf("discovery shares %v, want 0.5 … 0.8 by steps of 0.1, then the floor", shares)
		}
	}
	if got[repo.ClassRecrawl] != 2 {
		t.Fatalf("at re-crawl's floor: %d re-crawl fetches, want 2", got[repo.ClassRecrawl])
	}
	// Now each re-fetch gains 100: back down to discovery's floor, where
	// one in ten fetches still goes to discovery and keeps it measured.
	for range 12 {
		got = r.period(100)
	}
	if s := r.f.SplitShare(); math.Abs(s-0.1) > 1e-9 || got[repo.ClassDiscovery] != 2 || got[repo.ClassRecrawl] != 16 {
		t.Fatalf("after re-fetches gained more: share %v, fetches %v; want 0.1, 2 discovery, 16 re-crawl", s, got)
	}
}

// A discovery share that cannot be spent (OD-WIN picks two pages, one new
// URL waits) is cut at once to what it spent, however much its fetches
// gained: one more fetch for it would have gone unused. Held there, its
// share is spent and judged by its gain, which is larger than
// re-crawl's: it grows again by a step, and is cut again, so the split
// stays where discovery just spends its share.
func TestAdaptiveSplitLeavesAnUnspentShare(t *testing.T) {
	d := &fakeDiscoverer{picks: map[string][]string{"a.test": {"http://a.test/00", "http://a.test/01"}}}
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 20, Period: time.Hour},
		Split:      SplitConfig{Recrawl: 0.5, Discovery: 0.4, Adaptive: true, Step: 0.1, Floor: 0.1, Window: 1},
		HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	// A new page adds 1000, a re-fetch 1.
	r := newSplitRun(t, cfg, func(string) float64 { return 1000 }, d)
	r.links = 1
	var shares []float64
	for range 5 {
		got := r.period(1)
		if got[repo.ClassDiscovery] != 2 {
			t.Fatalf("%d discovery re-fetches, want OD-WIN's 2 picks", got[repo.ClassDiscovery])
		}
		shares = append(shares, r.f.SplitShare())
	}
	// 8 allotted, 3 spent (2 picks, 1 new page): 3 of 20 fetches, 0.15.
	// Then 3 allotted and spent: a step up (the gains 1000 against 1 make
	// it nearly a full one), 5 allotted, 3 spent: 0.15 again.
	step := 0.1 * (500 - 1.0) / (500 + 1)
	for i, want := range []float64{0.4, 0.15, 0.15 + step, 0.15, 0.15 + step} {
		if math.Abs(shares[i]-want) > 1e-9 {
			t.Fatalf("discovery shares %v, want 0.4, then 0.15 and a step above by turns", shares)
		}
	}
}

// The adaptive split without the index's measure of new pages is refused
// with an error naming the key.
func TestAdaptiveSplitNeedsArrival(t *testing.T) {
	db := memDB(t)
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 20, Period: time.Hour},
		Split:      SplitConfig{Recrawl: 0.5, Discovery: 0.4, Adaptive: true, Step: 0.1, Floor: 0.1, Window: 1},
		HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	if _, err := New(context.Background(), db, cfg, fixedGate{capacity: 1}, Uniform{}, Options{}); err == nil {
		t.Fatal("New accepted frontier.split.adaptive without Options.Arrival")
	}
	cfg.Split.Floor = 0.5
	if err := cfg.Validate(Policies()); err == nil {
		t.Fatal("Validate accepted a floor above half the pool")
	}
}
