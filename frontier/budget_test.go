package frontier

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// TestQuotaBoundsEachPeriod gives a frontier a different quota each
// period through Options.Quota, as a node of a cluster has: it must hand
// out no more than each period's total, plan exactly the period's
// recrawl share, ask once per period, and report its demand.
func TestQuotaBoundsEachPeriod(t *testing.T) {
	db := memDB(t)
	// Six pages fetched before: the recrawl plan's candidates.
	b := db.NewBatch(context.Background())
	for i := range 6 {
		b.PutPage(&repo.Page{URL: fmt.Sprintf("http://old.test/%d", i), State: repo.StateLive, Fetches: 1, LastFetch: epoch})
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	start := epoch.Add(24 * time.Hour)
	clk := clock.NewManual(start)
	quotas := map[time.Time]Quota{
		start:                {repo.ClassNew: 3},
		start.Add(time.Hour): {repo.ClassNew: 4, repo.ClassRecrawl: 2},
	}
	asked := map[time.Time]int{}
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 100, Period: time.Hour},
		Split: SplitConfig{Recrawl: 0.5}, HostBuffer: 4, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	f, err := New(context.Background(), db, cfg, fixedGate{capacity: 100}, Uniform{}, Options{Clock: clk,
		Quota: func(p time.Time) Quota { asked[p]++; return quotas[p] }})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for i := range 30 {
		urls = append(urls, fmt.Sprintf("http://h%d.test/%d", i%5, i))
	}
	add(t, db, f, urls, repo.ReasonLink, start)
	if d := f.Demand(); d != (Demand{repo.ClassNew: 30}) {
		t.Errorf("Demand() = %v, want 30 new URLs and no re-fetch before a plan", d)
	}

	drain := func() map[repo.QueueClass]int {
		got := map[repo.QueueClass]int{}
		for {
			job, ok := f.TryNext()
			if !ok {
				return got
			}
			got[job.Class]++
			finish(t, db, f, job)
		}
	}
	if got := drain(); got[repo.ClassNew] != 3 || len(got) != 1 {
		t.Errorf("first period handed out %v, want its quota of 3 new URLs", got)
	}
	clk.Advance(time.Hour)
	n, err := f.Plan(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Plan() = %d, %v; want the period's recrawl share, 2", n, err)
	}
	if d := f.Demand(); d[repo.ClassNew] != 27 || d[repo.ClassRecrawl] != 9 {
		t.Errorf("Demand() after 3 first fetches and a plan = %v, want 27 new and 9 fetched", d)
	}
	if got := drain(); got[repo.ClassNew] != 4 || got[repo.ClassRecrawl] != 2 {
		t.Errorf("second period handed out %v, want 4 new and 2 recrawl", got)
	}
	if st := f.Stats(); st.BudgetLimit != 6 || st.BudgetUsed != 6 {
		t.Errorf("Stats() limit %d used %d, want 6 and 6", st.BudgetLimit, st.BudgetUsed)
	}
	// A third period whose quota is zero hands out nothing.
	clk.Advance(time.Hour)
	if got := drain(); len(got) != 0 {
		t.Errorf("a period with a zero quota handed out %v", got)
	}
	for p, k := range asked {
		if k != 1 {
			t.Errorf("quota of period %v asked %d times, want once", p, k)
		}
	}
	if len(asked) != 3 {
		t.Errorf("quota asked for %d periods, want 3", len(asked))
	}
}

// TestQuotaOfSplitsTheConfiguredBudget: without a quota function a
// frontier spends QuotaOf(cfg), which must add up to the budget.
func TestQuotaOfSplitsTheConfiguredBudget(t *testing.T) {
	q := QuotaOf(Config{Budget: BudgetConfig{Fetches: 101}, Split: SplitConfig{Recrawl: 0.3, Discovery: 0.2, Monitor: 0.1}})
	if q != (Quota{repo.ClassNew: 41, repo.ClassRecrawl: 30, repo.ClassDiscovery: 20, repo.ClassMonitor: 10}) || q.Total() != 101 {
		t.Errorf("QuotaOf = %v (total %d), want 41/30/20/10 = 101", q, q.Total())
	}
}
