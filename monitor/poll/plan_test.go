package poll_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/feeds"
)

// atomPosted is a feed with one entry per posting time, newest first.
func atomPosted(times []time.Time) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:t</id>`)
	for i := len(times) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `<entry><id>urn:p%d</id><title>posting %d</title><link href="http://elsewhere.test/%d"/><updated>%s</updated></entry>`,
			i, i, i, times[i].Format(time.RFC3339))
	}
	b.WriteString("</feed>")
	return b.String()
}

// subscribe adds a feed on hostPath whose history is postings, as its
// first poll at t0 recorded them, and serves the same body.
func subscribe(t *testing.T, e *env, w *web, hostPath string, postings []time.Time) string {
	t.Helper()
	body := atomPosted(postings)
	w.set(hostPath, "application/atom+xml", body)
	u := "http://" + hostPath
	f, _, err := e.feeds.Add(t.Context(), u, feeds.AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.feeds.Record(t.Context(), f.ID, feeds.Fetch{At: t0, Status: 200, Body: []byte(body)}); err != nil {
		t.Fatal(err)
	}
	return u
}

// every returns the times from t0 back n steps of d, oldest first.
func every(d time.Duration, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = t0.Add(-time.Duration(n-i) * d)
	}
	return out
}

// run steps the monitor instant by instant over [t0, t0+span] and returns
// the times each host path was requested.
func run(t *testing.T, e *env, w *web, span time.Duration, paths ...string) map[string][]time.Time {
	t.Helper()
	polls := map[string][]time.Time{}
	inst := e.cfg.Monitor.Instant
	for at := t0; !at.After(t0.Add(span)); at = at.Add(inst) {
		e.clk.Set(at)
		before := map[string]int{}
		for _, p := range paths {
			before[p] = w.count(p)
		}
		e.step(t)
		for _, p := range paths {
			if w.count(p) > before[p] {
				polls[p] = append(polls[p], at)
			}
		}
	}
	return polls
}

// servedWithin checks that every planned time up to end-slack has a poll
// at or after it and less than slack later, and that every poll follows
// some planned time by less than slack.
func servedWithin(t *testing.T, name string, planned, polls []time.Time, end time.Time, slack time.Duration) {
	t.Helper()
	for _, p := range planned {
		if p.Add(slack).After(end) {
			continue
		}
		ok := false
		for _, q := range polls {
			ok = ok || !q.Before(p) && q.Sub(p) < slack
		}
		if !ok {
			t.Errorf("%s: planned poll at %s not served within %s; polls %v", name, p.Format("Mon 15:04"), slack, polls)
		}
	}
	for _, q := range polls {
		ok := false
		for _, p := range planned {
			ok = ok || !q.Before(p) && q.Sub(p) < slack
		}
		if !ok {
			t.Errorf("%s: poll at %s follows no planned poll within %s; planned %v", name, q.Format("Mon 15:04"), slack, planned)
		}
	}
}

// Over a simulated day with the share to spare, a feed is polled at its
// planned times, each poll within one instant of a planned time, and only
// then.
func TestAFeedIsPolledAtItsPlannedTimes(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 10000, 24*time.Hour, 0.5, 5*time.Minute, "a.test")
	e, _ := fresh(t, cfg, w)
	// Postings every 3 hours over four weeks, at 01:00, 04:00, ...
	u := subscribe(t, e, w, "a.test/feed.xml", every(3*time.Hour, 8*28))
	e.start(t)
	planned := e.p.Due(u)
	day := 24 * time.Hour
	var today []time.Time
	for _, p := range planned {
		if p.Before(t0.Add(day)) {
			today = append(today, p)
		}
	}
	if len(today) < 2 {
		t.Fatalf("planned polls today = %v, want several at feeds.polls_per_day = %g", today, cfg.Feeds.PollsPerDay)
	}
	polls := run(t, e, w, day, "a.test/feed.xml")["a.test/feed.xml"]
	servedWithin(t, "feed", planned, polls, t0.Add(day), cfg.Monitor.Instant)
	if len(polls) != len(today) {
		t.Errorf("polls in the day = %d, want the %d planned: %v", len(polls), len(today), today)
	}
	t.Logf("planned %v, polled %v", today, polls)
}

// A feed posting every hour and one posting every four days share a
// monitoring class of one poll an hour. WIC with linear urgency gave the
// fast feed nearly every poll (its pending postings outweigh the slow
// feed's for days); the plan gives the slow feed its own polls, and the
// longest overdue goes first, so each planned poll of either feed is served
// within two instants.
func TestASlowFeedIsNotStarvedByAFastOne(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 24, 24*time.Hour, 1, time.Hour, "fast.test", "slow.test") // one poll an instant
	e, _ := fresh(t, cfg, w)
	fast := subscribe(t, e, w, "fast.test/feed.xml", every(time.Hour, 150))
	slow := subscribe(t, e, w, "slow.test/feed.xml", every(96*time.Hour, 7))
	e.start(t)
	span := 2 * 24 * time.Hour
	plannedFast, plannedSlow := e.p.Due(fast), e.p.Due(slow)
	var slowPlanned []time.Time
	for _, p := range plannedSlow {
		if p.Before(t0.Add(span - 2*time.Hour)) {
			slowPlanned = append(slowPlanned, p)
		}
	}
	if len(slowPlanned) == 0 || len(plannedFast) <= len(plannedSlow) {
		t.Fatalf("planned polls: fast %d, slow %d in the week, slow %d in two days; want the fast feed planned more and the slow one at least once",
			len(plannedFast), len(plannedSlow), len(slowPlanned))
	}
	polls := run(t, e, w, span, "fast.test/feed.xml", "slow.test/feed.xml")
	servedWithin(t, "slow feed", plannedSlow, polls["slow.test/feed.xml"], t0.Add(span), 2*time.Hour)
	servedWithin(t, "fast feed", plannedFast, polls["fast.test/feed.xml"], t0.Add(span), 2*time.Hour)
	if got := len(polls["slow.test/feed.xml"]); got < len(slowPlanned) {
		t.Errorf("slow feed polled %d times in two days, want its %d planned", got, len(slowPlanned))
	}
	t.Logf("fast polled %d times, slow %d (planned %v)", len(polls["fast.test/feed.xml"]), len(polls["slow.test/feed.xml"]), slowPlanned)
}

// The plan is made at start, kept by a Refresh that finds the same feeds,
// made anew when a feed is added and when it is monitor.replan old, and
// each time stored as the plan `deltaq feeds explain` shows.
func TestThePlanIsRemadeWhenFeedsChangeAndDaily(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 10000, time.Hour, 0.5, 5*time.Minute, "a.test", "b.test")
	e, clk := fresh(t, cfg, w)
	a := subscribe(t, e, w, "a.test/feed.xml", every(3*time.Hour, 100))
	e.start(t)
	made := func() time.Time {
		t.Helper()
		list, err := e.feeds.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		plans := e.p.Plans()
		if len(plans) != len(list) {
			t.Fatalf("poller plans %d feeds, %d subscribed", len(plans), len(list))
		}
		var at time.Time
		for i, f := range list {
			saved, m, ok, err := e.feeds.SavedPlan(f)
			if err != nil || !ok {
				t.Fatalf("no stored plan for %s: %v", f.URL, err)
			}
			if !slices.EqualFunc(saved.Next, plans[i].Next, time.Time.Equal) || saved.PollsPerWeek != plans[i].PollsPerWeek {
				t.Errorf("stored plan of %s = %d polls %v, the poller's %d polls %v", f.URL, saved.PollsPerWeek, saved.Next, plans[i].PollsPerWeek, plans[i].Next)
			}
			at = m
		}
		return at
	}
	if got := made(); !got.Equal(t0) {
		t.Errorf("plan made at %s, want t0", got)
	}
	clk.Set(t0.Add(time.Hour))
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := made(); !got.Equal(t0) {
		t.Errorf("after a Refresh with the same feeds the plan was made at %s, want t0 still", got)
	}
	subscribe(t, e, w, "b.test/feed.xml", every(12*time.Hour, 20))
	clk.Set(t0.Add(2 * time.Hour))
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := made(); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("after a feed was added the plan was made at %s, want at the Refresh (t0+2h)", got)
	}
	if len(e.p.Due("http://b.test/feed.xml")) == 0 {
		t.Error("the added feed has no planned polls")
	}
	clk.Set(t0.Add(2*time.Hour + cfg.Monitor.Replan))
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := made(); !got.Equal(t0.Add(2*time.Hour + cfg.Monitor.Replan)) {
		t.Errorf("a plan monitor.replan old was not made anew: made at %s", got)
	}
	// Feed a was not polled since t0 (no instant was stepped): the new
	// plan still owes it the poll it missed, due now.
	now := clk.Now()
	if due := e.p.Due(a); len(due) == 0 || !due[0].After(t0) || due[0].After(now) || len(due) > 1 && due[1].Before(now) {
		t.Errorf("feed a's planned polls after the re-plan at %s = %v, want the missed one first, due now, then future ones", now, due)
	}
}
