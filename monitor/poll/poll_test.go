package poll_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor/poll"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// Six watched pages with wishes of 1h … 6h, and ten new URLs waiting. The
// monitoring share goes to the watches of largest utility (the shortest
// wishes, at one instant after install: 1/(W+1)), and what monitoring does
// not take goes to the new URLs.
func TestMonitorShareGoesByUtilityAndTheRestToNewURLs(t *testing.T) {
	for _, tc := range []struct {
		name       string
		minUtility float64
		wantPolled int // pages p1..p(wantPolled) polled, the others not
	}{
		{"the whole share is worth spending", 0, 4},
		// 1/2 and 1/3 reach 0.3; 1/4 … 1/7 do not: two polls, and the
		// two fetches of the share they leave go to new URLs.
		{"part of the share is not worth spending", 0.3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWeb(t)
			cfg := config(t, w, 10, time.Hour, 0.4, time.Hour, "a.test", "n.test")
			cfg.Monitor.MinUtility = tc.minUtility
			e, clk := fresh(t, cfg, w)
			for i := 1; i <= 6; i++ {
				w.html(fmt.Sprintf("a.test/p%d", i), "watched")
				e.watch(t, fmt.Sprintf("http://a.test/p%d", i), time.Duration(i)*time.Hour)
			}
			e.start(t)
			clk.Set(t0.Add(time.Hour))
			e.seed(t, w, "n.test", 10)
			queued, _ := e.step(t)
			if queued != tc.wantPolled {
				t.Errorf("monitoring polls queued = %d, want %d", queued, tc.wantPolled)
			}
			for i := 1; i <= 6; i++ {
				want := 1 // the install's own fetch
				if i <= tc.wantPolled {
					want = 2
				}
				if got := w.count(fmt.Sprintf("a.test/p%d", i)); got != want {
					t.Errorf("requests for p%d (wish %dh) = %d, want %d", i, i, got, want)
				}
			}
			st := e.f.Stats()
			if got, want := st.PeriodByClass[repo.ClassMonitor], tc.wantPolled; got != want {
				t.Errorf("monitor class fetches = %d, want %d", got, want)
			}
			if got, want := st.PeriodByClass[repo.ClassNew], 10-tc.wantPolled; got != want {
				t.Errorf("new URLs fetched = %d, want %d: the budget of 10 less the monitoring polls", got, want)
			}
			if got := e.fetchedOn(t, "n.test"); got != 10-tc.wantPolled {
				t.Errorf("pages of n.test fetched = %d, want %d", got, 10-tc.wantPolled)
			}
		})
	}
}

// The monitoring share is spread over the period's instants: the first
// instant takes its part and holds the second's from new URLs; the second
// takes it.
func TestMonitorShareIsHeldForTheLaterInstantsOfThePeriod(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 10, 2*time.Hour, 0.4, time.Hour, "a.test", "n.test")
	e, clk := fresh(t, cfg, w)
	for i := 1; i <= 6; i++ {
		w.html(fmt.Sprintf("a.test/p%d", i), "watched")
		e.watch(t, fmt.Sprintf("http://a.test/p%d", i), time.Hour)
	}
	e.start(t)
	clk.Set(t0.Add(2 * time.Hour)) // a period starts
	e.seed(t, w, "n.test", 10)
	if queued, _ := e.step(t); queued != 2 {
		t.Errorf("first instant: polls = %d, want 2 (a share of 4 over 2 instants)", queued)
	}
	if got := e.fetchedOn(t, "n.test"); got != 6 {
		t.Errorf("first instant: new URLs fetched = %d, want 6 (10 less 2 polled, less 2 held for the next instant)", got)
	}
	clk.Set(t0.Add(3 * time.Hour))
	if queued, _ := e.step(t); queued != 2 {
		t.Errorf("second instant: polls = %d, want 2", queued)
	}
	st := e.f.Stats()
	if st.PeriodByClass[repo.ClassMonitor] != 4 || st.PeriodByClass[repo.ClassNew] != 6 {
		t.Errorf("period fetches by class = %v, want monitor 4 and new 6", st.PeriodByClass)
	}
}

// A feed and a watch on one URL add their utilities and share one fetch:
// one request, the feed takes its new entries and the watch sees the
// change.
func TestFeedAndWatchOnOneURLShareOneFetch(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Hour, "a.test")
	e, clk := fresh(t, cfg, w)
	const u = "http://a.test/feed.xml"
	w.set("a.test/feed.xml", "application/atom+xml", atom(2, t0))
	f, _, err := e.feeds.Add(t.Context(), u, feeds.AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	e.watch(t, u, time.Hour)
	e.start(t)
	clk.Set(t0.Add(time.Hour))
	w.set("a.test/feed.xml", "application/atom+xml", atom(3, t0.Add(time.Hour)))
	queued, in := e.step(t)
	if queued != 1 {
		t.Errorf("polls queued = %d, want 1 for two demands on one URL", queued)
	}
	if got := w.count("a.test/feed.xml"); got != 2 {
		t.Errorf("requests for the feed = %d, want 2 (the watch's install and one poll)", got)
	}
	if in.URLs != 1 || in.NewItems != 3 || in.Fired != 1 || in.Failed != 0 {
		t.Errorf("ingested %+v, want 1 URL, 3 new items, 1 watch fired, none failed", in)
	}
	items, err := e.feeds.Items(t.Context(), f.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Errorf("feed items stored = %d, want 3", len(items))
	}
	sentinels, err := e.watches.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := e.watches.History(t.Context(), sentinels[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 {
		t.Errorf("watch history = %d changes, want 1", len(hist))
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(e.p.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		got[mf.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	for name, want := range map[string]float64{"deltaq_monitor_demands": 2, "deltaq_monitor_urls": 1, "deltaq_monitor_picks_total": 1,
		"deltaq_monitor_feed_items_total": 3, "deltaq_monitor_watch_triggers_total": 1, "deltaq_monitor_failed_total": 0} {
		if got[name] != want {
			t.Errorf("metric %s = %g, want %g", name, got[name], want)
		}
	}
}

// A poll of a watched page that brought no copy (here a 404) is a failed
// check in the watch's history, as a failed fetch of the watch's own is:
// counted once per run of the same error, never a change, and a later
// change still fires.
func TestAFailedPollIsAFailedCheckOfTheWatch(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Hour, "a.test")
	e, clk := fresh(t, cfg, w)
	const u = "http://a.test/page"
	w.html("a.test/page", "first")
	e.watch(t, u, time.Hour)
	e.start(t)
	sentinels, err := e.watches.List(t.Context(), "")
	if err != nil || len(sentinels) != 1 {
		t.Fatalf("sentinels %v, %v", sentinels, err)
	}
	id := sentinels[0].ID
	w.remove("a.test/page")
	for i := 1; i <= 2; i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Hour))
		if _, in := e.step(t); in.URLs != 1 || in.Failed != 1 || in.Fired != 0 {
			t.Fatalf("poll %d of a page gone: ingested %+v, want 1 URL, 1 failed, none fired", i, in)
		}
	}
	fails, err := e.watches.Failures(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(fails) != 1 || fails[0].Kind != watch.FailStatus || fails[0].Count != 2 || !strings.Contains(fails[0].Error, "404") ||
		!fails[0].First.Equal(t0.Add(time.Hour)) || !fails[0].Last.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("failures %+v, want one run of two 404s, at 1h and 2h", fails)
	}
	w.html("a.test/page", "second")
	clk.Set(t0.Add(3 * time.Hour))
	if _, in := e.step(t); in.Failed != 0 || in.Fired != 1 {
		t.Fatalf("poll of the page back and changed: ingested %+v, want it fired", in)
	}
	hist, err := e.watches.History(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if fails, _ := e.watches.Failures(t.Context(), id); len(hist) != 1 || len(fails) != 1 {
		t.Errorf("history %d changes and %d failure runs, want 1 and 1", len(hist), len(fails))
	}
}

// Monitoring polls are fetches like any other: robots.txt disallows one,
// and the polls of one host keep its politeness delay.
func TestPollsObeyRobotsAndPoliteness(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, 10*time.Minute)
	cfg.Crawler.Resolve = append(cfg.Crawler.Resolve, "a.test=127.0.0.1:"+w.port())
	cfg.Crawler.Politeness.MinDelay = 30 * time.Minute
	e, clk := fresh(t, cfg, w)
	w.set("a.test/robots.txt", "text/plain", "User-agent: *\nDisallow: /private\n")
	for _, p := range []string{"private", "x1", "x2"} {
		w.html("a.test/"+p, "watched "+p)
		e.watch(t, "http://a.test/"+p, 10*time.Minute)
	}
	e.start(t)
	queued := 0
	for i := 1; i <= 18; i++ { // three hours of 10-minute instants
		clk.Set(t0.Add(time.Duration(i) * 10 * time.Minute))
		n, _ := e.step(t)
		queued += n
	}
	if got := w.count("a.test/private"); got != 1 {
		t.Errorf("requests for the disallowed page = %d, want 1 (the watch's install only)", got)
	}
	pg, err := e.db.Page("http://a.test/private")
	if err != nil || pg.LastOutcome != repo.OutcomeDisallowed {
		t.Errorf("disallowed page: outcome %v, %v; want disallowed", pg.LastOutcome, err)
	}
	var at []time.Time
	for _, u := range []string{"http://a.test/x1", "http://a.test/x2"} {
		log, err := e.db.FetchLog(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) == 0 {
			t.Fatalf("%s never polled", u)
		}
		for _, r := range log {
			at = append(at, r.At)
		}
	}
	slices.SortFunc(at, time.Time.Compare)
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < 30*time.Minute {
			t.Errorf("polls of one host at %v and %v: %v apart, want at least crawler.politeness.min_delay = 30m", at[i-1], at[i], gap)
		}
	}
	if len(at) < 3 {
		t.Errorf("%d polls of x1 and x2 in three hours, want at least 3 (one per 30m slot, robots.txt and the disallowed page taking two)", len(at))
	}
	t.Logf("%d polls queued, %d fetched", queued, len(at))
}

// Under a budget too small for every wish, a page wished every 10 minutes
// is checked more often than one wished every hour.
func TestShorterWishIsCheckedMoreOftenUnderATightBudget(t *testing.T) {
	w := newWeb(t)
	// 12 monitoring fetches an hour; the wishes below would need 3·6 + 3 = 21.
	cfg := config(t, w, 12, time.Hour, 1, time.Minute, "a.test")
	e, clk := fresh(t, cfg, w)
	wishes := map[string]time.Duration{"s1": 10 * time.Minute, "s2": 10 * time.Minute, "s3": 10 * time.Minute,
		"l1": time.Hour, "l2": time.Hour, "l3": time.Hour}
	for p, every := range wishes {
		w.html("a.test/"+p, "watched")
		e.watch(t, "http://a.test/"+p, every)
	}
	e.start(t)
	for i := 1; i < 120; i++ { // two budget periods
		clk.Set(t0.Add(time.Duration(i) * time.Minute))
		e.step(t)
	}
	checks := map[string]int{}
	total := 0
	for p := range wishes {
		checks[p] = w.count("a.test/"+p) - 1
		total += checks[p]
	}
	if total != 24 {
		t.Errorf("checks in two hours = %d, want the budget's 24", total)
	}
	for _, s := range []string{"s1", "s2", "s3"} {
		for _, l := range []string{"l1", "l2", "l3"} {
			if checks[s] <= checks[l] {
				t.Errorf("checks of %s (wish 10m) = %d, not more than %s (wish 1h) = %d", s, checks[s], l, checks[l])
			}
		}
	}
	t.Logf("checks in two hours: %v", checks)
}

// A restart keeps what monitoring has done: the period's usage per class,
// the polls still queued, every URL's utility, rebuilt from the
// repository, and a poll committed but not yet read by its watch.
func TestMonitoringStateSurvivesRestart(t *testing.T) {
	w := newWeb(t)
	dir := t.TempDir()
	cfg := config(t, w, 6000, time.Hour, 0.5, time.Minute)
	cfg.Crawler.Resolve = append(cfg.Crawler.Resolve, "a.test=127.0.0.1:"+w.port(), "b.test=127.0.0.1:"+w.port())
	cfg.Crawler.Politeness.MinDelay = 20 * time.Minute
	cfg.Crawler.Politeness.Overrides = []crawler.HostOverride{{Host: "b.test", MinDelay: time.Hour, PerHost: 1}}
	clk := clock.NewManual(t0)
	e := open(t, dir, cfg, clk, w)
	for _, p := range []string{"a.test/early", "a.test/late", "b.test/1"} {
		w.html(p, "watched "+p)
		e.watch(t, "http://"+p, 30*time.Minute)
	}
	e.start(t)
	// Minute 1: all three queued, each host's robots.txt fetched. Then the
	// host delays: a.test/early at minute 21, a.test/late at 41, and
	// b.test/1 not before minute 61.
	clk.Set(t0.Add(time.Minute))
	if queued, _ := e.step(t); queued != 3 {
		t.Fatalf("polls queued = %d, want 3", queued)
	}
	clk.Set(t0.Add(21 * time.Minute))
	e.crawl(t)
	if _, err := e.p.Ingest(t.Context()); err != nil {
		t.Fatal(err)
	}
	// a.test/late changed; the process ends after its poll committed and
	// before the watch was told.
	w.html("a.test/late", "changed")
	clk.Set(t0.Add(41 * time.Minute))
	e.crawl(t)
	clk.Set(t0.Add(45 * time.Minute))
	before := map[string]float64{}
	for _, u := range []string{"http://a.test/early", "http://a.test/late", "http://b.test/1"} {
		before[u] = e.p.Utility(u)
	}
	used := e.f.Stats().PeriodByClass
	if used[repo.ClassMonitor] != 2 {
		t.Fatalf("monitor fetches before restart = %d, want 2", used[repo.ClassMonitor])
	}
	e.close()

	e = open(t, dir, cfg, clk, w)
	e.start(t)
	if in, err := e.p.Ingest(t.Context()); err != nil || in.URLs != 2 || in.Fired != 1 {
		t.Errorf("first ingest after restart: %+v, %v; want both crawled pages read and the change of a.test/late fired", in, err)
	}
	for u, want := range before {
		if got := e.p.Utility(u); math.Abs(got-want) > 1e-9 {
			t.Errorf("utility of %s after restart = %.9f, want %.9f as before", u, got, want)
		}
	}
	if early, late := before["http://a.test/early"], before["http://a.test/late"]; early <= late || late <= 0 {
		t.Errorf("utility of the page polled 24 minutes ago = %g, of the one polled 4 minutes ago = %g: want the first larger, both positive", early, late)
	}
	if got := e.f.Stats().PeriodByClass; got != used {
		t.Errorf("period fetches by class after restart = %v, want %v", got, used)
	}
	if got := w.count("b.test/1"); got != 1 {
		t.Fatalf("b.test/1 requested %d times before restart, want 1 (install)", got)
	}
	clk.Set(t0.Add(62 * time.Minute))
	e.crawl(t)
	if got := w.count("b.test/1"); got != 2 {
		t.Errorf("b.test/1 requested %d times after restart, want 2: the poll queued before it is fetched", got)
	}
	if in, err := e.p.Ingest(t.Context()); err != nil || in.URLs != 1 {
		t.Errorf("ingested after restart: %+v, %v; want the one queued poll", in, err)
	}
}

// A watched page the crawl fetches for another reason (here as a new URL
// of a seeded site) serves its watches too: the check runs on that fetch
// and the watch's utility starts over, so no poll follows at once.
func TestAFetchForAnotherReasonServesTheDemands(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Minute, "a.test")
	e, clk := fresh(t, cfg, w)
	const u = "http://a.test/news"
	w.html("a.test/news", "first")
	e.watch(t, u, 10*time.Minute)
	e.start(t)
	clk.Set(t0.Add(5 * time.Minute))
	if got := e.p.Utility(u); got <= 0 {
		t.Fatalf("utility five minutes after install = %g, want > 0", got)
	}
	w.html("a.test/news", "second")
	if _, err := e.c.Seed(t.Context(), e.f, []string{u}); err != nil {
		t.Fatal(err)
	}
	e.crawl(t)
	in, err := e.p.Ingest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if in.URLs != 1 || in.Fired != 1 {
		t.Errorf("ingested %+v after a first fetch of the watched page, want it read and the watch fired", in)
	}
	if st := e.f.Stats(); st.PeriodByClass[repo.ClassNew] != 1 || st.PeriodByClass[repo.ClassMonitor] != 0 {
		t.Errorf("fetches by class = %v, want one new and no monitoring poll", st.PeriodByClass)
	}
	if got := e.p.Utility(u); got != 0 {
		t.Errorf("utility right after the fetch = %g, want 0: its demands start over", got)
	}
	if queued, _ := e.step(t); queued != 0 {
		t.Errorf("polls queued right after the fetch = %d, want 0", queued)
	}
}

// Demands on one URL add up: a page two watches wish checked hourly is
// worth twice a page one watch wishes checked hourly, and a budget of one
// poll takes it.
func TestDemandsOnOneURLAddTheirUtilities(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 60, time.Hour, 1.0/60, time.Minute, "a.test") // one poll an hour
	e, clk := fresh(t, cfg, w)
	w.html("a.test/two", "watched twice")
	w.html("a.test/one", "watched once")
	if _, err := e.watches.Install(t.Context(), watchSpec("http://a.test/two", time.Hour, "watched")); err != nil {
		t.Fatal(err)
	}
	e.watch(t, "http://a.test/two", time.Hour)
	e.watch(t, "http://a.test/one", time.Hour)
	e.start(t)
	clk.Set(t0.Add(20 * time.Minute))
	two, one := e.p.Utility("http://a.test/two"), e.p.Utility("http://a.test/one")
	if one <= 0 || math.Abs(two-2*one) > 1e-12 {
		t.Errorf("utility of the page watched twice = %g, once = %g: want twice as much", two, one)
	}
	if queued, _ := e.step(t); queued != 1 || w.count("a.test/two") != 2 || w.count("a.test/one") != 1 {
		t.Errorf("one poll to spend: queued %d, requests two %d, one %d; want the page watched twice polled",
			queued, w.count("a.test/two"), w.count("a.test/one"))
	}
}

// Refresh takes the watches installed and removed since the poller
// started: a new one is polled, a removed one no longer.
func TestRefreshTakesInstallsAndRemovals(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Minute, "a.test")
	e, clk := fresh(t, cfg, w)
	w.html("a.test/old", "watched before")
	w.html("a.test/new", "watched after")
	e.watch(t, "http://a.test/old", 10*time.Minute)
	e.start(t)
	e.watch(t, "http://a.test/new", 10*time.Minute)
	sentinels, err := e.watches.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sentinels {
		if s.URL == "http://a.test/old" {
			if err := e.watches.Remove(t.Context(), s.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := e.p.Stats(); st.Demands != 1 || st.URLs != 1 {
		t.Errorf("after refresh: %d demands on %d URLs, want 1 on 1", st.Demands, st.URLs)
	}
	clk.Set(t0.Add(10 * time.Minute))
	if queued, _ := e.step(t); queued != 1 || w.count("a.test/new") != 2 || w.count("a.test/old") != 1 {
		t.Errorf("queued %d; requests new %d, old %d: want the new watch polled and the removed one not",
			queued, w.count("a.test/new"), w.count("a.test/old"))
	}
}

// Run reads each fetch as the crawler completes it, without waiting for
// the next refresh, and wakes the notifier when a watch fired; it ends
// with its context.
func TestRunIngestsAsFetchesComplete(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Minute, "a.test")
	e, clk := fresh(t, cfg, w)
	w.html("a.test/p", "before")
	e.watch(t, "http://a.test/p", 10*time.Minute)
	woke := make(chan struct{}, 1)
	e.fired = func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	}
	e.start(t)
	r := e.run(t)
	w.html("a.test/p", "after")
	clk.Set(t0.Add(10 * time.Minute)) // the refresh is due an hour on: only a fetch wakes Run now
	if queued, err := e.f.PlanMonitor(t.Context()); err != nil || queued != 1 {
		t.Fatalf("PlanMonitor = %d, %v; want 1 poll", queued, err)
	}
	e.crawl(t)
	select {
	case <-woke:
	case <-t.Context().Done():
		t.Fatal("the watch's change was never read")
	}
	if st := e.p.Stats(); st.Fired != 1 {
		t.Errorf("poller stats %+v, want 1 trigger", st)
	}
	if err := r.stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
}

// A feed that never posts is still polled at least once per its max
// interval: its bounds give it at least a week over its max interval of
// polls in the plan, and its flat learned profile places them evenly.
func TestASilentFeedIsPolledWithinItsMaxInterval(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test")
	cfg.Monitor.MinUtility = 0.5
	e, clk := fresh(t, cfg, w)
	w.set("a.test/feed.xml", "application/atom+xml", atom(0, t0))
	if _, _, err := e.feeds.Add(t.Context(), "http://a.test/feed.xml", feeds.AddOptions{MaxInterval: new(time.Hour)}, t0); err != nil {
		t.Fatal(err)
	}
	e.start(t)
	var polls []time.Time
	for i := 1; i <= 240; i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Minute))
		if n, _ := e.step(t); n > 0 {
			polls = append(polls, clk.Now())
		}
	}
	if len(polls) < 4 {
		t.Fatalf("polls in four hours = %v, want at least 4 with a max interval of 1h", polls)
	}
	for i := 1; i < len(polls); i++ {
		if gap := polls[i].Sub(polls[i-1]); gap > time.Hour+time.Minute {
			t.Errorf("polls at %v and %v: %v apart, want at most the max interval (1h, to the instant)", polls[i-1], polls[i], gap)
		}
	}
	t.Logf("polled at %v", polls)
}

// With nothing to monitor, the monitoring share holds nothing back: new
// URLs get the whole budget from the period's first instant. With two
// watched pages, at most two polls an instant are held for each later one.
func TestTheShareHeldIsWhatTheWatchedURLsCanUse(t *testing.T) {
	for _, watched := range []int{0, 2} {
		t.Run(fmt.Sprintf("%d watched", watched), func(t *testing.T) {
			w := newWeb(t)
			cfg := config(t, w, 20, 4*time.Hour, 0.8, time.Hour, "a.test", "n.test") // 16 polls, 4 an instant
			e, clk := fresh(t, cfg, w)
			for i := range watched {
				w.html(fmt.Sprintf("a.test/p%d", i), "watched")
				e.watch(t, fmt.Sprintf("http://a.test/p%d", i), time.Hour)
			}
			e.start(t)
			clk.Set(t0.Add(4 * time.Hour)) // a period starts
			e.seed(t, w, "n.test", 20)
			queued, _ := e.step(t)
			// Each later instant of the period holds as many polls as there
			// are watched pages: the most WIC can pick at one instant.
			want := 20 - queued - 3*watched
			if got := e.fetchedOn(t, "n.test"); queued != watched || got != want {
				t.Errorf("polls %d, new URLs fetched %d; want %d polls and %d new URLs", queued, got, watched, want)
			}
		})
	}
}

// Run reads a watch installed while it runs (through the API, in the same
// process) at the next instant, not at the next refresh an hour on.
func TestRunReadsAWatchInstalledMeanwhileAtTheNextInstant(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Minute, "a.test")
	e, clk := fresh(t, cfg, w)
	w.html("a.test/p", "watched")
	e.reportWaits()
	e.start(t)
	e.watch(t, "http://a.test/p", 10*time.Minute) // after the poller's first read
	if st := e.p.Stats(); st.Demands != 0 {
		t.Fatalf("before Run: %d demands, want 0 (not read yet)", st.Demands)
	}
	r := e.run(t)
	for i := 1; e.p.Stats().Demands == 0; i++ {
		if i > 3 {
			t.Fatalf("after %d instants the watch installed meanwhile is not read (refresh %s)", i, cfg.Monitor.Refresh)
		}
		clk.Set(t0.Add(time.Duration(i) * cfg.Monitor.Instant))
		r.round()
	}
	if err := r.stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
}

// A feed subscribed while Run runs (through the admin API, in the same
// process) is read at the next instant, not the next refresh; so is its
// removal.
func TestRunReadsAFeedSubscribedOrRemovedMeanwhileAtTheNextInstant(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Minute, "a.test")
	e, clk := fresh(t, cfg, w)
	w.set("a.test/feed.xml", "application/atom+xml", atom(2, t0))
	e.reportWaits()
	e.start(t)
	f, _, err := e.feeds.Add(t.Context(), "http://a.test/feed.xml", feeds.AddOptions{}, t0) // after the poller's first read
	if err != nil {
		t.Fatal(err)
	}
	r := e.run(t)
	instant := 0
	// within advances the clock an instant at a time, each time until
	// Run has finished its round, until demands is what the poller holds,
	// for at most 3 instants.
	within := func(what string, demands int) {
		t.Helper()
		for i := 0; e.p.Stats().Demands != demands; i++ {
			if i == 3 {
				t.Fatalf("%s: %d demands after 3 instants, want %d (refresh %s)", what, e.p.Stats().Demands, demands, cfg.Monitor.Refresh)
			}
			instant++
			clk.Set(t0.Add(time.Duration(instant) * cfg.Monitor.Instant))
			r.round()
		}
	}
	within("a feed subscribed meanwhile", 1)
	if _, _, err := e.feeds.Remove(t.Context(), f.ID); err != nil {
		t.Fatal(err)
	}
	within("a feed removed meanwhile", 0)
	if err := r.stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
}

// A feed that answers 301 moves to the target (feeds.Store.Absorb), and
// the poller plans its polls at the new URL from then on: the items
// posted there reach the feed, and the old URL is not polled again.
func TestAMovedFeedIsPolledAtItsNewURL(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test", "b.test")
	e, clk := fresh(t, cfg, w)
	w.set("a.test/feed.xml", "application/atom+xml", atom(2, t0))
	f, _, err := e.feeds.Add(t.Context(), "http://a.test/feed.xml", feeds.AddOptions{MaxInterval: new(time.Hour)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	e.start(t)
	minute := 0
	// until steps a minute at a time, reading the demands again after
	// an edit as Run does, until done holds, for at most 3 hours.
	until := func(what string, done func() bool) {
		t.Helper()
		for end := minute + 180; !done(); {
			if minute == end {
				t.Fatalf("%s: not within 3 hours", what)
			}
			minute++
			clk.Set(t0.Add(time.Duration(minute) * time.Minute))
			e.step(t)
			if err := e.p.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	postings := func() int {
		g, err := e.feeds.Get(f.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g.Postings
	}
	until("the first poll", func() bool { return postings() == 2 })
	w.redirect("a.test/feed.xml", 301, "http://b.test/feed.xml")
	w.set("b.test/feed.xml", "application/atom+xml", atom(3, t0.Add(time.Hour)))
	moved := 0
	for end := minute + 180; moved == 0; {
		if minute == end {
			t.Fatal("the move: not within 3 hours")
		}
		minute++
		clk.Set(t0.Add(time.Duration(minute) * time.Minute))
		_, in := e.step(t)
		moved = in.Moved
		if err := e.p.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if g, _ := e.feeds.Get(f.ID); moved != 1 || g.URL != "http://b.test/feed.xml" {
		t.Fatalf("after the 301: %d moved, the feed at %s; want 1 moved to http://b.test/feed.xml", moved, g.URL)
	}
	if g, _ := e.feeds.Get(f.ID); g.MovedFrom != "http://a.test/feed.xml" {
		t.Errorf("moved from %q, want http://a.test/feed.xml", g.MovedFrom)
	}
	oldPolls := w.count("a.test/feed.xml")
	w.set("b.test/feed.xml", "application/atom+xml", atom(4, t0.Add(2*time.Hour)))
	until("the 4th item, posted at the new URL", func() bool { return postings() == 4 })
	until("another poll of the new URL", func() bool { return w.count("b.test/feed.xml") >= 3 })
	if n := w.count("a.test/feed.xml"); n != oldPolls {
		t.Errorf("the old URL was polled %d more times after the move, want none", n-oldPolls)
	}
	if e.p.Due("http://a.test/feed.xml") != nil {
		t.Errorf("polls still planned at the old URL: %v", e.p.Due("http://a.test/feed.xml"))
	}
}

// redirectedFeed subscribes to http://a.test/feed.xml, polled at least
// hourly, which redirects (302) to http://b.test/feed.xml, a feed of 2
// items.
func redirectedFeed(t *testing.T, e *env, w *web) feeds.Feed {
	t.Helper()
	w.redirect("a.test/feed.xml", 302, "http://b.test/feed.xml")
	w.set("b.test/feed.xml", "application/atom+xml", atom(2, t0))
	f, _, err := e.feeds.Add(t.Context(), "http://a.test/feed.xml", feeds.AddOptions{MaxInterval: new(time.Hour)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A feed that answers a temporary redirect stays at its URL and reads
// the target: when the crawler has not fetched the target since the
// feed's poll, the poller asks for it, and the feed reads it once
// fetched.
func TestAFeedReadsTheTargetOfATemporaryRedirect(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test", "b.test")
	e, clk := fresh(t, cfg, w)
	f := redirectedFeed(t, e, w)
	e.start(t)
	minute, awaited := 0, 0
	until := func(what string, done func() bool) {
		t.Helper()
		for end := minute + 180; !done(); {
			if minute == end {
				t.Fatalf("%s: not within 3 hours", what)
			}
			minute++
			clk.Set(t0.Add(time.Duration(minute) * time.Minute))
			_, in := e.step(t)
			awaited += in.Awaited
		}
	}
	postings := func() int {
		g, err := e.feeds.Get(f.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g.Postings
	}
	until("the first read of the target", func() bool { return postings() == 2 })
	// The target is known now: the crawler does not queue it again for
	// the next redirect, and the poller asks for it.
	w.set("b.test/feed.xml", "application/atom+xml", atom(3, t0.Add(2*time.Hour)))
	until("the 3rd item, read through the redirect", func() bool { return postings() == 3 })
	if awaited == 0 {
		t.Errorf("no poll awaited the target, want the second to")
	}
	if g, _ := e.feeds.Get(f.ID); g.URL != "http://a.test/feed.xml" || g.MovedFrom != "" {
		t.Errorf("after temporary redirects the feed is at %s, moved from %q; want it at http://a.test/feed.xml", g.URL, g.MovedFrom)
	}
}

// A feed waiting for the target of a temporary redirect when the process
// ends still waits after a restart: the new poller asks for the target at
// once, rather than leaving the feed unread until its next planned poll.
func TestAFeedAwaitingATargetStillAwaitsItAfterARestart(t *testing.T) {
	w := newWeb(t)
	dir := t.TempDir()
	cfg := config(t, w, 1000, time.Hour, 0.5, time.Minute, "a.test", "b.test")
	clk := clock.NewManual(t0)
	e := open(t, dir, cfg, clk, w)
	f := redirectedFeed(t, e, w)
	e.start(t)
	postings := func() int {
		g, err := e.feeds.Get(f.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g.Postings
	}
	// until steps minute by minute until done says an instant's ingest
	// is what it waits for.
	minute := 0
	until := func(what string, done func(poll.Ingested) bool) {
		t.Helper()
		for end := minute + 180; ; {
			if minute == end {
				t.Fatalf("%s: not within 3 hours", what)
			}
			minute++
			clk.Set(t0.Add(time.Duration(minute) * time.Minute))
			if _, in := e.step(t); done(in) {
				return
			}
		}
	}
	until("the first read of the target", func(poll.Ingested) bool { return postings() == 2 })
	// The target is known now: the next poll awaits it, and the process
	// ends before the crawler fetched it.
	w.set("b.test/feed.xml", "application/atom+xml", atom(3, t0.Add(time.Hour)))
	targetFetches := w.count("b.test/feed.xml")
	until("a poll awaiting the target", func(in poll.Ingested) bool { return in.Awaited > 0 })
	if got := w.count("b.test/feed.xml"); got != targetFetches {
		t.Fatalf("the target requested %d times since the first read, want none yet: it is awaited", got-targetFetches)
	}
	e.close()

	e = open(t, dir, cfg, clk, w)
	e.start(t)
	polls := w.count("a.test/feed.xml")
	for range 3 {
		minute++
		clk.Set(t0.Add(time.Duration(minute) * time.Minute))
		e.step(t)
	}
	if got := postings(); got != 3 {
		t.Errorf("3 minutes after the restart the feed has read %d postings, want the 3rd, the awaited target's", got)
	}
	if got := w.count("a.test/feed.xml"); got != polls {
		t.Errorf("the feed's URL requested %d times after the restart, want none: the target is what was awaited", got-polls)
	}
}
