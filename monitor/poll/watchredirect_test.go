package poll_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor/poll"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// minutes steps a process one monitor instant (a minute) at a time,
// summing what each Ingest did.
type minutes struct {
	e   *env
	clk *clock.Manual
	at  int // minutes since t0
	sum poll.Ingested
}

// until steps until done holds, at most 3 hours.
func (m *minutes) until(t *testing.T, what string, done func() bool) {
	t.Helper()
	for end := m.at + 180; !done(); {
		if m.at == end {
			t.Fatalf("%s: not within 3 hours (ingested %+v)", what, m.sum)
		}
		m.at++
		m.clk.Set(t0.Add(time.Duration(m.at) * time.Minute))
		_, in := m.e.step(t)
		m.sum.URLs += in.URLs
		m.sum.Fired += in.Fired
		m.sum.Failed += in.Failed
		m.sum.Awaited += in.Awaited
	}
}

// onlySentinel is the one watch installed.
func onlySentinel(t *testing.T, e *env) *watch.Sentinel {
	t.Helper()
	list, err := e.watches.List(t.Context(), "")
	if err != nil || len(list) != 1 {
		t.Fatalf("sentinels %v, %v; want one", list, err)
	}
	return list[0]
}

// A watched page that answers a redirect is checked on the page the
// redirect leads to, as the watch's own fetch at install saw it. The
// crawler fetches the target as a URL of its own; when a later poll of
// the watched page finds the target's copy older than the redirect, the
// poller asks the crawler for the target and the check completes on that
// fetch. A change of the target fires the watch, which stays on the URL
// its user gave, and no check fails.
func TestAWatchedPageBehindARedirectIsCheckedOnItsTarget(t *testing.T) {
	for _, status := range []int{301, 302} {
		t.Run(fmt.Sprintf("a %d", status), func(t *testing.T) {
			w := newWeb(t)
			cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test", "b.test")
			e, clk := fresh(t, cfg, w)
			const watched, target = "http://a.test/page", "http://b.test/page"
			w.redirect("a.test/page", status, target)
			w.html("b.test/page", "first")
			e.watch(t, watched, 10*time.Minute)
			e.start(t)
			m := &minutes{e: e, clk: clk}
			crawled := func(u string) bool {
				pg, err := e.db.Page(u)
				return err == nil && !pg.LastFetch.IsZero()
			}
			m.until(t, "a poll of the watched page and a fetch of the target", func() bool { return crawled(watched) && crawled(target) })
			if m.sum.Failed != 0 || m.sum.Fired != 0 {
				t.Fatalf("the target unchanged since install: ingested %+v, want no check failed and none fired", m.sum)
			}
			w.html("b.test/page", "second")
			m.until(t, "the target's change fires the watch", func() bool { return m.sum.Fired > 0 })
			if m.sum.Failed != 0 || m.sum.Fired != 1 {
				t.Errorf("ingested %+v, want no check failed and the change fired once", m.sum)
			}
			if m.sum.Awaited == 0 {
				t.Errorf("no check awaited the target, want the polls after its first fetch to")
			}
			s := onlySentinel(t, e)
			if s.URL != watched {
				t.Errorf("the watch is on %s, want it kept on %s", s.URL, watched)
			}
			hist, err := e.watches.History(t.Context(), s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 1 || !hist[0].Fired {
				t.Errorf("history %+v, want the one change, fired", hist)
			}
			if fails, err := e.watches.Failures(t.Context(), s.ID); err != nil || len(fails) != 0 {
				t.Errorf("failures %+v, %v; want none", fails, err)
			}
		})
	}
}

// A redirect a watched page's check cannot follow is a failed check whose
// error says why, naming the URLs: a loop, a chain longer than
// crawler.limits.max_redirects, a target that is no http or https URL, and
// a target robots.txt keeps the crawler from (never requested).
func TestARedirectAWatchCannotFollowIsAFailureSayingWhy(t *testing.T) {
	const a, b, c, d = "http://a.test/page", "http://b.test/page", "http://c.test/page", "http://d.test/page"
	for _, tc := range []struct {
		name  string
		web   func(w *web)
		limit int // crawler.limits.max_redirects; 0: the default
		want  string
		// neverRequested is a path the crawler must not request.
		neverRequested string
	}{
		{
			name: "a loop names the loop",
			web: func(w *web) {
				w.redirect("a.test/page", 302, b)
				w.redirect("b.test/page", 301, a)
			},
			want: "a redirect loop (" + a + " → " + b + " → " + a + ")",
		},
		{
			name: "a chain over the limit names the limit",
			web: func(w *web) {
				w.redirect("a.test/page", 302, b)
				w.redirect("b.test/page", 302, c)
				w.redirect("c.test/page", 302, d)
				w.html("d.test/page", "far away")
			},
			limit: 2,
			want:  "more than crawler.limits.max_redirects = 2 redirects in a row (" + a + " → " + b + " → " + c + " → " + d + ")",
		},
		{
			name: "a target of another scheme says so",
			web:  func(w *web) { w.redirect("a.test/page", 302, "ftp://files.test/page") },
			want: a + " answered a redirect (status 302) to no http or https URL",
		},
		{
			name: "a target robots.txt disallows is not requested",
			web: func(w *web) {
				w.redirect("a.test/page", 307, b)
				w.set("b.test/robots.txt", "text/plain", "User-agent: *\nDisallow: /page\n")
			},
			want:           "crawler fetch of " + b + ": disallowed (watched page " + a + " redirects there)",
			neverRequested: "b.test/page",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWeb(t)
			cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test", "b.test", "c.test", "d.test")
			if tc.limit > 0 {
				cfg.Crawler.Limits.MaxRedirects = tc.limit
			}
			e, clk := fresh(t, cfg, w)
			w.html("a.test/page", "first")
			e.watch(t, a, 10*time.Minute)
			tc.web(w)
			e.start(t)
			e.p.LimitRedirects(cfg.Crawler.Limits.MaxRedirects)
			s := onlySentinel(t, e)
			var fails []watch.Failure
			m := &minutes{e: e, clk: clk}
			m.until(t, "a failed check", func() bool {
				var err error
				if fails, err = e.watches.Failures(t.Context(), s.ID); err != nil {
					t.Fatal(err)
				}
				return len(fails) > 0
			})
			if !strings.Contains(fails[0].Error, tc.want) {
				t.Errorf("failure %q, want it to say %q", fails[0].Error, tc.want)
			}
			// A wait per redirect at most: the targets fetched for a
			// check stay good for it however often the watched page is
			// polled meanwhile.
			if m.sum.Fired != 0 || m.sum.Awaited > 3 {
				t.Errorf("ingested %+v, want none fired and at most 3 waits, one per redirect", m.sum)
			}
			if tc.neverRequested != "" && w.count(tc.neverRequested) != 0 {
				t.Errorf("%s was requested %d times, want never", tc.neverRequested, w.count(tc.neverRequested))
			}
		})
	}
}

// A watched page's check that waits for its redirect's target keeps when
// it first saw the redirect across a restart. Here the process dies after
// the crawler fetched the target and, a poll later, the watched page, but
// before either fetch was read: the target's copy is older than the
// watched page's last fetch, yet newer than the redirect's first
// sighting, so the restarted poller checks the watch on it at once
// instead of asking for the target again.
func TestAWatchedPagesWaitKeepsItsFirstSightingAcrossARestart(t *testing.T) {
	w := newWeb(t)
	dir := t.TempDir()
	cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test", "b.test")
	cfg.Monitor.MinUtility = 0.5 // the watched page is polled once half its wish has passed
	clk := clock.NewManual(t0)
	e := open(t, dir, cfg, clk, w)
	const watched, target = "http://a.test/page", "http://b.test/page"
	w.redirect("a.test/page", 302, target)
	w.html("b.test/page", "first")
	e.watch(t, watched, 10*time.Minute)
	e.start(t)
	m := &minutes{e: e, clk: clk}
	m.until(t, "a check awaiting the target", func() bool { return m.sum.Awaited > 0 })
	if m.sum.Fired != 0 || m.sum.Failed != 0 {
		t.Fatalf("ingested %+v before the target changed, want none fired or failed", m.sum)
	}
	sighted, err := e.db.Page(watched)
	if err != nil {
		t.Fatal(err)
	}
	w.html("b.test/page", "second")
	// The next instant fetches the target the check waits for; the
	// process dies before reading it.
	m.at++
	clk.Set(t0.Add(time.Duration(m.at) * time.Minute))
	targets := w.count("b.test/page")
	if _, err := e.f.PlanMonitor(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.crawl(t)
	if got := w.count("b.test/page") - targets; got != 1 || mustPage(t, e, watched).LastFetch.After(sighted.LastFetch) {
		t.Fatalf("the instant after the wait requested the target %d times (polled the watched page again: %t); want once, alone",
			got, mustPage(t, e, watched).LastFetch.After(sighted.LastFetch))
	}
	if got := keptWaits(t, e); got != 1 {
		t.Fatalf("%d redirect waits kept in the repository, want the watched page's", got)
	}
	e.close()

	// Restarted once the watch is due again: its poll answers the same
	// redirect, after the target's unread fetch.
	e = open(t, dir, cfg, clk, w)
	e.start(t)
	m = &minutes{e: e, clk: clk, at: m.at + 10}
	targets = w.count("b.test/page")
	m.until(t, "the watch fires on the target's change", func() bool { return m.sum.Fired > 0 })
	if !mustPage(t, e, watched).LastFetch.After(sighted.LastFetch) {
		t.Fatalf("the watched page was not polled again after the restart; the test needs it to be")
	}
	if got := w.count("b.test/page") - targets; got != 0 || m.sum.Awaited != 0 {
		t.Errorf("after the restart the target was requested %d times and %d checks awaited it; want none: its fetch is newer than the redirect's first sighting",
			got, m.sum.Awaited)
	}
	if got := keptWaits(t, e); got != 0 {
		t.Errorf("%d redirect waits kept after the check ran, want none", got)
	}
}

// keptWaits counts the first sightings the repository keeps for checks
// that wait (repo/FORMAT.md, bucket poll).
func keptWaits(t *testing.T, e *env) int {
	t.Helper()
	n := 0
	for _, err := range e.db.BucketScan(t.Context(), "poll", "w/") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func mustPage(t *testing.T, e *env, u string) repo.Page {
	t.Helper()
	pg, err := e.db.Page(u)
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// A kept first sighting of a URL no longer watched is dropped when the
// poller starts; one that does not decode stops it with an error naming
// the URL, the size and the format it should have.
func TestKeptRedirectWaitsAreDroppedOrRefusedAtStart(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test")
	e, _ := fresh(t, cfg, w)
	w.html("a.test/page", "watched")
	e.watch(t, "http://a.test/page", 10*time.Minute)
	put := func(u string, v []byte) {
		b := e.db.NewBatch(t.Context())
		if err := b.PutBucket("poll", "w/"+u, v); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	put("http://gone.test/page", []byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	e.start(t)
	if got := keptWaits(t, e); got != 0 {
		t.Errorf("%d redirect waits kept after the start, want the unwatched URL's dropped", got)
	}
	put("http://a.test/page", []byte{1, 2, 3})
	_, err := poll.New(t.Context(), e.db, cfg.Monitor, poll.Options{Watches: e.watches, Clock: e.clk})
	want := "poll: redirect wait of http://a.test/page: 3 bytes starting 0x01, want 9 starting 0x01"
	if err == nil || err.Error() != want {
		t.Errorf("start over a malformed wait: %v, want %q", err, want)
	}
}
