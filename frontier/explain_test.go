package frontier

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/repo"
)

func TestExplainPageNamesThePolicyTheRepositoryWasCrawledUnder(t *testing.T) {
	db := memDB(t)
	const u = "http://a.test/p"
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: u, State: repo.StateLive, Fetches: 3, LastFetch: t0.Add(3 * time.Hour)})
	// Fetched at t0, t0+2h and t0+3h; ΔQ_A measured 0.4 and 0.3 on the
	// re-downloads: δQ_A = (0.4/2 + 0.3/1)/2 = 0.25 per hour.
	for i, h := range []int{0, 2, 3} {
		at := t0.Add(time.Duration(h) * time.Hour)
		b.LogFetch(u, &repo.FetchRecord{At: at, Outcome: repo.OutcomeOK, HTTPStatus: 200, Difference: -1})
		if i > 0 {
			b.PutDeltaQ(u, &repo.DeltaQ{At: at, Value: []float64{0, 0.4, 0.3}[i], Terms: 2})
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour}, HostBuffer: 4, Window: 8}
	now := t0.Add(5 * time.Hour)

	e, err := ExplainPage(t.Context(), db, cfg, u, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Policy != "uniform" || e.PolicyFromRepository {
		t.Fatalf("before any crawl: policy %q (from repository %v), want the configured uniform", e.Policy, e.PolicyFromRepository)
	}
	if !e.Measured || e.Samples != 2 || math.Abs(e.Rate-0.25) > 1e-12 || math.Abs(e.Priority-0.25*2) > 1e-12 {
		t.Fatalf("estimate %+v, want δQ_A 0.25 from 2 re-downloads and priority 0.5 two hours after the last fetch", e)
	}
	if !strings.Contains(e.Why, "2 re-downloads") || !strings.HasPrefix(e.Why, "uniform re-fetches, each period, the pages fetched longest ago") {
		t.Fatalf("why = %q, want uniform's rule, then the estimate from 2 re-downloads", e.Why)
	}

	// A frontier scheduling under deltaq records it; a later command
	// configured with another policy still reports deltaq.
	if _, err := New(t.Context(), db, Config{Policy: "deltaq", Budget: cfg.Budget, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}, fixedGate{capacity: 1}, &DeltaQ{Exploration: "thompson", Window: 8}, Options{}); err != nil {
		t.Fatal(err)
	}
	if e, err = ExplainPage(t.Context(), db, cfg, u, now, nil); err != nil {
		t.Fatal(err)
	}
	if e.Policy != "deltaq" || !e.PolicyFromRepository {
		t.Fatalf("after a deltaq crawl: policy %q (from repository %v), want deltaq", e.Policy, e.PolicyFromRepository)
	}
	if e.Posterior == nil {
		t.Fatal("a page crawled under deltaq is explained without the posteriors deltaq ranks it by")
	}
}

// Under deltaq the explanation gives the posteriors the plan ranks by:
// the page Select picks under mean exploration is the one whose explained
// score is highest, and the score is changes × impact. "low" was seen
// unchanged at both re-fetches, "high" changed at both.
func TestExplainPageGivesTheScoreThePlanRanksBy(t *testing.T) {
	db := memDB(t)
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	pages := []string{"http://a.test/low", "http://a.test/high", "http://a.test/queued"}
	b := db.NewBatch(t.Context())
	for i, u := range pages {
		state := repo.StateLive
		if i == 2 {
			state = repo.StateQueued
		}
		b.PutPage(&repo.Page{URL: u, State: state, Fetches: 3, LastFetch: t0.Add(3 * time.Hour)})
		for j, h := range []int{0, 2, 3} {
			at := t0.Add(time.Duration(h) * time.Hour)
			changed := j > 0 && i > 0
			b.LogFetch(u, &repo.FetchRecord{At: at, Outcome: repo.OutcomeOK, HTTPStatus: 200, Changed: changed, Difference: -1})
			if changed {
				b.PutDeltaQ(u, &repo.DeltaQ{At: at, Value: 0.3, Terms: 2})
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Policy: "deltaq", Budget: BudgetConfig{Fetches: 1, Period: time.Hour}, HostBuffer: 4, Window: 8,
		Exploration: "mean", Changes: "accumulate"}
	stake := func(u string) float64 {
		if u == pages[1] {
			return 5
		}
		return 1
	}
	now := t0.Add(5 * time.Hour)
	explained := map[string]Explanation{}
	for _, u := range pages {
		e, err := ExplainPage(t.Context(), db, cfg, u, now, stake)
		if err != nil {
			t.Fatal(err)
		}
		explained[u] = e
	}
	if e := explained[pages[2]]; e.Posterior != nil || !strings.Contains(e.Why, "not a candidate") {
		t.Fatalf("a queued page: posterior %+v, why %q", e.Posterior, e.Why)
	}
	for _, u := range pages[:2] {
		p := explained[u].Posterior
		if p == nil {
			t.Fatalf("%s: no posterior", u)
		}
		if p.Stake != stake(u) || math.Abs(p.Open-2) > 1e-12 || p.Rate <= 0 ||
			math.Abs(p.Changes-p.Rate*p.Open) > 1e-12 || math.Abs(p.Score-p.Changes*p.Impact) > 1e-12 {
			t.Fatalf("%s: posterior %+v: want stake %v, 2 open periods, changes = rate × open, score = changes × impact", u, p, stake(u))
		}
	}
	low, high := explained[pages[0]].Posterior, explained[pages[1]].Posterior
	if high.Rate <= low.Rate || high.Score <= low.Score {
		t.Fatalf("the page seen changing: rate %v, score %v; the page seen unchanged: rate %v, score %v", high.Rate, high.Score, low.Rate, low.Score)
	}
	pol, err := NewPolicy("deltaq", cfg, stake)
	if err != nil {
		t.Fatal(err)
	}
	picked, err := pol.Select(t.Context(), Plan{Now: now, Period: time.Hour, N: 1}, candidates{db: db})
	if err != nil {
		t.Fatal(err)
	}
	if len(picked) != 1 || picked[0] != pages[1] {
		t.Fatalf("Select picked %v; the explanation ranks %s first", picked, pages[1])
	}
}

// Every policy but deltaq has its rule told by page explain.
func TestEveryBaselineHasItsRuleExplained(t *testing.T) {
	for _, name := range Policies() {
		if _, ok := baselineRules[name]; ok == (name == "deltaq") {
			t.Errorf("policy %s: rule given %v", name, ok)
		}
	}
}
