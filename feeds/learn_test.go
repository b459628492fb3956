package feeds

import (
	"math"
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
		RecentRates(m, [][]time.Time{ps}, since, []time.Time{seen}, at, hls, 1, 0)
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
func TestChooseHalfLifeByPredictiveLikelihood(t *testing.T) {
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
	if hl := ChooseHalfLife(steady, since, seen, cands, 8, 0.5); hl != cands[2] {
		t.Errorf("steady feed: half-life %s, want the longest %s", hl, cands[2])
	}
	if hl := ChooseHalfLife(shifting, since, seen, cands, 8, 0.5); hl == cands[2] {
		t.Errorf("feed that sped up: half-life %s, want a shorter one", hl)
	}
}
