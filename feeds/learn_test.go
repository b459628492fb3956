package feeds

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// A feed posting hourly for ten days: polled up to the end, its recent
// rate is the hourly rate; after two silent days it drops towards zero; but
// when its last poll was at the end of the ten days, the two days since are
// unknown, not silent, and the rate stays hourly.
func TestRecentRatesFollowDriftAndCountOnlyWhatWasSeen(t *testing.T) {
	since := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	var ps []time.Time
	for h := range 240 {
		ps = append(ps, since.Add(time.Duration(h)*time.Hour+30*time.Minute))
	}
	busyEnd := since.Add(240 * time.Hour)
	now := busyEnd.Add(48 * time.Hour)
	hourly := 1.0 / 3600
	rate := func(seen, at time.Time, hl time.Duration) float64 {
		m := []Model{{Rate: 42}}
		var hls []time.Duration
		if hl > 0 {
			hls = append(hls, hl)
		}
		RecentRates(m, [][]time.Time{ps}, since, []time.Time{seen}, at, hls, nil, 1, 0)
		return m[0].Rate
	}
	if r := rate(busyEnd, busyEnd, 24*time.Hour); math.Abs(r/hourly-1) > 0.05 {
		t.Errorf("polled to the end of the busy days: %.3f postings/h, want 1", r*3600)
	}
	if r := rate(now, now, 24*time.Hour); r > hourly/3 {
		t.Errorf("two silent days seen, half-life 1 day: %.3f postings/h, want under 1/3", r*3600)
	}
	if r := rate(busyEnd, now, 24*time.Hour); math.Abs(r/hourly-1) > 0.05 {
		t.Errorf("last poll at the end of the busy days: %.3f postings/h, want 1 (the days since are unknown)", r*3600)
	}
	if r := rate(now, now, 0); r != 42 {
		t.Errorf("no half-life changed the rate to %g", r)
	}
}

// A feed that changed pace (ten slow weeks, then weekly counts of 40, 5,
// 40, 5 …) is best predicted by a short memory; one posting steadily by
// the longest.
func TestChooseRatesHalfLifeByPredictiveLikelihood(t *testing.T) {
	since := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	week := func(k, n int) []time.Time {
		var out []time.Time
		for j := range n {
			out = append(out, since.Add(time.Duration(k)*Period+time.Duration(j+1)*Period/time.Duration(n+1)))
		}
		return out
	}
	var steady, shifting []time.Time
	for k := range 20 {
		steady = append(steady, week(k, 10)...)
		n := 1
		if k >= 10 {
			n = 40
		}
		shifting = append(shifting, week(k, n)...)
	}
	seen := since.Add(20 * Period)
	cands := []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 56 * 24 * time.Hour}
	if hl := ChooseRates([][]time.Time{steady}, since, []time.Time{seen}, cands, nil, 8, 0.5).HalfLife; hl != cands[2] {
		t.Errorf("steady feed: half-life %s, want the longest %s", hl, cands[2])
	}
	if hl := ChooseRates([][]time.Time{shifting}, since, []time.Time{seen}, cands, nil, 8, 0.5).HalfLife; hl == cands[2] {
		t.Errorf("feed that sped up: half-life %s, want a shorter one", hl)
	}
}

// Rates are shrunk towards the pooled rate only as far as that predicts
// better: forty feeds posting at one common rate, a few a week at random,
// are best predicted with a prior (a feed's own count is mostly noise);
// feeds posting steadily at rates a hundredfold apart without one.
func TestChooseRatesShrinksOnlyWhereItPredictsBetter(t *testing.T) {
	since := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	weeks := 20
	seen := since.Add(time.Duration(weeks) * Period)
	halfLives := []time.Duration{4 * Period}
	priors := []time.Duration{Period, 4 * Period, 16 * Period}
	lasts := func(n int) []time.Time {
		out := make([]time.Time, n)
		for i := range out {
			out[i] = seen
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 9))
	alike := make([][]time.Time, 40)
	for i := range alike {
		for at := since; ; {
			at = at.Add(time.Duration(rng.ExpFloat64() * float64(Period) / 2)) // 2 a week
			if !at.Before(seen) {
				break
			}
			alike[i] = append(alike[i], at)
		}
	}
	rule := ChooseRates(alike, since, lasts(len(alike)), halfLives, priors, 8, 0.5)
	if rule.Prior == 0 {
		t.Errorf("feeds alike: chose no prior, want shrinkage towards the pooled rate")
	}
	// The shrunk rates lie between each feed's own and the pooled rate.
	own := RateRule{HalfLife: rule.HalfLife}.Rates(alike, since, lasts(len(alike)), seen, 0.5)
	shrunk := rule.Rates(alike, since, lasts(len(alike)), seen, 0.5)
	pooled := 0.0
	for _, r := range own {
		pooled += r / float64(len(own))
	}
	for i := range own {
		lo, hi := min(own[i], pooled), max(own[i], pooled)
		if shrunk[i] < lo*0.8 || shrunk[i] > hi*1.2 {
			t.Errorf("feed %d: shrunk rate %.3g/week outside its own %.3g and about the pooled %.3g", i, shrunk[i]*Period.Seconds(), own[i]*Period.Seconds(), pooled*Period.Seconds())
		}
	}
	var apart [][]time.Time
	for _, perWeek := range []int{1, 10, 100} {
		var ps []time.Time
		for k := range weeks * perWeek {
			ps = append(ps, since.Add(time.Duration(k)*Period/time.Duration(perWeek)+time.Minute))
		}
		apart = append(apart, ps)
	}
	if rule := ChooseRates(apart, since, lasts(len(apart)), halfLives, priors, 8, 0.5); rule.Prior != 0 {
		t.Errorf("steady feeds a hundredfold apart: chose a prior of %s, want none", rule.Prior)
	}
}

func TestRatePriorsAreValidated(t *testing.T) {
	err := Config{RatePriors: []time.Duration{0}}.Validate()
	for _, want := range []string{"feeds.rate_priors = 0s: must each be > 0", "feeds.rate_holdout_weeks = 0: must be ≥ 1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}

// profileFeeds are n feeds over ten weeks from since: each posts k times a
// day at 09:xx UTC on weekdays and at 21:xx at the weekend, with one
// posting at a random hour every other day as noise.
func profileFeeds(since time.Time, n, k int) [][]time.Time {
	out := make([][]time.Time, n)
	for i := range out {
		for d := range 70 {
			day := since.AddDate(0, 0, d)
			hour := 9
			if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
				hour = 21
			}
			for j := range k {
				out[i] = append(out[i], day.Add(time.Duration(hour)*time.Hour+time.Duration(7*j+i)*time.Minute))
			}
			if d%2 == 0 {
				out[i] = append(out[i], day.Add(time.Duration((5*d+3*i)%24)*time.Hour+30*time.Minute))
			}
		}
	}
	return out
}

// The daily × weekly product spreads a feed's 09:00 weekday and 21:00
// weekend habit over both hours on every day; BinProfiles puts it back.
func TestBinProfilesLearnWeekendHours(t *testing.T) {
	since := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC) // a Monday
	cfg := testLearnConfig()
	ps := profileFeeds(since, 3, 4)
	now := since.Add(10 * Period)
	models, _ := LearnAll(cfg, ps, since, now, rand.New(rand.NewPCG(1, 1)))
	product := models[0]
	BinProfiles(models, ps, now, 10*Period, 100, cfg.Floor)
	monday21, saturday21 := 21, 5*24+21
	if !(models[0].Shape[monday21] < product.Shape[monday21]/2) {
		t.Errorf("Monday 21:00: %.3f after, %.3f before; want under half", models[0].Shape[monday21], product.Shape[monday21])
	}
	if !(models[0].Shape[saturday21] > product.Shape[saturday21]) {
		t.Errorf("Saturday 21:00: %.3f after, %.3f before; want higher", models[0].Shape[saturday21], product.Shape[saturday21])
	}
	mean := 0.0
	for _, v := range models[0].Shape {
		mean += v / Bins
	}
	if math.Abs(mean-1) > 1e-9 {
		t.Errorf("shape mean %.12f, want 1", mean)
	}
}

// Feeds whose weekend hours differ get a bin-level profile, chosen on the
// past weeks alone: postings at or after now change nothing.
func TestChooseProfilingOnPastWeeksOnly(t *testing.T) {
	since := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	cfg := testLearnConfig()
	ps := profileFeeds(since, 3, 4)
	now := since.Add(10 * Period)
	seen := []time.Time{now, now, now}
	cands := []Profiling{{Window: 8 * Period, Prior: 20}, {Window: 8 * Period, Weight: 100, Prior: 20}}
	got := ChooseProfiling(cfg, ps, seen, now, cands, 2, rand.New(rand.NewPCG(1, 1)))
	if got.Weight != 100 {
		t.Errorf("chose %+v, want the bin-level profile", got)
	}
	future := make([][]time.Time, len(ps))
	for i, p := range ps {
		future[i] = append(append([]time.Time(nil), p...), now, now.Add(time.Hour), now.Add(50*time.Hour))
	}
	if again := ChooseProfiling(cfg, future, seen, now, cands, 2, rand.New(rand.NewPCG(1, 1))); again != got {
		t.Errorf("postings after now changed the choice from %+v to %+v", got, again)
	}
	if one := ChooseProfiling(cfg, ps, seen, now, cands[:1], 2, nil); one != cands[0] {
		t.Errorf("one candidate: %+v", one)
	}
}

func testLearnConfig() Config {
	return Config{Clusters: 2, ClusterMinPostings: 10, ClusterIterations: 20, PriorWeight: 20, Floor: 0.05, RateCount: 0.5, LearnWindow: 8 * Period}
}

// Four feeds that each keep an hour of their own, which two clusters
// cannot: the prior weight that lets each feed's own hours win is chosen
// over one that buries them under its cluster's (listed first, so a
// choice that ignored the prior weight would keep it on the tie).
func TestChooseProfilingChoosesThePriorWeight(t *testing.T) {
	since := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	cfg := testLearnConfig()
	ps := make([][]time.Time, 4)
	for i := range ps {
		for d := range 70 {
			day := since.AddDate(0, 0, d).Add(time.Duration(3+5*i) * time.Hour)
			ps[i] = append(ps[i], day, day.Add(10*time.Minute))
		}
	}
	now := since.Add(10 * Period)
	seen := []time.Time{now, now, now, now}
	cands := []Profiling{{Window: 6 * Period, Prior: 1000}, {Window: 6 * Period, Prior: 5}}
	if got := ChooseProfiling(cfg, ps, seen, now, cands, 2, rand.New(rand.NewPCG(1, 1))); got.Prior != 5 {
		t.Errorf("chose %+v, want the feeds' own hours (prior weight 5)", got)
	}
	cfg.ProfileWindows, cfg.BinWeights, cfg.PriorWeights = []time.Duration{6 * Period}, []float64{100}, []float64{5, 1000}
	if got, want := len(cfg.profilings()), 4; got != want {
		t.Errorf("%d candidates, want %d: one window × bin weights 0 and 100 × two prior weights", got, want)
	}
}
