package frontier

import (
	"context"
	"fmt"
	"iter"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

var (
	week  = 7 * 24 * time.Hour
	epoch = time.Date(2023, 1, 30, 0, 0, 0, 0, time.UTC)
)

// fakePages is a Pages over fixed histories.
type fakePages struct {
	pages []repo.Page
	logs  map[string][]repo.FetchRecord
	dqs   map[string][]repo.DeltaQ
}

func (f *fakePages) Candidates(context.Context) iter.Seq2[repo.Page, error] {
	return func(yield func(repo.Page, error) bool) {
		for _, p := range f.pages {
			if !yield(p, nil) {
				return
			}
		}
	}
}
func (f *fakePages) FetchLog(_ context.Context, u string) ([]repo.FetchRecord, error) {
	return f.logs[u], nil
}
func (f *fakePages) DeltaQs(_ context.Context, u string) ([]repo.DeltaQ, error) {
	return f.dqs[u], nil
}

// weekly builds a fetch log of one fetch a week for len(diffs)+1 weeks;
// diffs[i] is the shingle difference found at re-fetch i (0 = unchanged).
func weekly(diffs ...float64) []repo.FetchRecord {
	log := []repo.FetchRecord{{At: epoch, Outcome: repo.OutcomeOK, Difference: -1}}
	for i, d := range diffs {
		r := repo.FetchRecord{At: epoch.Add(time.Duration(i+1) * week), Outcome: repo.OutcomeOK, Difference: -1}
		if d > 0 {
			r.Changed, r.Difference = true, d
		} else {
			r.Outcome = repo.OutcomeNotModified
		}
		log = append(log, r)
	}
	return log
}

func TestChangeRateIsChoGarciaMolinasBiasReducedEstimator(t *testing.T) {
	for _, c := range []struct {
		n, x int
		span time.Duration
		want float64
	}{
		{4, 2, 4 * week, -math.Log(2.5 / 4.5)},
		{4, 0, 4 * week, 0},
		{4, 4, 4 * week, -math.Log(0.5 / 4.5)},
		{4, 2, 8 * week, -math.Log(2.5/4.5) / 2}, // fetched every two periods
	} {
		got, ok := changeRate(c.n, c.x, c.span, week)
		if !ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("changeRate(n=%d, x=%d, span=%v) = %v, want %v", c.n, c.x, c.span, got, c.want)
		}
	}
	if _, ok := changeRate(0, 0, 0, week); ok {
		t.Error("a page never re-fetched has an estimate")
	}
}

func TestHistoryCountsChangesAboveTau(t *testing.T) {
	h := readHistory(weekly(0.05, 0, 0.6, 0.3), 0.25)
	if h.intervals != 4 || h.updates != 3 || h.changes != 2 || h.span != 4*week {
		t.Fatalf("history = %+v, want 4 intervals, 3 updates, 2 changes ≥ τ, 4 weeks", h)
	}
}

func TestFreshnessAllocationMeetsTheBudgetWithEqualMarginalGains(t *testing.T) {
	lambda := []float64{0.125, 0.5, 2.8, 0}
	weight := []float64{1, 1, 1, 1}
	f := allocateFreshness(lambda, weight, 1)
	sum := 0.0
	var mu []float64
	for i, fi := range f {
		sum += fi
		if fi > 0 {
			mu = append(mu, weight[i]*freshnessGain(lambda[i]/fi)/lambda[i])
		}
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Fatalf("refreshes sum to %v, want the budget 1 (f = %v)", sum, f)
	}
	for _, m := range mu[1:] {
		if math.Abs(m-mu[0]) > 1e-6 {
			t.Fatalf("marginal gains differ: %v (f = %v)", mu, f)
		}
	}
	if f[2] != 0 || f[3] != 0 {
		t.Fatalf("f = %v: the fastest page (λ=2.8) should be given up under a budget of 1, and λ=0 needs nothing", f)
	}
	// Symmetric pages share evenly.
	g := allocateFreshness([]float64{1, 1}, []float64{1, 1}, 2)
	if math.Abs(g[0]-1) > 1e-6 || math.Abs(g[1]-1) > 1e-6 {
		t.Fatalf("symmetric allocation = %v, want [1 1]", g)
	}
}

func TestHarmonicAllocationFollowsTheClosedForm(t *testing.T) {
	delta := []float64{0.2, 1, 3}
	mu := []float64{1, 2, 0.5}
	rho := allocateHarmonic(delta, mu, 2)
	sum := 0.0
	for _, r := range rho {
		sum += r
	}
	if math.Abs(sum-2) > 1e-6 {
		t.Fatalf("rates sum to %v, want 2 (ρ = %v)", sum, rho)
	}
	// Every ρ must come from the same multiplier λ: invert ρ's formula,
	// λ = μΔ / (ρ(ρ + Δ)).
	lambda := mu[0] * delta[0] / (rho[0] * (rho[0] + delta[0]))
	for i := range rho {
		want := (math.Sqrt(delta[i]*delta[i]+4*mu[i]*delta[i]/lambda) - delta[i]) / 2
		if math.Abs(rho[i]-want) > 1e-6 {
			t.Errorf("ρ[%d] = %v, want %v from the shared multiplier", i, rho[i], want)
		}
	}
}

func TestSBRPrefersPagesItCanKeepFresh(t *testing.T) {
	// Ten slowly changing pages, one that changes at every re-fetch, one
	// that never changes and one with typo fixes below τ; one re-fetch a
	// period is tight for twelve pages, so the freshness-optimal allocation
	// gives up on the fast one.
	pages := &fakePages{logs: map[string][]repo.FetchRecord{
		"http://a.test/fast": weekly(1, 1, 1, 1, 1, 1, 1, 1),
		"http://a.test/dead": weekly(0, 0, 0, 0, 0, 0, 0, 0),
		"http://a.test/typo": weekly(0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.01, 0.01),
	}}
	for i := range 10 {
		pages.logs[fmt.Sprintf("http://a.test/slow%d", i)] = weekly(1, 0, 0, 0, 0, 0, 0, 0)
	}
	for u := range pages.logs {
		pages.pages = append(pages.pages, repo.Page{URL: u, LastFetch: epoch.Add(8 * week), Fetches: 9})
	}
	slices.SortFunc(pages.pages, func(a, b repo.Page) int { return cmpString(a.URL, b.URL) })
	plan := Plan{Now: epoch.Add(9 * week), N: 1, Period: week}
	got, err := (&SBR{Tau: 0.1}).Select(context.Background(), plan, pages)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"http://a.test/slow0"}) {
		t.Fatalf("SBR picked %v, want a slowly changing page (the fast one is given up, typo fixes are below τ)", got)
	}
	// With a budget that is generous for the page count, the fast page is
	// worth refreshing after all.
	plan.N = 11
	got, _ = (&SBR{Tau: 0.1}).Select(context.Background(), plan, pages)
	if !slices.Contains(got, "http://a.test/fast") {
		t.Fatalf("with 11 re-fetches for 13 pages SBR picked %v without the fast page", got)
	}
}

func TestEBRWeighsByTheShareOfSignificantUpdates(t *testing.T) {
	// Both change every week; only a's changes make it irrelevant (≥ τ).
	pages := &fakePages{logs: map[string][]repo.FetchRecord{
		"http://a.test/a": weekly(0.9, 0.9, 0.9, 0.9),
		"http://a.test/b": weekly(0.01, 0.01, 0.01, 0.01),
	}}
	pages.pages = []repo.Page{{URL: "http://a.test/a", LastFetch: epoch.Add(4 * week)}, {URL: "http://a.test/b", LastFetch: epoch.Add(4 * week)}}
	plan := Plan{Now: epoch.Add(5 * week), N: 1, Period: week}
	got, err := (&EBR{Tau: 0.5}).Select(context.Background(), plan, pages)
	if err != nil || !slices.Equal(got, []string{"http://a.test/a"}) {
		t.Fatalf("EBR picked %v, %v; want the page whose updates embarrass", got, err)
	}
	imp := func(u string) float64 {
		if u == "http://a.test/b" {
			return 1000
		}
		return 1
	}
	got, _ = (&EBR{Tau: 0.5, Importance: imp}).Select(context.Background(), plan, pages)
	if !slices.Equal(got, []string{"http://a.test/a"}) {
		t.Fatalf("with importance: EBR picked %v; b has d(p) = 0 so no importance makes it embarrassing", got)
	}
}

func TestDeltaQEstimateAndPriority(t *testing.T) {
	log := weekly(1, 0, 1) // re-downloads at weeks 1, 2, 3
	ms := []repo.DeltaQ{
		{At: epoch.Add(week), Value: 6},
		{At: epoch.Add(3 * week), Value: 3},
	}
	e, ok := EstimateOf(log, ms, 8, week)
	// δQ_A = (6/1 + 0/1 + 3/1) / 3
	if !ok || math.Abs(e.Rate-3) > 1e-12 || e.Samples != 3 {
		t.Fatalf("estimate = %+v, want rate 3 over 3 re-downloads", e)
	}
	if p := e.Priority(Plan{Now: epoch.Add(5 * week), Period: week}); math.Abs(p-6) > 1e-12 {
		t.Fatalf("priority = %v, want δQ_A·(t − LR) = 3·2", p)
	}
	e, _ = EstimateOf(log, ms, 2, week) // window: the last two re-downloads
	if math.Abs(e.Rate-1.5) > 1e-12 {
		t.Fatalf("windowed estimate = %v, want (0 + 3)/2", e.Rate)
	}
	if _, ok := EstimateOf(weekly(), nil, 8, week); ok {
		t.Fatal("a page never re-downloaded has a measured estimate")
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestInvertGainInvertsTheFreshnessGain(t *testing.T) {
	for _, r := range []float64{1e-4, 0.01, 0.3, 1, 2.5, 10, 40} {
		y := freshnessGain(r)
		if got := invertGain(y); math.Abs(got-r) > 1e-9*max(1, r) {
			t.Errorf("invertGain(g(%g)) = %.15g", r, got)
		}
	}
}
