package feeds

import (
	"slices"
	"testing"
	"time"
)

// TestPlanAllContinuesFromEachFeedsLastPoll: a week of polls from now for
// each feed, none before now; a feed polled an hour ago waits for its
// next posting, one not polled for five days is polled at once, and a feed
// never polled still owes the poll its plan put before now.
func TestPlanAllContinuesFromEachFeedsLastPoll(t *testing.T) {
	now := t0.Add(6*time.Hour + 7*time.Minute)   // Monday 18:07 UTC
	daily := func(until time.Time) []time.Time { // a posting at 14:00 every day
		var out []time.Time
		for d := 56; d >= 0; d-- {
			if at := time.Date(2025, 3, 3, 14, 0, 0, 0, time.UTC).AddDate(0, 0, -d); at.Before(until) {
				out = append(out, at)
			}
		}
		return out
	}
	feed := func(id string, last time.Time) Feed {
		return Feed{ID: id, URL: "http://" + id + ".test/feed.atom", Weight: 1, MinInterval: 15 * time.Minute,
			MaxInterval: 7 * 24 * time.Hour, History: daily(last), LastFetch: last}
	}
	list := []Feed{feed("recent", now.Add(-time.Hour)), feed("stale", now.Add(-5*24*time.Hour)), feed("new", time.Time{})}
	plans, err := PlanAll(testConfig(), list, now, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans[:2] {
		if len(p.Next) != p.PollsPerWeek || !slices.IsSortedFunc(p.Next, time.Time.Compare) ||
			p.Next[0].Before(now) || !p.Next[len(p.Next)-1].Before(now.Add(Period)) || !p.Last.IsZero() {
			t.Errorf("%s: %d polls a week, next %v, last %v; want them all in [now, now+1 week), none owed", p.Feed.ID, p.PollsPerWeek, p.Next, p.Last)
		}
	}
	recent, stale := plans[0].Next[0], plans[1].Next[0]
	if stale.Sub(now) > 5*time.Minute {
		t.Errorf("the feed last polled five days ago is first polled at %s, want at once (%s)", stale, now)
	}
	if !recent.After(time.Date(2025, 3, 4, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("the feed polled an hour ago is first polled at %s, want after its next posting (Tuesday 14:00)", recent)
	}
	if fresh := plans[2]; fresh.Last.IsZero() || !fresh.Last.Before(now) {
		t.Errorf("the feed never polled owes %v, want its planned poll before now", fresh.Last)
	}
}
