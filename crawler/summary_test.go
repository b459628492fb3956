package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

func TestSummarySaysWhyAHostWasRefusedAndKeepsItsURLsQueued(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(log.wrap(smallWeb(2, nil, nil)))
	defer srv.Close()
	cfg := defaults(t)
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Politeness.MinDelay = 0
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum := e.crawl(t, srv.URL+"/")
	host := strings.TrimPrefix(srv.URL, "http://")
	why, ok := sum.Refused[host]
	if !ok || !strings.Contains(why, "loopback address") || !strings.Contains(why, host) {
		t.Fatalf("Refused = %v, want %s named as a loopback address", sum.Refused, host)
	}
	if sum.Queued != 1 || sum.Left["address refused"] != 1 {
		t.Errorf("queued %d, left %v: want the seed left queued as refused", sum.Queued, sum.Left)
	}
	for _, want := range []string{"left queued: 1 URLs (address refused 1)", "refused by the address guard (crawler.allow_private is false): " + host} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}

	// Allowed now, a new crawl over the same repository resumes: the
	// refusal did not defer the host for robots.error_defer.
	cfg.Crawler.AllowPrivate = true
	c, err := crawler.New(cfg.Crawler, e.db, crawler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e = &env{cfg: cfg, db: e.db, c: c}
	e.f = e.frontier(t, frontier.Options{})
	sum = e.crawl(t)
	if len(sum.Refused) != 0 || sum.New != 4 {
		t.Errorf("resumed with allow_private: refused %v, %d new pages, want 4 (home, 2 pages, /private/secret)\n%s", sum.Refused, sum.New, sum)
	}
}

// crawlDisallowedAndThrottled crawls a.test, whose robots.txt disallows
// /private/, and b.test, whose home page answers 503 with a Retry-After
// beyond the drain horizon.
func crawlDisallowedAndThrottled(t *testing.T) (*env, crawler.Summary) {
	t.Helper()
	robots := map[string]string{"a.test": "User-agent: *\nDisallow: /private/\n"}
	throttle := func(host, path string, w http.ResponseWriter) bool {
		if host == "b.test" && path == "/" {
			w.Header().Set("Retry-After", "3600") // beyond the drain horizon
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	srv := httptest.NewServer(smallWeb(3, robots, throttle))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	loopback(cfg, srv, "a.test", "b.test")
	unpolite(cfg, 1, "a.test", "b.test")
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum := e.crawl(t, "http://a.test/", "http://b.test/")
	return e, sum
}

func TestSummaryCountsDisallowedApartFromErrorsAndSaysWhatIsLeft(t *testing.T) {
	_, sum := crawlDisallowedAndThrottled(t)

	if sum.Disallowed() != 1 {
		t.Errorf("disallowed = %d, want /private/secret", sum.Disallowed())
	}
	if _, ok := sum.Errors()["disallowed"]; ok {
		t.Errorf("robots.txt refusals counted as errors: %v", sum.Errors())
	}
	if sum.Errors()["throttled"] != 1 {
		t.Errorf("errors = %v, want the one 503", sum.Errors())
	}
	if sum.Queued != 1 || sum.Left["host backing off after 429/503"] != 1 {
		t.Errorf("queued %d, left %v: want b.test/ left queued, backing off", sum.Queued, sum.Left)
	}
	s := sum.String()
	for _, want := range []string{"disallowed by robots.txt: 1 URLs", "not fetched or errors: throttled 1", "left queued: 1 URLs (host backing off after 429/503 1)"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "errors: disallowed") {
		t.Errorf("summary lists disallowed among errors:\n%s", s)
	}
}

func TestURLRulesKeepURLsOutOfTheCrawl(t *testing.T) {
	cases := []struct {
		name             string
		include, exclude []string
		fetched          []string
		excluded         int64
	}{
		{"exclude", nil, []string{`/p[12]$`}, []string{"/", "/p0", "/p3", "/private/secret"}, 2},
		{"include", []string{`/p\d$`}, nil, []string{"/", "/p0", "/p1", "/p2", "/p3"}, 1},
		{"include and exclude", []string{`/p\d$`}, []string{`/p0$`}, []string{"/", "/p1", "/p2", "/p3"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var log requestLog
			srv := httptest.NewServer(log.wrap(smallWeb(4, nil, nil)))
			defer srv.Close()
			cfg := defaults(t)
			loopback(cfg, srv, "a.test")
			unpolite(cfg, 1, "a.test")
			cfg.Crawler.Sitemaps = false
			cfg.Crawler.Include, cfg.Crawler.Exclude = c.include, c.exclude
			e := newEnv(t, cfg, t.TempDir(), nil)
			sum := e.crawl(t, "http://a.test/")
			var got []string
			for _, r := range log.all() {
				if r.path != "/robots.txt" {
					got = append(got, r.path)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, c.fetched) {
				t.Errorf("fetched %v, want %v", got, c.fetched)
			}
			if sum.Excluded != c.excluded {
				t.Errorf("excluded %d, want %d", sum.Excluded, c.excluded)
			}
		})
	}
}

// TestIncludeRulesDoNotKeepOutTheSitemapsRobotsNames: the sitemaps
// robots.txt names are how pages are found, as robots.txt is, so include
// rules, which choose pages, do not keep them out: the page only a
// sitemap lists is found. An exclude rule still keeps a sitemap out.
func TestIncludeRulesDoNotKeepOutTheSitemapsRobotsNames(t *testing.T) {
	for _, c := range []struct {
		name    string
		exclude []string
		fetched []string
	}{
		// /sitemap.xml, the place sitemaps are looked for, is one too.
		{"include alone", nil, []string{"/", "/fromsitemap", "/sitemap.xml", "/sm.xml"}},
		{"the sitemaps excluded", []string{`sm\.xml`, `sitemap\.xml`}, []string{"/"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log requestLog
			srv := httptest.NewServer(log.wrap(smallWeb(2, nil, func(host, path string, w http.ResponseWriter) bool {
				switch path {
				case "/robots.txt":
					fmt.Fprint(w, "User-agent: *\nAllow: /\nSitemap: http://a.test/sm.xml\n")
				case "/sm.xml":
					w.Header().Set("Content-Type", "application/xml")
					fmt.Fprint(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/fromsitemap</loc></url></urlset>`)
				case "/sitemap.xml":
					http.NotFound(w, nil)
				default:
					return false
				}
				return true
			})))
			defer srv.Close()
			cfg := defaults(t)
			loopback(cfg, srv, "a.test")
			unpolite(cfg, 1, "a.test")
			cfg.Crawler.Sitemaps = true
			cfg.Crawler.Include, cfg.Crawler.Exclude = []string{`/fromsitemap$`, `^http://a\.test/$`}, c.exclude
			e := newEnv(t, cfg, t.TempDir(), nil)
			e.crawl(t, "http://a.test/")
			var got []string
			for _, r := range log.all() {
				if r.path != "/robots.txt" {
					got = append(got, r.path)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, c.fetched) {
				t.Errorf("fetched %v, want %v", got, c.fetched)
			}
		})
	}
}

func TestHostsReportsPagesQueueRobotsAndBackoffPerHost(t *testing.T) {
	e, _ := crawlDisallowedAndThrottled(t)
	hosts, err := crawler.Hosts(t.Context(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 2 || hosts[0].Host != "a.test" || hosts[1].Host != "b.test" {
		t.Fatalf("hosts = %+v", hosts)
	}
	a, b := hosts[0], hosts[1]
	// a.test: home, 3 pages, /private/secret disallowed.
	if a.Pages != 5 || a.ByState["live"] != 4 || a.ByOutcome["disallowed"] != 1 || a.Queued != 0 || a.RobotsStatus != 200 {
		t.Errorf("a.test = %+v", a)
	}
	if b.Pages != 1 || b.Queued != 1 || b.ByOutcome["throttled"] != 1 || !b.BackoffUntil.After(time.Now()) || b.RobotsStatus != 404 || !b.RobotsDeferredUntil.IsZero() {
		t.Errorf("b.test = %+v", b)
	}
}

// TestARobotsFailureInARowDefersTwiceAsLong: each failure of a host's
// robots.txt in a row defers it twice as long as the last, so a one-pass
// crawl, which waits for hosts deferred within its horizon, ends even
// when crawler.robots.error_defer is far shorter than the horizon: 100ms,
// 200ms, 400ms, 800ms, then 1.6s, past the horizon of 1s.
func TestARobotsFailureInARowDefersTwiceAsLong(t *testing.T) {
	var robotsAsked atomic.Int32
	srv := httptest.NewServer(smallWeb(1, nil, func(host, path string, w http.ResponseWriter) bool {
		if path == "/robots.txt" {
			robotsAsked.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "c.test")
	unpolite(cfg, 1, "c.test")
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Robots.ErrorDefer = 100 * time.Millisecond
	e := newEnv(t, cfg, t.TempDir(), nil)
	if _, err := e.c.Seed(t.Context(), e.f, []string{"http://c.test/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sum, err := e.c.Run(ctx, e.f, crawler.RunOptions{Drain: true, DrainHorizon: time.Second})
	if err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v, %v; want it to end", err, ctx.Err())
	}
	if n := robotsAsked.Load(); n != 5 || sum.Left["robots.txt unreachable, host deferred"] != 1 {
		t.Errorf("robots.txt asked %d times, left %v; want 5 times, then the seed left queued", n, sum.Left)
	}
	hosts, err := crawler.Hosts(t.Context(), e.db)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("hosts %+v, %v", hosts, err)
	}
	if d := hosts[0].RobotsDeferredUntil.Sub(hosts[0].RobotsFetched); d != 1600*time.Millisecond {
		t.Errorf("the last failure deferred the host %s, want 1.6s", d)
	}
}

// A host whose robots.txt answers 503 is deferred for
// crawler.robots.error_defer without a page's back-off: Hosts says until
// when, so the listing need not show it as waiting on nothing.
func TestHostsReportsARobotsDeferral(t *testing.T) {
	srv := httptest.NewServer(smallWeb(1, nil, func(host, path string, w http.ResponseWriter) bool {
		if path == "/robots.txt" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "c.test")
	unpolite(cfg, 1, "c.test")
	cfg.Crawler.Sitemaps = false
	e := newEnv(t, cfg, t.TempDir(), nil)
	before := time.Now()
	sum := e.crawl(t, "http://c.test/")
	if sum.Left["robots.txt unreachable, host deferred"] != 1 {
		t.Fatalf("left %v: want the seed left queued, its host deferred", sum.Left)
	}
	hosts, err := crawler.Hosts(t.Context(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 1 {
		t.Fatalf("hosts = %+v", hosts)
	}
	h, deferral := hosts[0], cfg.Crawler.Robots.ErrorDefer
	if h.RobotsStatus != http.StatusServiceUnavailable || !h.BackoffUntil.IsZero() ||
		h.RobotsDeferredUntil.Before(before.Add(deferral)) || h.RobotsDeferredUntil.After(time.Now().Add(deferral)) {
		t.Errorf("c.test = %+v, want robots.txt 503, no back-off, deferred for %s from the fetch", h, deferral)
	}
}

// TestSummaryOfAStoppedRunCountsWhatIsLeft stops a long-running crawl (no
// drain) while its host's politeness delay keeps seeds waiting: the summary
// counts them without a reason, since such a run does not scan its queue
// for why, rather than giving an empty one.
func TestSummaryOfAStoppedRunCountsWhatIsLeft(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(log.wrap(smallWeb(1, nil, nil)))
	defer srv.Close()
	cfg := defaults(t)
	cfg.Crawler.Sitemaps = false
	loopback(cfg, srv, "a.test")
	e := newEnv(t, cfg, t.TempDir(), nil)
	if _, err := e.c.Seed(t.Context(), e.f, []string{"http://a.test/p1", "http://a.test/p2", "http://a.test/p3"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan crawler.Summary, 1)
	go func() {
		sum, err := e.c.Run(ctx, e.f, crawler.RunOptions{})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- sum
	}()
	for deadline := time.Now().Add(20 * time.Second); pagesRequested(log.all()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no seed fetched within 20s; requests: %v", log.all())
		}
	}
	cancel()
	sum := <-done
	if errs := sum.Errors(); len(errs) > 0 {
		t.Errorf("errors %v: every seed is a page", errs)
	}
	if sum.Queued == 0 || len(sum.Left) != 0 {
		t.Fatalf("queued %d, left %v: want seeds left queued by politeness, no reasons scanned", sum.Queued, sum.Left)
	}
	s := sum.String()
	if want := fmt.Sprintf("left queued: %d URLs\n", sum.Queued); !strings.Contains(s, want) {
		t.Errorf("summary lacks %q:\n%s", want, s)
	}
}

// pagesRequested counts the requests for pages, not robots.txt.
func pagesRequested(reqs []request) int {
	n := 0
	for _, r := range reqs {
		if r.path != "/robots.txt" {
			n++
		}
	}
	return n
}

// smallWebCrawl serves smallWeb(3) on a.test (no sitemaps, perHost
// requests at once) and seeds a crawler over it; the log has every request.
func smallWebCrawl(t *testing.T, perHost int, seeds ...string) (*env, *requestLog) {
	t.Helper()
	return smallWebCrawlWith(t, nil, perHost, seeds...)
}

// smallWebCrawlWith is smallWebCrawl with robots.txt bodies by host.
func smallWebCrawlWith(t *testing.T, robots map[string]string, perHost int, seeds ...string) (*env, *requestLog) {
	t.Helper()
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(smallWeb(3, robots, nil)))
	t.Cleanup(srv.Close)
	cfg := defaults(t)
	cfg.Crawler.Sitemaps = false
	loopback(cfg, srv, "a.test")
	unpolite(cfg, perHost, "a.test")
	e := newEnv(t, cfg, t.TempDir(), nil)
	if _, err := e.c.Seed(t.Context(), e.f, seeds); err != nil {
		t.Fatal(err)
	}
	return e, log
}

// runWithin runs a crawl on f that must end within a minute.
func runWithin(t *testing.T, e *env, f *frontier.Frontier, ro crawler.RunOptions) crawler.Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sum, err := e.c.Run(ctx, f, ro)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the run did not end")
	}
	return sum
}

// A crawl on a frontier confined to some URLs (frontier.Options.Only, as
// `deltaq feeds poll` builds it) fetches those alone: what they link to
// and what was queued before stay queued for a crawl, and the summary
// says why.
func TestAConfinedFrontierFetchesItsURLsAndQueuesWhatTheyLinkTo(t *testing.T) {
	const home = "http://a.test/"
	e, log := smallWebCrawl(t, 1, "http://a.test/p1", home)
	drain := crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second}

	sum := runWithin(t, e, e.frontier(t, frontier.Options{Only: func(url string) bool { return url == home }}), drain)
	if n := pagesRequested(log.all()); n != 1 || log.count("a.test", "/") != 1 || sum.Fetched() != 1 {
		t.Errorf("%d pages requested, %d fetched: want the home page alone: %v\n%s", n, sum.Fetched(), log.all(), sum)
	}
	if sum.Queued != 4 || sum.Left["not among the URLs asked for"] != 4 { // /p0, /p1, /p2, /private/secret
		t.Errorf("queued %d, left %v: want the 4 links, left as not asked for\n%s", sum.Queued, sum.Left, sum)
	}
	if sum := runWithin(t, e, e.frontier(t, frontier.Options{}), drain); sum.Fetched() != 4 {
		t.Errorf("the crawl after fetched %d pages, want the 4 left queued\n%s", sum.Fetched(), sum)
	}
}

// A run stops at MaxPages: the pages it fetches are no more than that,
// though more could start at once, and none are the links of its last
// page. It leaves the frontier as it found it: the next run fetches what
// was left, rather than waiting for ever on a job handed out as the first
// stopped.
func TestMaxPagesFetchesThatManyAndTheNextRunTakesTheRest(t *testing.T) {
	for _, c := range []struct {
		seeds []string
		limit int
	}{
		{[]string{"http://a.test/"}, 1},
		{[]string{"http://a.test/", "http://a.test/p0", "http://a.test/p1", "http://a.test/p2"}, 2},
	} {
		t.Run(fmt.Sprintf("%d seeds", len(c.seeds)), func(t *testing.T) {
			e, log := smallWebCrawl(t, 4, c.seeds...)
			sum := runWithin(t, e, e.f, crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second, MaxPages: c.limit})
			if n := pagesRequested(log.all()); n != c.limit || sum.Fetched() != int64(c.limit) {
				t.Errorf("MaxPages %d: %d pages requested, %d fetched\n%s", c.limit, n, sum.Fetched(), sum)
			}
			if sum.Queued < 1 || sum.Left["run stopped early"] != int64(sum.Queued) {
				t.Errorf("queued %d, left %v: want all left as stopped early\n%s", sum.Queued, sum.Left, sum)
			}
			e.crawl(t)
			for _, path := range []string{"/", "/p0", "/p1", "/p2"} {
				if n := log.count("a.test", path); n != 1 {
					t.Errorf("%s requested %d times over both runs, want once", path, n)
				}
			}
		})
	}
}

// A poll that hands out entries planned for later (frontier.Options.DueNow)
// and runs out of budget says so of what it leaves, not that it was not
// due: it would have fetched it now.
func TestADueNowRunThatSpendsItsBudgetSaysSo(t *testing.T) {
	e, log := smallWebCrawl(t, 1, "http://a.test/")
	e.crawl(t)
	before := pagesRequested(log.all())
	// One fetch left in the period (the crawl's are counted in it).
	e.cfg.Frontier.Budget.Fetches = e.f.Stats().BudgetUsed + 1
	planned := []string{"http://a.test/p0", "http://a.test/p1"}
	b := e.db.NewBatch(t.Context())
	for _, u := range planned {
		if _, err := e.f.Enqueue(b, u, repo.ReasonRecrawl, time.Now().Add(40*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()

	held := func(url string) bool { return slices.Contains(planned, url) }
	sum := runWithin(t, e, e.frontier(t, frontier.Options{Only: held, DueNow: true}),
		crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second})
	if n := pagesRequested(log.all()) - before; n != 1 {
		t.Errorf("%d pages requested, want the one the budget has left", n)
	}
	if sum.Left["budget of the period spent"] != 1 || sum.Left["not due yet"] != 0 {
		t.Errorf("left %v: want the other planned page left for the budget\n%s", sum.Left, sum)
	}
}

// A URL robots.txt disallows makes no request: it is not counted as a
// page fetched, it spends none of the budget, and it takes none of
// MaxPages, so a run told to fetch 4 pages fetches 4.
func TestADisallowedURLIsNeitherFetchedNorSpent(t *testing.T) {
	// The disallowed URL is a seed, so that it comes before the pages
	// home links to: home, /p0, /p1 and /p2 are the 4 pages.
	e, log := smallWebCrawlWith(t, map[string]string{"a.test": "User-agent: *\nDisallow: /private/\n"}, 1,
		"http://a.test/private/secret", "http://a.test/")
	sum := runWithin(t, e, e.f, crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second, MaxPages: 4})
	if n := pagesRequested(log.all()); n != 4 || sum.Fetched() != 4 {
		t.Errorf("%d pages requested, %d counted as fetched: want 4 of each\n%s", n, sum.Fetched(), sum)
	}
	if sum.Disallowed() != 1 {
		t.Errorf("%d disallowed, want /private/secret\n%s", sum.Disallowed(), sum)
	}
	spent := int64(0)
	for _, n := range sum.ByClass {
		spent += n
	}
	if used := e.f.Stats().BudgetUsed; spent != 4 || used != 4 {
		t.Errorf("budget spent %d (summary), %d (frontier): want the 4 pages fetched\n%s", spent, used, sum)
	}
}
