package frontier

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// fakeDiscoverer picks fixed pages and wants one full re-crawl of full.
type fakeDiscoverer struct {
	picks map[string][]string
	full  string
	done  []string
}

func (d *fakeDiscoverer) Select(site string, _ time.Time) []string { return d.picks[site] }
func (d *fakeDiscoverer) FullRecrawlDue(site string, _ time.Time) bool {
	return site == d.full && !slices.Contains(d.done, site)
}
func (d *fakeDiscoverer) FullRecrawlDone(site string, _ time.Time) { d.done = append(d.done, site) }

func TestDiscoveryShareAndFullRecrawls(t *testing.T) {
	db := memDB(t)
	b := db.NewBatch(context.Background())
	for _, h := range []string{"a.test", "b.test"} {
		for i := range 5 {
			b.PutPage(&repo.Page{URL: fmt.Sprintf("http://%s/%d", h, i), State: repo.StateLive, Fetches: 1, LastFetch: epoch})
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	d := &fakeDiscoverer{picks: map[string][]string{"a.test": {"http://a.test/3", "http://a.test/1"}}, full: "b.test"}
	clk := clock.NewManual(epoch.Add(time.Hour))
	cfg := Config{Policy: "uniform", Budget: BudgetConfig{Fetches: 10, Period: time.Hour},
		Split: SplitConfig{Recrawl: 0.2, Discovery: 0.6}, HostBuffer: 8, Window: 8, Exploration: "thompson", Changes: "accumulate"}
	f, err := New(context.Background(), db, cfg, fixedGate{capacity: 10}, Uniform{}, Options{Clock: clk, Discoverer: d})
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.Plan(context.Background())
	if err != nil || n != 8 {
		t.Fatalf("Plan = %d, %v; want 6 discovery + 2 recrawl", n, err)
	}
	byClass := map[repo.QueueClass][]string{}
	var jobs []Job
	for {
		job, ok := f.TryNext()
		if !ok {
			break
		}
		jobs = append(jobs, job)
		byClass[job.Class] = append(byClass[job.Class], job.URL)
	}
	// Discovery: the five pages of b.test's full re-crawl first, then one
	// of a.test's OD-WIN picks, within the 6-fetch share.
	disc := byClass[repo.ClassDiscovery]
	slices.Sort(disc)
	if len(disc) != 6 || !slices.Contains(disc, "http://b.test/0") || !slices.Contains(disc, "http://b.test/4") {
		t.Fatalf("discovery re-fetches = %v", disc)
	}
	if len(byClass[repo.ClassRecrawl]) != 2 {
		t.Fatalf("recrawl re-fetches = %v, want 2", byClass[repo.ClassRecrawl])
	}
	for _, u := range byClass[repo.ClassRecrawl] {
		if slices.Contains(disc, u) {
			t.Fatalf("%s planned twice", u)
		}
	}
	for _, job := range jobs {
		if len(d.done) > 0 {
			t.Fatal("full re-crawl reported done before its pages were fetched")
		}
		b := db.NewBatch(context.Background())
		if err := f.Complete(b, job, true); err != nil {
			t.Fatal(err)
		}
		b.Commit()
		f.Done(job, DoneInfo{})
	}
	if !slices.Equal(d.done, []string{"b.test"}) {
		t.Fatalf("full re-crawls done = %v, want [b.test]", d.done)
	}
	if st := f.Stats(); st.PeriodByClass[repo.ClassDiscovery] != 6 || st.PeriodByClass[repo.ClassRecrawl] != 2 {
		t.Fatalf("budget spent by class = %v", st.PeriodByClass)
	}
}
