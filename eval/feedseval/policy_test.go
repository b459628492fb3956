package feedseval

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/deltaq/deltaq/feeds"
)

// TestWICKeepsEveryFeedsBounds plans WIC over three weeks for a fast feed
// and one whose model expects almost nothing: under a one-day horizon the
// slow feed's utility never reaches the fast one's, yet its max interval
// (one week) must bring it a poll every week, and the fast feed may not be
// polled more often than its min interval allows. The budget is spent as
// given.
func TestWICKeepsEveryFeedsBounds(t *testing.T) {
	grid, err := feeds.NewGrid(5 * time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	flat := feeds.Shape{}
	for b := range flat {
		flat[b] = 1
	}
	week := feeds.Period.Seconds()
	models := []feeds.Model{{Rate: 200 / week, Shape: flat}, {Rate: 0.01 / week, Shape: flat}}
	fast, err := feeds.BoundsFor(12*time.Hour, 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := feeds.BoundsFor(15*time.Minute, 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	const total = 20 // polls per week: the fast feed may take 14, so 6 are left
	horizon := 24 * time.Hour
	p, err := newPlanner(wicName(horizon), feeds.Config{}, grid, []feeds.Bounds{fast, slow}, total, horizon, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	s := &schedule{start: start, step: grid.Step}
	const weeks = 3
	for w := range weeks {
		if err := p.week(s, start.Add(time.Duration(w)*feeds.Period), models); err != nil {
			t.Fatal(err)
		}
	}
	end := start.Add(weeks * feeds.Period)
	for i, b := range []feeds.Bounds{fast, slow} {
		maxGap, minGap := feeds.Period/time.Duration(b.Min), feeds.Period/time.Duration(b.Max)
		prev := start
		for _, at := range append(s.times[i], end) {
			if gap := at.Sub(prev); gap > maxGap {
				t.Errorf("feed %d: no poll from %s to %s (%s), its max interval is %s", i, prev, at, gap, maxGap)
			}
			if gap := at.Sub(prev); prev != start && at != end && gap < minGap {
				t.Errorf("feed %d: polls at %s and %s, %s apart, its min interval is %s", i, prev, at, gap, minGap)
			}
			prev = at
		}
	}
	if n := len(s.times[0]) + len(s.times[1]); n < weeks*total-1 || n > weeks*total {
		t.Errorf("%d polls in %d weeks, the budget is %d a week", n, weeks, total)
	}
	if len(s.times[1]) < weeks || len(s.times[0]) > weeks*fast.Max {
		t.Errorf("polls: fast feed %d (at most %d), slow feed %d (at least %d)", len(s.times[0]), weeks*fast.Max, len(s.times[1]), weeks)
	}
}

// TestEvenlySpacedKeepsPhaseAcrossWeeks re-plans allocation-only when the
// feeds' rates swap, so one feed goes from two polls a week to one and the
// other from one to two. Each keeps its phase: the gap across the weeks'
// boundary is at most the longer of its two intervals, never past its max
// interval (one week), whatever the seed.
func TestEvenlySpacedKeepsPhaseAcrossWeeks(t *testing.T) {
	grid, err := feeds.NewGrid(5 * time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b, err := feeds.BoundsFor(15*time.Minute, 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	bounds := []feeds.Bounds{b, b}
	week := feeds.Period.Seconds()
	rates := [][]float64{{4 / week, 1 / week}, {1 / week, 4 / week}} // 2 and 1 polls, then 1 and 2
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	for seed := range uint64(50) {
		p, err := newPlanner(AllocOnly, feeds.Config{}, grid, bounds, 3, 0, rand.New(rand.NewPCG(seed, 2)))
		if err != nil {
			t.Fatal(err)
		}
		s := &schedule{start: start, step: grid.Step}
		for w, rs := range rates {
			models := []feeds.Model{{Rate: rs[0]}, {Rate: rs[1]}}
			if err := p.week(s, start.Add(time.Duration(w)*feeds.Period), models); err != nil {
				t.Fatal(err)
			}
		}
		boundary := start.Add(feeds.Period)
		for i := range bounds {
			last := s.lastPoll(i, boundary)
			next, ok := s.nextPoll(i, boundary)
			if !ok {
				t.Fatalf("seed %d, feed %d: no poll in the second week", seed, i)
			}
			longer := feeds.Period / time.Duration(min(len(s.weeks[0][i]), len(s.weeks[1][i])))
			if gap := next.Sub(last); gap > longer+grid.Step || gap > feeds.Period/time.Duration(b.Min) {
				t.Errorf("seed %d, feed %d: %d then %d polls a week, no poll from %s to %s (%s)",
					seed, i, len(s.weeks[0][i]), len(s.weeks[1][i]), last, next, gap)
			}
		}
	}
}
