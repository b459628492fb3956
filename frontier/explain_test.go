package frontier

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/repo"
)

func TestExplainPageNamesThePolicyTheRepositoryWasCrawledUnder(t *testing.T) {
	db, err := repo.Open("", testRepoConfig, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const u = "http://a.test/p"
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	b.PutPage(&repo.Page{URL: u, State: repo.StateLive})
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

	e, err := ExplainPage(t.Context(), db, cfg, u, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Policy != "uniform" || e.PolicyFromRepository {
		t.Fatalf("before any crawl: policy %q (from repository %v), want the configured uniform", e.Policy, e.PolicyFromRepository)
	}
	if !e.Measured || e.Samples != 2 || math.Abs(e.Rate-0.25) > 1e-12 || math.Abs(e.Priority-0.25*2) > 1e-12 {
		t.Fatalf("estimate %+v, want δQ_A 0.25 from 2 re-downloads and priority 0.5 two hours after the last fetch", e)
	}
	if !strings.Contains(e.Why, "2 re-downloads") {
		t.Fatalf("why = %q", e.Why)
	}

	// A frontier scheduling under deltaq records it; a later command
	// configured with another policy still reports deltaq.
	if _, err := New(t.Context(), db, Config{Policy: "deltaq", Budget: cfg.Budget, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}, fixedGate{capacity: 1}, &DeltaQ{Exploration: "thompson", Window: 8}, Options{}); err != nil {
		t.Fatal(err)
	}
	if e, err = ExplainPage(t.Context(), db, cfg, u, now); err != nil {
		t.Fatal(err)
	}
	if e.Policy != "deltaq" || !e.PolicyFromRepository {
		t.Fatalf("after a deltaq crawl: policy %q (from repository %v), want deltaq", e.Policy, e.PolicyFromRepository)
	}
}
