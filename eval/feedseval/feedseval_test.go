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
	// Each run's feed-by-feed delays add up to its mean, and the feeds'
	// shares of combined's difference from cgm-age to the difference of
	// the means over the seeds.
	for _, r := range sum.Results {
		var total float64
		for _, d := range r.FeedDelay {
			total += d
		}
		if got := seconds(total / float64(r.Postings)); (got - r.Mean).Abs() > time.Millisecond {
			t.Errorf("%s seed %d: the feeds' delays give a mean of %s, the run's is %s", r.Policy, r.Seed, got, r.Mean)
		}
	}
	gaps := sum.feedGaps("once", Combined, CGMAge, 1)
	if len(gaps) == 0 {
		t.Fatal("no feed's share of combined's difference from cgm-age")
	}
	var shares time.Duration
	for i, g := range gaps {
		shares += g.Share
		if i > 0 && g.Share > gaps[i-1].Share {
			t.Errorf("feed %s's share %s comes after a smaller one, %s", g.Name, g.Share, gaps[i-1].Share)
		}
	}
	posting := 0 // feeds with postings in the evaluation weeks
	for _, n := range sum.FeedPostings {
		if n > 0 {
			posting++
		}
	}
	if len(gaps) != posting || (shares-(mean[Combined]-mean[CGMAge])).Abs() > time.Millisecond {
		t.Errorf("%d feeds' shares (of %d posting) add up to %s; combined's mean minus cgm-age's is %s", len(gaps), posting, shares, mean[Combined]-mean[CGMAge])
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
	if top := gaps[0]; !strings.Contains(string(md), "Where cgm-age is furthest ahead of combined") || !strings.Contains(string(md), "| "+top.Name+" |") {
		t.Errorf("the report lacks the table of the feeds where cgm-age is furthest ahead, led by %s", top.Name)
	}
	if n := strings.Count(string(md), "wic-linear-365d mean "); n != 1 {
		t.Errorf("the findings name WIC's mean delay %d times, want once, over the seeds", n)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	err := Config{LearnWeeks: 0, PerDay: []float64{-1}, WICHorizons: []time.Duration{time.Second}, Workers: -1}.Validate()
	for _, want := range []string{`eval.feeds.feeds = "": give the posting trace's folder`, "eval.feeds.learn_weeks = 0", "eval.feeds.per_day = -1", "eval.feeds.wic_horizons = 1s",
		"eval.feeds.seeds = 0: must be in [1, 100]", "eval.feeds.workers = -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}

// TestHindsightPlansOnTheEvaluationWeeks shifts every feed's posting hour
// by twelve hours when the evaluation starts: learned once, combined
// polls at the old hours and waits half a day; with hindsight its models
// are fitted to the new ones. Uniform, which uses no model, is unmoved,
// and hindsight, a bound, sets no target.
func TestHindsightPlansOnTheEvaluationWeeks(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	evalFrom := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC) // the Monday after 8 weeks
	tr := &feedtrace.Trace{}
	for i := range 12 {
		f := feedtrace.Feed{Name: fmt.Sprintf("feed-%02d", i)}
		for day := start; day.Year() == 2025; day = day.AddDate(0, 0, 1) {
			hour := 2 * i
			if !day.Before(evalFrom) {
				hour = (hour + 12) % 24
			}
			for k := range 3 {
				f.Postings = append(f.Postings, day.Add(time.Duration(hour)*time.Hour+time.Duration(7*k)*time.Minute))
			}
		}
		tr.Feeds = append(tr.Feeds, f)
	}
	cfg := Config{Feeds: "unused", CrawlItems: 20, Seed: 1, Seeds: 1, LearnWeeks: 8, PerDay: []float64{1}, Hindsight: true}
	sum, err := Run(t.Context(), cfg, testFeedsConfig(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	once, ok1 := sum.find(Once, Combined, 1)
	hind, ok2 := sum.find(Hindsight, Combined, 1)
	if !ok1 || !ok2 {
		t.Fatalf("combined ran learned once %v, with hindsight %v", ok1, ok2)
	}
	if !(hind.Mean < time.Hour && once.Mean > 6*time.Hour) {
		t.Errorf("combined's mean delay: learned once %s, with hindsight %s; want over 6 h and under 1 h", once.Mean, hind.Mean)
	}
	u1, _ := sum.find(Once, Uniform, 1)
	u2, _ := sum.find(Hindsight, Uniform, 1)
	if u1.Mean != u2.Mean || u1.Mean == 0 {
		t.Errorf("uniform's mean delay: learned once %s, with hindsight %s; it plans on no model and should not move", u1.Mean, u2.Mean)
	}
	for _, tg := range sum.Targets() {
		if strings.Contains(tg.Name, "hindsight") {
			t.Errorf("hindsight sets a target: %q", tg.Name)
		}
	}
	if f := sum.findings(); !strings.Contains(f, "- With hindsight (") || !strings.Contains(f, "learned once. The difference") {
		t.Errorf("the findings do not compare hindsight with learning once:\n%s", f)
	}
}

// TestATraceWithNothingToEvaluateIsRefused: postings only in the
// learning weeks leave no delay to measure; the run says so rather than
// reporting every policy at 0.
func TestATraceWithNothingToEvaluateIsRefused(t *testing.T) {
	start := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	f := feedtrace.Feed{Name: "early"}
	for d := range 20 {
		f.Postings = append(f.Postings, start.AddDate(0, 0, d))
	}
	cfg := Config{Feeds: "unused", CrawlItems: 20, Seed: 1, Seeds: 1, LearnWeeks: 8, PerDay: []float64{1}}
	_, err := Run(t.Context(), cfg, testFeedsConfig(), &feedtrace.Trace{Feeds: []feedtrace.Feed{f}}, nil)
	if want := "no posting of the trace falls in the evaluation weeks, 2025-03-03 to 2026-01-01"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a trace of January alone: %v, want %q", err, want)
	}
}

// TestTheAgeRatioTargetSaysHowFarTheSeedsAreFromTheBar: over three seeds
// whose ratios are 0.65, 0.66 and 0.67, the target names their range, their
// mean 0.66, its standard error 0.01/√3 and that the mean is 1.7 standard
// errors under the bar.
func TestTheAgeRatioTargetSaysHowFarTheSeedsAreFromTheBar(t *testing.T) {
	s := &Summary{}
	for seed, ratio := range []float64{0.65, 0.66, 0.67} {
		age := 10 * time.Hour
		for _, p := range []struct {
			name string
			mean time.Duration
		}{{Combined, time.Duration(ratio * float64(age))}, {CGMAge, age}} {
			s.Results = append(s.Results, Result{Learning: Weekly, Policy: p.name, PerDay: 1, Seed: uint64(seed + 1), Mean: p.mean})
		}
	}
	var got *Target
	for _, tg := range s.Targets() {
		if strings.Contains(tg.Name, "× cgm-age") {
			got = &tg
		}
	}
	want := "(mean of 3 seeds; each seed's ratio 0.650–0.670, their mean 0.6600 ± 0.0058 s.e., -1.7 s.e. from 0.67)"
	if got == nil || !got.Met || !strings.Contains(got.Measured, want) {
		t.Errorf("the ratio target: %+v, want it met and measured as %q", got, want)
	}
}

// TestAPostingOutsideTheYearIsRefused: one posting on the last days of
// the year before moves the whole evaluation to that year, where the
// rest of the trace would be dropped unmeasured; the run is refused,
// naming the postings that fall outside and the year.
func TestAPostingOutsideTheYearIsRefused(t *testing.T) {
	start := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	f := feedtrace.Feed{Name: "stray", Postings: []time.Time{time.Date(2024, 12, 30, 0, 0, 0, 0, time.UTC)}}
	for d := range 300 {
		f.Postings = append(f.Postings, start.AddDate(0, 0, d))
	}
	cfg := Config{Feeds: "unused", CrawlItems: 20, Seed: 1, Seeds: 1, LearnWeeks: 8, PerDay: []float64{1}}
	_, err := Run(t.Context(), cfg, testFeedsConfig(), &feedtrace.Trace{Feeds: []feedtrace.Feed{f}}, nil)
	if want := "300 postings (the first: feed stray at 2025-01-06T09:00:00Z) fall after 2025-01-01"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a trace with a stray posting in 2024: %v, want %q", err, want)
	}
}

// TestConfigRefusesARepeatedBudget: --per-day 1,1 would run every policy
// twice at one budget and report the copies as "the mean of 2 seeds".
func TestConfigRefusesARepeatedBudget(t *testing.T) {
	cfg := Config{Feeds: "x", CrawlItems: 20, Seed: 1, Seeds: 1, LearnWeeks: 8, PerDay: []float64{1, 2, 1}}
	want := "eval.feeds.per_day[2] = 1: given twice (also per_day[0])"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Validate() = %v, want %q", err, want)
	}
}
