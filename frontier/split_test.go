package frontier

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// The rule moves the discovery share toward the side that gained more per
// fetch, by at most split.step, and keeps both sides above split.floor.
func TestNextShareFollowsTheGainWithinBounds(t *testing.T) {
	c := SplitConfig{Recrawl: 0.6, Discovery: 0.3, Adaptive: true, Step: 0.1, Floor: 0.05, Window: 4}
	for _, tc := range []struct {
		name  string
		share float64
		g     gainRates
		want  float64
	}{
		{"discovery ahead", 0.3, gainRates{recrawl: 1, discovery: 3, ok: true}, 0.3 + 0.1*2.0/4},
		{"re-crawl ahead", 0.3, gainRates{recrawl: 3, discovery: 1, ok: true}, 0.3 - 0.1*2.0/4},
		{"only discovery gains: one full step", 0.3, gainRates{recrawl: 0, discovery: 2, ok: true}, 0.4},
		{"equal gains stay", 0.3, gainRates{recrawl: 2, discovery: 2, ok: true}, 0.3},
		{"no gain anywhere stays", 0.3, gainRates{ok: true}, 0.3},
		{"a side unmeasured stays", 0.3, gainRates{recrawl: 0, discovery: 5}, 0.3},
		{"discovery's floor", 0.08, gainRates{recrawl: 9, discovery: 0, ok: true}, 0.05},
		{"re-crawl's floor: the pool less the floor", 0.82, gainRates{recrawl: 0, discovery: 9, ok: true}, 0.85},
		{"a share outside the bounds is brought in", 0.95, gainRates{}, 0.85},
	} {
		if got := nextShare(tc.share, tc.g, c); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: nextShare(%v, %+v) = %v, want %v", tc.name, tc.share, tc.g, got, tc.want)
		}
	}
	// From any start, a long run of one-sided gains ends at the floor and
	// stays there, never moving more than a step at once.
	share := 0.5
	for range 100 {
		next := nextShare(share, gainRates{recrawl: 1, discovery: 0.2, ok: true}, c)
		if share-next > c.Step+1e-12 || next > share {
			t.Fatalf("moved from %v to %v: more than a step, or away from the better side", share, next)
		}
		share = next
	}
	if share != c.Floor {
		t.Fatalf("after 100 periods the share is %v, want the floor %v", share, c.Floor)
	}
}

// perFetch pools the window's periods: the gain per fetch of a side that
// spent its shares, 0 for one that left some unspent, and no rate while a
// side was allotted nothing.
func TestPerFetchPoolsTheWindow(t *testing.T) {
	g := perFetch([]periodGain{
		{recrawl: sideGain{value: 2, fetches: 4, allotted: 4}, discovery: sideGain{value: 0, fetches: 1, allotted: 1}},
		{recrawl: sideGain{value: 1, fetches: 2, allotted: 2}, discovery: sideGain{value: 3, fetches: 3, allotted: 2}},
	})
	if !g.ok || math.Abs(g.recrawl-0.5) > 1e-12 || math.Abs(g.discovery-0.75) > 1e-12 {
		t.Fatalf("perFetch = %+v, want re-crawl 0.5, discovery 0.75", g)
	}
	g = perFetch([]periodGain{
		{recrawl: sideGain{value: 2, fetches: 4, allotted: 4}, discovery: sideGain{value: 9, fetches: 1, allotted: 3}},
		{recrawl: sideGain{value: 1, fetches: 2, allotted: 2}, discovery: sideGain{value: 9, fetches: 3, allotted: 3}},
	})
	if !g.ok || g.discovery != 0 || math.Abs(g.recrawl-0.5) > 1e-12 {
		t.Fatalf("perFetch with discovery's share left unspent = %+v, want discovery 0, re-crawl 0.5", g)
	}
	if g := perFetch([]periodGain{{recrawl: sideGain{value: 2, fetches: 4, allotted: 4}}}); g.ok {
		t.Fatalf("perFetch with no discovery fetch allotted = %+v, want not ok", g)
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
	db, err := repo.Open("", testRepoConfig, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
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
		if err := r.f.Complete(b, job); err != nil {
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

// A discovery share that cannot be spent (OD-WIN picks two pages, no new
// URL waits) shrinks, however much its few fetches gained: one more
// fetch for it would have gone unused.
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
	// 8 allotted, 3 spent (2 picks, 1 new page): a full step down each
	// period to the floor. There the 2 allotted are spent, and gain more
	// per fetch than re-fetches: the share grows again, so the split
	// hovers where discovery just spends its share.
	for i, want := range []float64{0.4, 0.3, 0.2, 0.1} {
		if math.Abs(shares[i]-want) > 1e-9 {
			t.Fatalf("discovery shares %v, want 0.4, 0.3, 0.2, 0.1, then up", shares)
		}
	}
	if shares[4] <= 0.1 {
		t.Fatalf("discovery shares %v: at the floor its share was spent, and it should grow again", shares)
	}
}

// The adaptive split without the index's measure of new pages is refused
// with an error naming the key.
func TestAdaptiveSplitNeedsArrival(t *testing.T) {
	db, err := repo.Open("", testRepoConfig, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
