package feedseval

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/feedtrace"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/datasets"
	tracker "github.com/deltaq/deltaq/internal/progress"
)

func testFeedsConfig() feeds.Config {
	return feeds.Config{Step: 5 * time.Minute, Starts: 8, MinInterval: 15 * time.Minute, MaxInterval: 7 * 24 * time.Hour,
		Clusters: 6, ClusterMinPostings: 30, ClusterIterations: 50, PriorWeight: 20, Floor: 0.05, RateCount: 0.5,
		SeenKept: 500, HistoryKept: 1000, MaxItems: 200, MaxBytes: 8 << 20, ClockSkew: 5 * time.Minute, LearnWindow: 8 * 7 * 24 * time.Hour, PollsPerDay: 1}
}

// TestOnePollADayOnTheRealTrace runs every planner at one poll per feed
// per day on the real trace, with two seeds: all spend the same budget,
// and allocation and placement each beat uniform, together more than
// either, in the mean over the seeds.
func TestOnePollADayOnTheRealTrace(t *testing.T) {
	tr, err := feedtrace.Load(t.Context(), datasets.Path(t, "feeds"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Feeds: "unused", CrawlItems: 20, Seed: 1, Seeds: 2, LearnWeeks: 8, PerDay: []float64{1}, WICHorizons: []time.Duration{365 * 24 * time.Hour}}
	var lines strings.Builder
	sum, err := Run(t.Context(), cfg, testFeedsConfig(), tr, tracker.New(&lines, clock.NewManual(time.Time{}), time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	runs, weeks := len(sum.Results), len(sum.weekStarts())
	for _, want := range []string{
		fmt.Sprintf("feeds: %d runs of %d weeks\n", runs, weeks),
		"feeds: learned once   combined ",
		fmt.Sprintf("feeds: %d/%d runs done, week %d/%d (100.0%%)", runs, runs, runs*weeks, runs*weeks),
	} {
		if !strings.Contains(lines.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, lines.String())
		}
	}
	if !sum.EvalFrom.Equal(time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)) || sum.EvalPostings+sum.LearnPostings != tr.Postings() {
		t.Fatalf("evaluation from %s with %d+%d postings", sum.EvalFrom, sum.LearnPostings, sum.EvalPostings)
	}
	seeds := map[string][]Result{}
	for _, r := range sum.Results {
		if math.Abs(r.PollsPerFeedDay-1) > 0.01 {
			t.Errorf("%s spent %.3f polls per feed per day, the budget is 1", r.Policy, r.PollsPerFeedDay)
		}
		if r.Postings != sum.EvalPostings {
			t.Errorf("%s measured %d postings of %d", r.Policy, r.Postings, sum.EvalPostings)
		}
		seeds[r.Policy] = append(seeds[r.Policy], r)
	}
	mean := map[string]time.Duration{}
	for p, rs := range seeds {
		if len(rs) != 2 || rs[0].Seed != 1 || rs[1].Seed != 2 {
			t.Fatalf("%s: %d runs, want seeds 1 and 2 in order", p, len(rs))
		}
		m, _ := sum.find("once", p, 1)
		if want := (rs[0].Mean + rs[1].Mean) / 2; (m.Mean - want).Abs() > time.Millisecond {
			t.Errorf("%s: mean over the seeds %s, the runs' %s and %s", p, m.Mean, rs[0].Mean, rs[1].Mean)
		}
		mean[p] = m.Mean
	}
	if seeds[Uniform][0].Mean == seeds[Uniform][1].Mean {
		t.Error("uniform's two seeds gave the same mean delay: its phases did not change with the seed")
	}
	if !(mean[Combined] < mean[AllocOnly] && mean[AllocOnly] < mean[Uniform] && mean[Combined] < mean[PlacementOnly] && mean[PlacementOnly] < mean[Uniform]) {
		t.Errorf("mean delays: combined %s, allocation-only %s, placement-only %s, uniform %s", mean[Combined], mean[AllocOnly], mean[PlacementOnly], mean[Uniform])
	}
	if mean[CGMFreshness] < mean[CGMAge] {
		t.Errorf("cgm-freshness %s beat cgm-age %s: freshness ignores the fast feeds and should not", mean[CGMFreshness], mean[CGMAge])
	}
	out := t.TempDir()
	if err := sum.Write(out, cfg); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "results.csv", "mean-delay-once.svg", "max-delay-once.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "repeated with seeds 1–2") || !strings.Contains(string(md), "(mean of 2 seeds; each seed's ratio") {
		t.Errorf("the report does not say the figures are means over seeds 1–2 (%v)", err)
	}
	if n := strings.Count(string(md), "wic-linear-365d mean "); n != 1 {
		t.Errorf("the findings name WIC's mean delay %d times, want once, over the seeds", n)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	err := Config{LearnWeeks: 0, PerDay: []float64{-1}, WICHorizons: []time.Duration{time.Second}, Workers: -1}.Validate()
	for _, want := range []string{"eval.feeds.feeds is empty", "eval.feeds.learn_weeks = 0", "eval.feeds.per_day = -1", "eval.feeds.wic_horizons = 1s",
		"eval.feeds.seeds = 0: must be in [1, 100]", "eval.feeds.workers = -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}
