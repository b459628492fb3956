package frontier

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// syntheticLog simulates a page whose content changes as a Poisson process
// of rate lambda per week, fetched at random intervals of 1–4 weeks for
// fetches re-fetches, and returns its fetch log.
func syntheticLog(rng *rand.Rand, lambda float64, fetches int) []repo.FetchRecord {
	at := epoch
	log := []repo.FetchRecord{{At: at, Outcome: repo.OutcomeOK, Difference: -1}}
	for range fetches {
		gap := 1 + rng.IntN(4)
		at = at.Add(time.Duration(gap) * week)
		r := repo.FetchRecord{At: at, Outcome: repo.OutcomeNotModified, Difference: -1}
		if rng.Float64() < 1-math.Exp(-lambda*float64(gap)) {
			r.Outcome, r.Changed, r.Difference = repo.OutcomeOK, true, 0.5
		}
		log = append(log, r)
	}
	return log
}

// TestChangeModelRecoversKnownRates builds a synthetic web of three
// directories whose pages change at known rates and checks the pooled
// posterior: the mean posterior rate of each directory is within 20 % of
// its true rate, and the predicted chance of a change within two weeks is
// within 0.05 of the truth on average over its pages. Pages with two
// observations only (most of the web, for a crawler on a small budget)
// borrow from their directory: their error is at most 0.08.
func TestChangeModelRecoversKnownRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rates := map[string]float64{"slow": 0.02, "weekly": 0.3, "fast": 2}
	var urls []string
	var logs [][]repo.FetchRecord
	truth := map[string]float64{}
	for _, dir := range []string{"slow", "weekly", "fast"} {
		for i := range 200 {
			u := fmt.Sprintf("http://a.test/%s/%03d", dir, i)
			n := 16
			if i%2 == 1 {
				n = 2 // sparsely observed
			}
			urls = append(urls, u)
			logs = append(logs, syntheticLog(rng, rates[dir], n))
			truth[u] = rates[dir]
		}
	}
	grid := newRateGrid()
	pool := newRatePool(grid)
	ids := make([]int, len(urls))
	for i, log := range logs {
		ev, _ := observe(log, nil, time.Time{}, 8, week)
		ids[i] = pool.add(urls[i], 0, ev)
	}
	post := make([]float64, gridSize)
	type acc struct{ rate, errAll, errSparse, n, sparse float64 }
	byDir := map[string]*acc{}
	for i, u := range urls {
		dir := directory(u)
		a := byDir[dir]
		if a == nil {
			a = &acc{}
			byDir[dir] = a
		}
		posterior(pool.prior(u, 0), pool.liks.vecs[ids[i]], post)
		lambda := truth[u]
		e := math.Abs(grid.changeProbability(post, 2) - (1 - math.Exp(-2*lambda)))
		a.rate += grid.meanRate(post)
		a.errAll += e
		a.n++
		if len(logs[i]) == 3 {
			a.errSparse += e
			a.sparse++
		}
	}
	for dir, lambda := range rates {
		a := byDir["http://a.test/"+dir+"/"]
		mean := a.rate / a.n
		if math.Abs(mean-lambda) > 0.2*lambda {
			t.Errorf("%s: mean posterior rate %.4f, true %.4f (more than 20 %% off)", dir, mean, lambda)
		}
		if e := a.errAll / a.n; e > 0.05 {
			t.Errorf("%s: P(change in 2 weeks) off by %.3f on average, want <= 0.05", dir, e)
		}
		if e := a.errSparse / a.sparse; e > 0.08 {
			t.Errorf("%s: pages seen twice: P(change in 2 weeks) off by %.3f on average, want <= 0.08", dir, e)
		}
	}
}

// TestChangeModelPoolsByStakeClass builds one directory whose pages of
// one stake class change every week and of another once in fifty, and
// checks that a page of each class that no re-fetch has tested yet gets
// its class's rate as its prior, and a page of a class no page is seen in
// the host's: the directory alone cannot tell them apart.
func TestChangeModelPoolsByStakeClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var stakes stakeClasses
	for _, s := range []float64{1, 1e4} {
		stakes.add(s)
	}
	fast, slow, unseen := stakes.class(1e4), stakes.class(1), stakes.class(100)
	if fast == slow || unseen == fast || unseen == slow {
		t.Fatalf("classes of stakes 1e4, 1 and 100: %d, %d, %d; want three", fast, slow, unseen)
	}
	pool := newRatePool(newRateGrid())
	for i := range 300 {
		class, lambda := fast, 1.0
		if i%2 == 1 {
			class, lambda = slow, 0.02
		}
		ev, _ := observe(syntheticLog(rng, lambda, 16), nil, time.Time{}, 8, week)
		pool.add(fmt.Sprintf("http://a.test/docs/%03d", i), class, ev)
	}
	rate := func(class int) float64 { return pool.liks.grid.meanRate(pool.prior("http://a.test/docs/new", class)) }
	if r := rate(fast); r < 0.5 || r > 2 {
		t.Errorf("prior mean rate of a new page in the fast class: %.3f, want within a factor 2 of 1", r)
	}
	if r := rate(slow); r < 0.01 || r > 0.04 {
		t.Errorf("prior mean rate of a new page in the slow class: %.3f, want within a factor 2 of 0.02", r)
	}
	if r := rate(unseen); r < 0.1 || r > 0.9 {
		t.Errorf("prior mean rate of a new page in a class without pages: %.3f, want the host's mix of 1 and 0.02", r)
	}
}

// TestStakeClassesSpanFactorsOfTwo checks the classes' edges: stakes are
// classed by factors of 2 from the geometric mean of the positive ones,
// the outermost classes are open-ended, and no stake is class 0.
func TestStakeClassesSpanFactorsOfTwo(t *testing.T) {
	var s stakeClasses
	if c := s.class(5); c != 0 {
		t.Errorf("before any stake: class %d, want 0", c)
	}
	for _, stake := range []float64{0, 1, 4, 16} { // geometric mean of the positive: 4
		s.add(stake)
	}
	mid := 1 + stakeClassSpan
	for _, c := range []struct {
		stake float64
		want  int
	}{{0, 0}, {-1, 0}, {4, mid}, {7.9, mid}, {8, mid + 1}, {3.9, mid - 1}, {2, mid - 1}, {1e12, mid + stakeClassSpan}, {1e-12, 1}} {
		if got := s.class(c.stake); got != c.want {
			t.Errorf("class(%g) = %d, want %d", c.stake, got, c.want)
		}
	}
}

// TestImpactModelRecoversStakes draws each change's ΔQ_A as exponential
// with mean 0.5·stake and checks that the pooled fit finds the slope of
// what the floor leaves, 0.5·(1 − priorFloor), within 10 % and that a
// page's posterior mean impact is within 25 % of its true mean once it
// has 8 observations.
func TestImpactModelRecoversStakes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var obs []impactObservations
	var want []float64
	for i := range 2000 {
		stake := 1 + float64(i%20)
		o := impactObservations{stake: stake, n: 8}
		for range o.n {
			o.sum += rng.ExpFloat64() * 0.5 * stake
		}
		obs = append(obs, o)
		want = append(want, 0.5*stake)
	}
	var fit impactFit
	for _, o := range obs {
		fit.add(o)
	}
	p := fit.prior()
	if want := 0.5 * (1 - priorFloor); math.Abs(p.b-want) > 0.1*want {
		t.Fatalf("fitted slope %.4f, want %.4f ± 10 %%", p.b, want)
	}
	var rel float64
	for i, o := range obs {
		rel += math.Abs(p.posterior(o).mean()-want[i]) / want[i]
	}
	if rel /= float64(len(obs)); rel > 0.25 {
		t.Fatalf("posterior mean impact off by %.1f %% on average, want <= 25 %%", 100*rel)
	}
	// A page never seen changing takes the pooled prior m₀ = a + b·stake.
	if m := p.posterior(impactObservations{stake: 10}).mean(); math.Abs(m-5) > 0.5 {
		t.Fatalf("prior mean impact at stake 10 = %.3f, want 5 ± 10 %%", m)
	}
}

// TestImpactPriorKeepsTheStakeWhenMeasurementsIgnoreIt: ΔQ_A measured
// on changes as the index records them, most near 0 and a few far larger,
// whatever the page's stake. The prior of a page never seen changing must
// still grow with its stake: least squares with a free intercept fitted a
// slope near 0 and gave every page one prior, so the stake no longer
// ranked the pages.
func TestImpactPriorKeepsTheStakeWhenMeasurementsIgnoreIt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var fit impactFit
	var sum float64
	for i := range 400 {
		x := 1e-4 * rng.Float64()
		if rng.IntN(20) == 0 {
			x = 1e4 * rng.ExpFloat64()
		}
		sum += x
		fit.add(impactObservations{sum: x, n: 1, stake: math.Pow(10, float64(i%6))})
	}
	p := fit.prior()
	low := p.posterior(impactObservations{stake: 10}).mean()
	high := p.posterior(impactObservations{stake: 1e4}).mean()
	if high < 10*low { // least squares: within a factor 2
		t.Fatalf("prior mean impact %.4g at stake 1e4, %.4g at stake 10: want it to grow with the stake", high, low)
	}
	// The priors of the pages observed add up to their observations.
	var prior float64
	for i := range 400 {
		prior += p.a + p.b*math.Pow(10, float64(i%6))
	}
	if math.Abs(prior-sum) > 1e-9*sum {
		t.Fatalf("priors sum to %.6g, observations to %.6g", prior, sum)
	}
}

// deltaqWorld is a set of pages re-fetched under a DeltaQ policy, week
// by week: pages change at given rates and the policy's picks become the
// pages' fetch logs and ΔQ_A measurements.
type deltaqWorld struct {
	pages  *fakePages
	last   map[string]time.Time
	rate   map[string]float64 // changes per week
	impact map[string]float64 // ΔQ_A of a change
	rng    *rand.Rand
}

func newDeltaqWorld(n int, rate, impact func(i int) float64) *deltaqWorld {
	w := &deltaqWorld{pages: &fakePages{logs: map[string][]repo.FetchRecord{}, dqs: map[string][]repo.DeltaQ{}},
		last: map[string]time.Time{}, rate: map[string]float64{}, impact: map[string]float64{}, rng: rand.New(rand.NewPCG(5, 6))}
	for i := range n {
		u := fmt.Sprintf("http://a.test/%03d", i)
		w.last[u] = epoch
		w.pages.logs[u] = []repo.FetchRecord{{At: epoch, Outcome: repo.OutcomeOK, Difference: -1}}
		w.rate[u], w.impact[u] = rate(i), impact(i)
	}
	return w
}

// period asks the policy for n picks at week wk and re-fetches them.
func (w *deltaqWorld) period(t *testing.T, d *DeltaQ, wk, n int) []string {
	t.Helper()
	now := epoch.Add(time.Duration(wk) * week)
	w.pages.pages = w.pages.pages[:0]
	for u, at := range w.last {
		w.pages.pages = append(w.pages.pages, repo.Page{URL: u, LastFetch: at})
	}
	slices.SortFunc(w.pages.pages, func(a, b repo.Page) int { return cmpString(a.URL, b.URL) })
	got, err := d.Select(context.Background(), Plan{Now: now, N: n, Period: week}, w.pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range got {
		gap := now.Sub(w.last[u]).Hours() / week.Hours()
		r := repo.FetchRecord{At: now, Outcome: repo.OutcomeNotModified, Difference: -1}
		if w.rng.Float64() < 1-math.Exp(-w.rate[u]*gap) {
			r.Outcome, r.Changed, r.Difference = repo.OutcomeOK, true, 0.5
			w.pages.dqs[u] = append(w.pages.dqs[u], repo.DeltaQ{At: now, Value: w.impact[u]})
		}
		w.pages.logs[u] = append(w.pages.logs[u], r)
		w.last[u] = now
	}
	return got
}

// TestDeltaQSpacesRefetchesByRootOfGain: 100 pages changing at one
// rate, half with 16 times the other half's stake and impact. The loss
// Σ λ·m·T/2 is least for the budget at intervals T ∝ 1/√(λ·m), so the
// large pages are re-fetched about 4 times as often as the small ones
// (ranked by the gain λ·m·a alone, 16 times), under either exploration.
func TestDeltaQSpacesRefetchesByRootOfGain(t *testing.T) {
	big := func(i int) bool { return i >= 50 }
	weight := func(i int) float64 {
		if big(i) {
			return 16
		}
		return 1
	}
	for _, exploration := range Explorations() {
		w := newDeltaqWorld(100, func(int) float64 { return 0.2 }, weight)
		stake := map[string]float64{}
		for i := range 100 {
			stake[fmt.Sprintf("http://a.test/%03d", i)] = weight(i)
		}
		d := &DeltaQ{Window: 8, Exploration: exploration, Seed: 1, Importance: func(u string) float64 { return stake[u] }}
		var fetches [2]int
		for wk := 1; wk <= 150; wk++ {
			for _, u := range w.period(t, d, wk, 10) {
				if wk > 50 {
					fetches[min(1, int(stake[u]/16))]++
				}
			}
		}
		if ratio := float64(fetches[1]) / float64(fetches[0]); ratio < 2.5 || ratio > 6.5 {
			t.Errorf("%s: weeks 51–150: %d re-fetches of the large pages, %d of the small: ratio %.2f, want about √16 = 4",
				exploration, fetches[1], fetches[0], ratio)
		}
	}
}

// TestDeltaQRevisitsEveryPageWithinMaxInterval: 20 pages, 4 picks a
// period, one page that changes every week with a large impact and 19
// that never change; with MaxInterval 8 periods (C/N = 5 fit in it), no
// page waits longer than 8 periods, under either exploration.
func TestDeltaQRevisitsEveryPageWithinMaxInterval(t *testing.T) {
	for _, exploration := range Explorations() {
		w := newDeltaqWorld(20, func(i int) float64 {
			if i == 0 {
				return 5
			}
			return 0
		}, func(int) float64 { return 100 })
		d := &DeltaQ{Window: 8, Exploration: exploration, MaxInterval: 8 * week, Seed: 1}
		lastPicked := map[string]int{}
		for u := range w.last {
			lastPicked[u] = 0
		}
		hot := 0
		for wk := 1; wk <= 60; wk++ {
			got := w.period(t, d, wk, 4)
			for _, u := range got {
				lastPicked[u] = wk
				if u == "http://a.test/000" {
					hot++
				}
			}
			for u, at := range lastPicked {
				if wk-at > 8 {
					t.Fatalf("%s: week %d: %s not re-fetched since week %d, bound 8", exploration, wk, u, at)
				}
			}
		}
		if hot < 55 {
			t.Errorf("%s: the page changing every week with impact 100 was re-fetched %d of 60 weeks", exploration, hot)
		}
	}
}

// addWeekly gives u the fetch log weekly(diffs...) and a ΔQ_A of dq at
// each re-fetch that found a change.
func (f *fakePages) addWeekly(u string, dq float64, diffs ...float64) {
	f.logs[u] = weekly(diffs...)
	for _, r := range f.logs[u] {
		if r.Changed {
			f.dqs[u] = append(f.dqs[u], repo.DeltaQ{At: r.At, Value: dq})
		}
	}
}

// TestDeltaQThompsonExploresUncertainHighStakePages: of two pages never
// seen changing, the one whose stake is large and whose history is short
// is re-fetched more often than one as large observed unchanged for a
// year, and more often than one as uncertain with no stake, under both
// change models; the page seen unchanged waits under the posterior-mean
// rule (its priority grows with its wait, and max_interval bounds it).
func TestDeltaQThompsonExploresUncertainHighStakePages(t *testing.T) {
	const (
		uncertainBig   = "http://a.test/d/new-big"
		uncertainSmall = "http://a.test/d/new-small"
		knownBig       = "http://a.test/d/old-big"
	)
	pages := &fakePages{logs: map[string][]repo.FetchRecord{}, dqs: map[string][]repo.DeltaQ{}}
	stake := map[string]float64{uncertainBig: 10, uncertainSmall: 0, knownBig: 10}
	pages.logs[uncertainBig] = weekly(0)
	pages.logs[uncertainSmall] = weekly(0)
	pages.logs[knownBig] = weekly(make([]float64, 52)...)
	// Neighbours that change and matter as much as the big pages, so that
	// the pooled priors are not degenerate and the big pages' prior impact
	// is what the neighbours' changes measured.
	for i := range 30 {
		u := fmt.Sprintf("http://a.test/d/busy%02d", i)
		diffs := make([]float64, 20)
		for j := range diffs {
			if (i+j)%3 == 0 {
				diffs[j] = 0.5
			}
		}
		pages.addWeekly(u, 3, diffs...)
		stake[u] = 10
	}
	for u, l := range pages.logs {
		pages.pages = append(pages.pages, repo.Page{URL: u, LastFetch: l[len(l)-1].At})
	}
	slices.SortFunc(pages.pages, func(a, b repo.Page) int { return cmpString(a.URL, b.URL) })
	imp := func(u string) float64 { return stake[u] }
	for _, changes := range ChangeModels() {
		picks := map[string]int{}
		thompson := &DeltaQ{Window: 8, Exploration: "thompson", Changes: changes, Seed: 7, Importance: imp}
		mean := &DeltaQ{Window: 8, Exploration: "mean", Changes: changes, Importance: imp}
		meanPicked := 0
		for wk := range 200 {
			plan := Plan{Now: epoch.Add(time.Duration(60+wk) * 24 * time.Hour * 7), N: 5, Period: week}
			got, err := thompson.Select(context.Background(), plan, pages)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range got {
				picks[u]++
			}
			got, _ = mean.Select(context.Background(), plan, pages)
			if slices.Contains(got, knownBig) {
				meanPicked++
			}
		}
		if !(picks[uncertainBig] > picks[knownBig] && picks[uncertainBig] > picks[uncertainSmall]) {
			t.Fatalf("%s: picks over 200 periods: uncertain+big %d, known+big %d, uncertain+small %d; want the first most",
				changes, picks[uncertainBig], picks[knownBig], picks[uncertainSmall])
		}
		if meanPicked != 0 {
			t.Fatalf("%s: the page seen unchanged for a year: %d posterior-mean picks, want 0", changes, meanPicked)
		}
	}
}

// TestDeltaQUntriedDrawsOnlyForPagesNeverRefetched: under exploration
// untried, a plan over pages that have all been re-fetched is the
// posterior-mean plan whatever the seed (Thompson sampling's is not), and
// a plan that also holds pages fetched once draws their rates: its picks
// move with the seed.
func TestDeltaQUntriedDrawsOnlyForPagesNeverRefetched(t *testing.T) {
	pages := &fakePages{logs: map[string][]repo.FetchRecord{}, dqs: map[string][]repo.DeltaQ{}}
	for i := range 30 {
		u := fmt.Sprintf("http://a.test/d/seen%02d", i)
		diffs := make([]float64, 1+i%6)
		for j := range diffs {
			if (i+j)%4 == 0 {
				diffs[j] = 0.5
			}
		}
		pages.addWeekly(u, 1, diffs...)
	}
	candidates := func() {
		pages.pages = pages.pages[:0]
		for u, l := range pages.logs {
			pages.pages = append(pages.pages, repo.Page{URL: u, LastFetch: l[len(l)-1].At})
		}
		slices.SortFunc(pages.pages, func(a, b repo.Page) int { return cmpString(a.URL, b.URL) })
	}
	plan := Plan{Now: epoch.Add(10 * week), N: 5, Period: week}
	picks := func(exploration string, seed uint64) string {
		d := &DeltaQ{Window: 8, Exploration: exploration, Seed: seed}
		got, err := d.Select(context.Background(), plan, pages)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}

	candidates()
	mean := picks("mean", 0)
	thompson := map[string]bool{}
	for seed := range uint64(20) {
		if got := picks("untried", seed); got != mean {
			t.Fatalf("seed %d, every page re-fetched: untried picked %s, the posterior means %s", seed, got, mean)
		}
		thompson[picks("thompson", seed)] = true
	}
	if len(thompson) < 2 {
		t.Fatalf("Thompson sampling picked %v under 20 seeds, want the draws to move the picks", thompson)
	}

	for i := range 10 {
		pages.logs[fmt.Sprintf("http://a.test/d/once%02d", i)] = weekly()
	}
	candidates()
	untried := map[string]bool{}
	for seed := range uint64(20) {
		untried[picks("untried", seed)] = true
	}
	if len(untried) < 2 {
		t.Fatalf("with pages fetched once, untried picked %v under 20 seeds, want their draws to move the picks", untried)
	}
	// The explanation says which pages are drawn.
	for _, c := range []struct {
		exploration, url string
		drawn            bool
	}{
		{"untried", "http://a.test/d/once00", true},
		{"untried", "http://a.test/d/seen00", false},
		{"thompson", "http://a.test/d/seen00", true},
		{"mean", "http://a.test/d/once00", false},
	} {
		d := &DeltaQ{Window: 8, Exploration: c.exploration, Seed: 1}
		post, ok, err := d.Explain(context.Background(), plan, pages, c.url)
		if err != nil || !ok {
			t.Fatalf("explain %s: ok %v, %v", c.url, ok, err)
		}
		if post.Drawn != c.drawn {
			t.Errorf("%s, %s: drawn %v, want %v", c.exploration, c.url, post.Drawn, c.drawn)
		}
	}
}

// TestDeltaQThompsonIsAFunctionOfSeedAndPeriod: the same plan over the
// same pages, in any candidate order, gives the same picks; another
// period gives other draws.
func TestDeltaQThompsonIsAFunctionOfSeedAndPeriod(t *testing.T) {
	w := newDeltaqWorld(50, func(i int) float64 { return 0.1 }, func(i int) float64 { return float64(i % 7) })
	d := &DeltaQ{Window: 8, Exploration: "thompson", Seed: 1}
	for wk := 1; wk <= 10; wk++ {
		w.period(t, d, wk, 5)
	}
	plan := Plan{Now: epoch.Add(11 * week), N: 5, Period: week}
	a, err := d.Select(context.Background(), plan, w.pages)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(w.pages.pages)
	b, _ := d.Select(context.Background(), plan, w.pages)
	if !slices.Equal(a, b) {
		t.Fatalf("candidate order changed the picks: %v vs %v", a, b)
	}
	differ := false
	for k := 12; k < 20 && !differ; k++ {
		c, _ := d.Select(context.Background(), Plan{Now: epoch.Add(time.Duration(k) * week), N: 5, Period: week}, w.pages)
		differ = !slices.Equal(a, c)
	}
	if !differ {
		t.Fatal("eight later periods drew the same picks: the draws do not depend on the period")
	}
}

// TestDeltaQReadsSitemapLastMod: the sitemap is re-read first; a page
// whose <lastmod> is after its last fetch is known to have changed and
// goes before pages alike whose <lastmod> is not, and a page whose
// Last-Modified shows its change came right after the previous fetch is
// taken to have been quiet since.
func TestDeltaQReadsSitemapLastMod(t *testing.T) {
	const sitemap = "http://a.test/sitemap.xml"
	now := epoch.Add(10 * week)
	lr := epoch.Add(5 * week)
	pages := &fakePages{logs: map[string][]repo.FetchRecord{}, dqs: map[string][]repo.DeltaQ{}}
	pages.pages = append(pages.pages, repo.Page{URL: sitemap, ContentType: "application/xml; charset=utf-8", LastFetch: now.Add(-week)})
	pages.logs[sitemap] = weekly()
	for i := range 40 {
		u := fmt.Sprintf("http://a.test/p/%02d", i)
		p := repo.Page{URL: u, LastFetch: lr, SitemapLastMod: epoch}
		if i == 17 {
			p.SitemapLastMod = lr.Add(2 * week) // changed after LR
		}
		pages.pages = append(pages.pages, p)
		pages.logs[u] = append(weekly(0, 0, 0, 0), repo.FetchRecord{At: lr, Outcome: repo.OutcomeOK, Changed: true, Difference: 0.5})
		pages.dqs[u] = []repo.DeltaQ{{At: lr, Value: 1}}
	}
	for _, exploration := range Explorations() {
		d := &DeltaQ{Window: 8, Exploration: exploration, SitemapLastMod: true, Seed: 3}
		got, err := d.Select(context.Background(), Plan{Now: now, N: 4, Period: week}, pages)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 || got[0] != sitemap || got[1] != "http://a.test/p/17" {
			t.Fatalf("%s: picked %v; want the sitemap, then the page its <lastmod> shows changed", exploration, got)
		}
		d.SitemapLastMod = false
		got, _ = d.Select(context.Background(), Plan{Now: now, N: 4, Period: week}, pages)
		if slices.Contains(got, sitemap) {
			t.Fatalf("%s: without sitemap_lastmod the sitemap was re-read: %v", exploration, got)
		}
	}

	// Last-Modified: the change found at week 5 came by week 1, so weeks
	// 1–5 were quiet; without it the change could have come any time in
	// weeks 0–5.
	log := append(weekly(), repo.FetchRecord{At: lr, Outcome: repo.OutcomeOK, Changed: true, Difference: 0.5})
	split, _ := observe(log, nil, epoch.Add(week), 8, week)
	whole, _ := observe(log, nil, time.Time{}, 8, week)
	if math.Abs(split.quiet-4) > 1e-9 || len(split.changed) != 1 || math.Abs(split.changed[0]-1) > 1e-9 {
		t.Fatalf("with Last-Modified: evidence %+v, want quiet 4 and a change within 1 week", split)
	}
	if whole.quiet != 0 || len(whole.changed) != 1 || math.Abs(whole.changed[0]-5) > 1e-9 {
		t.Fatalf("without Last-Modified: evidence %+v, want a change within 5 weeks", whole)
	}
}

// TestPagesWithoutStakeGoByTheirChanceOfChange: before any ΔQ_A was
// measured, pages without stake in the workload all have the least prior
// impact, and a re-fetch goes to the one likelier to have changed (always
// under the posterior mean, most often under Thompson sampling's draws);
// a page with a stake goes before either.
func TestPagesWithoutStakeGoByTheirChanceOfChange(t *testing.T) {
	const (
		rarely = "http://a.test/rarely" // first by URL, where scores tie
		often  = "http://b.test/often"
		staked = "http://c.test/staked"
	)
	pages := &fakePages{logs: map[string][]repo.FetchRecord{
		rarely: weekly(1, 0, 1, 0, 1, 0, 1, 0, 1, 0),
		often:  weekly(1, 1, 1, 0, 1, 1, 1, 1, 0, 1),
		staked: weekly(1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	}}
	for _, u := range []string{rarely, often, staked} {
		l := pages.logs[u]
		pages.pages = append(pages.pages, repo.Page{URL: u, LastFetch: l[len(l)-1].At})
	}
	stake := func(u string) float64 {
		if u == staked {
			return 1e-6
		}
		return 0
	}
	for _, exploration := range Explorations() {
		d := &DeltaQ{Window: 8, Exploration: exploration, Seed: 3, Importance: stake}
		second := map[string]int{}
		for h := range 100 { // plans an hour apart: Thompson draws anew
			plan := Plan{Now: epoch.Add(11*week + time.Duration(h)*time.Hour), N: 2, Period: week}
			got, err := d.Select(context.Background(), plan, pages)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0] != staked {
				t.Fatalf("%s: picked %v, want %s first", exploration, got, staked)
			}
			second[got[1]]++
		}
		// Every page here has been re-fetched: only Thompson sampling draws.
		if (exploration != "thompson" && second[often] != 100) || second[often] <= second[rarely] {
			t.Errorf("%s: second pick over 100 plans: %s %d times, %s %d times", exploration, often, second[often], rarely, second[rarely])
		}
	}
	// The explanation says why such a page's impact is all but nothing.
	const says = "after every page with a stake"
	for impact, want := range map[float64]bool{minPriorImpact: true, 1e-6: false} {
		if why := posteriorWhy(Config{}, Posterior{Impact: impact}); strings.Contains(why, says) != want {
			t.Errorf("impact %g: explanation %q; want it to say %q: %v", impact, why, says, want)
		}
	}
}
