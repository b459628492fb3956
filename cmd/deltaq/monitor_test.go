package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// countedFeed serves an Atom feed of two entries on loopback and counts
// its requests.
func countedFeed(t *testing.T) (string, *atomic.Int64) {
	polls := new(atomic.Int64)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/feed.xml" {
			http.NotFound(w, r)
			return
		}
		polls.Add(1)
		w.Header().Set("Content-Type", "application/atom+xml")
		at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id><updated>%s</updated>`+
			`<entry><id>urn:2</id><title>two</title><updated>%s</updated></entry><entry><id>urn:1</id><title>one</title><updated>%s</updated></entry></feed>`, at, at, at)
	}))
	t.Cleanup(site.Close)
	return site.URL + "/feed.xml", polls
}

// A subscribed feed is polled by `deltaq crawl` through the frontier's
// monitoring class, and the poll's result reaches the feed store.
func TestCrawlPollsSubscribedFeedsThroughTheFrontier(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the feed is on loopback
	feed, polls := countedFeed(t)
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", feed, "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, _, err := run(t, "crawl", "--data", data)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	if !strings.Contains(out, "monitoring: 1 polls queued, 1 polled URLs read, 2 new feed items, 0 watch triggers, 0 failed") {
		t.Errorf("crawl summary lacks the monitoring line:\n%s", out)
	}
	if polls.Load() != 1 {
		t.Errorf("feed requested %d times, want 1", polls.Load())
	}
	out, _, err = run(t, "feeds", "list", "--data", data)
	if err != nil || !strings.Contains(out, feed) {
		t.Fatalf("feeds list: %v\n%s", err, out)
	}
	// The list's columns: id, url, weight, fetches, not modified, postings.
	fields := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1])
	if len(fields) < 6 || fields[3] != "1" || fields[5] != "2" {
		t.Fatalf("feeds list after the crawl: %q, want 1 fetch and 2 postings", out)
	}
	// Unsubscribed, by id, the feed is no longer polled.
	if out, _, err := run(t, "feeds", "rm", fields[0], "--data", data); err != nil || !strings.Contains(out, "(2 items removed)") {
		t.Fatalf("feeds rm: %v\n%s", err, out)
	}
	if _, _, err := run(t, "feeds", "rm", feed, "--data", data); err == nil || !strings.Contains(err.Error(), "unknown feed") {
		t.Errorf("feeds rm again, by URL: %v, want unknown feed", err)
	}
	if _, _, err := run(t, "crawl", "--data", data); err == nil || !strings.Contains(err.Error(), "nothing to crawl") {
		t.Errorf("crawl after feeds rm: %v, want nothing to crawl", err)
	}
	if polls.Load() != 1 {
		t.Errorf("feed requested %d times, want none after feeds rm", polls.Load()-1)
	}
}

// A feed subscribed after the crawler fetched its URL (a crawled page's
// link) gets the items of the copy the crawler stored at once, with no
// request: a poll then would answer 304 Not Modified to the crawler's
// conditional GET, and give none.
func TestAFeedCrawledBeforeItsSubscriptionGetsItsItems(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true")
	var full, notModified atomic.Int64
	at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/feed.xml" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id><updated>%s</updated>`+
			`<entry><id>urn:2</id><title>two</title><updated>%s</updated></entry><entry><id>urn:1</id><title>one</title><updated>%s</updated></entry></feed>`, at, at, at)
	}))
	defer site.Close()
	data := t.TempDir()
	if out, _, err := run(t, "crawl", "--data", data, "--seeds", site.URL+"/feed.xml"); err != nil {
		t.Fatalf("crawl before subscribing: %v\n%s", err, out)
	}
	if out, _, err := run(t, "feeds", "add", site.URL+"/feed.xml", "--data", data); err != nil || !strings.Contains(out, "2 postings known") {
		t.Fatalf("feeds add after the crawl: %v\n%s, want the 2 postings of the crawler's copy", err, out)
	}
	out, _, err := run(t, "feeds", "list", "--data", data)
	if fields := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); err != nil || len(fields) < 6 || fields[5] != "2" {
		t.Errorf("feeds list: %v\n%s, want 2 postings", err, out)
	}
	if full.Load() != 1 || notModified.Load() != 0 {
		t.Errorf("the feed answered %d full and %d not-modified requests, want the crawl's 1 alone", full.Load(), notModified.Load())
	}
}

// `deltaq feeds explain` shows the plan the poller made and follows: after
// a crawl, its next planned polls are the ones the poller stored.
func TestFeedsExplainShowsThePollersPlan(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/atom+xml")
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id>`)
		for i := range 30 { // a posting every 5 hours
			fmt.Fprintf(&b, `<entry><id>urn:%d</id><title>p</title><updated>%s</updated></entry>`, i,
				time.Now().Add(-time.Duration(5*i+1)*time.Hour).UTC().Format(time.RFC3339))
		}
		b.WriteString(`</feed>`)
		fmt.Fprint(w, b.String())
	}))
	defer site.Close()
	data := t.TempDir()
	u := site.URL + "/feed.xml"
	if out, _, err := run(t, "feeds", "add", u, "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, _, err := run(t, "feeds", "explain", u, "--data", data)
	if err != nil || !strings.Contains(out, "planned now: no poller plan") {
		t.Fatalf("feeds explain before any crawl: %v, want a plan made now:\n%s", err, out)
	}
	if out, _, err := run(t, "crawl", "--data", data); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	before := time.Now()
	out, _, err = run(t, "feeds", "explain", u, "--data", data)
	if err != nil {
		t.Fatalf("feeds explain: %v\n%s", err, out)
	}
	after := time.Now()
	cfg, db := openData(t, data)
	defer db.Close()
	st, err := feeds.NewStore(t.Context(), db, cfg.Feeds)
	if err != nil {
		t.Fatal(err)
	}
	f, err := st.Get(feeds.IDOf(u))
	if err != nil {
		t.Fatal(err)
	}
	p, made, ok, err := st.SavedPlan(f)
	if err != nil || !ok {
		t.Fatalf("the poller stored no plan: %v", err)
	}
	// explain lists the polls from its own now on, between before and
	// after: the plan's polls from either.
	head := fmt.Sprintf("next planned polls (UTC; the poller's plan of %s UTC): ", made.UTC().Format(time.DateTime))
	var wants []string
	for _, from := range []time.Time{before, after} {
		var next []string
		for _, at := range p.Next {
			if !at.Before(from) && len(next) < 8 {
				next = append(next, at.UTC().Format("Mon 15:04"))
			}
		}
		if len(next) == 0 {
			t.Fatalf("the poller's plan of %s has no poll ahead: %v", made, p.Next)
		}
		wants = append(wants, head+strings.Join(next, ", ")+"\n")
	}
	if !strings.Contains(out, wants[0]) && !strings.Contains(out, wants[1]) {
		t.Errorf("feeds explain after the crawl:\n%s\nwant the line %q", out, wants[0])
	}
}

// `deltaq feeds poll` fetches every subscribed feed once, the second time
// conditionally, waiting out the host's politeness delay between them; a
// feed it cannot fetch stays queued once, however often it is polled, and
// the summary says why.
func TestFeedsPollFetchesEveryFeedAndSaysWhyNot(t *testing.T) {
	var requests sync.Map // path → *atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := requests.LoadOrStore(r.URL.Path, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		if r.URL.Path != "/a.xml" && r.URL.Path != "/b.xml" {
			http.NotFound(w, r)
			return
		}
		const etag = `"v1"`
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/atom+xml")
		at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:%s</id><updated>%s</updated>`+
			`<entry><id>urn:%[1]s:2</id><title>two</title><updated>%[2]s</updated><link href="http://%[3]s/posts%[1]s/2"/></entry>`+
			`<entry><id>urn:%[1]s:1</id><title>one</title><updated>%[2]s</updated><link href="http://%[3]s/posts%[1]s/1"/></entry></feed>`,
			r.URL.Path, at, r.Host)
	}))
	defer site.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // its port now refuses connections
	data := t.TempDir()
	for _, u := range []string{site.URL + "/a.xml", site.URL + "/b.xml"} {
		if out, _, err := run(t, "feeds", "add", u, "--data", data); err != nil {
			t.Fatalf("feeds add %s: %v\n%s", u, err, out)
		}
	}
	poll := func(want string) string {
		t.Helper()
		out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private")
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("feeds poll: %v\n%s\nwant %q", err, out, want)
		}
		return out
	}
	polled := func(path string) int64 {
		n, ok := requests.Load(path)
		if !ok {
			return 0
		}
		return n.(*atomic.Int64).Load()
	}
	// Both feeds are on one host, so the second waits its turn (1 s).
	// The items' links and the host's sitemap are queued for a crawl, not
	// fetched by the poll.
	if out := poll("2 of 2 feeds fetched, 4 new items"); !strings.Contains(out, "not among the URLs asked for 5") {
		t.Errorf("the first poll does not leave the 4 items' links and the sitemap queued:\n%s", out)
	}
	poll("2 of 2 feeds fetched, 0 new items")
	if a, b := polled("/a.xml"), polled("/b.xml"); a != 2 || b != 2 {
		t.Errorf("feeds requested %d and %d times in two polls, want 2 each", a, b)
	}
	unreachable := gone.URL + "/c.xml"
	if out, _, err := run(t, "feeds", "add", unreachable, "--data", data); err != nil {
		t.Fatalf("feeds add %s: %v\n%s", unreachable, err, out)
	}
	for range 2 {
		out := poll("2 of 3 feeds fetched, 0 new items")
		if !strings.Contains(out, "robots.txt unreachable") {
			t.Errorf("feeds poll of an unreachable host does not say why:\n%s", out)
		}
	}
	out, _, err := run(t, "queue", "--data", data)
	if err != nil {
		t.Fatalf("queue: %v\n%s", err, out)
	}
	if n := strings.Count(out, unreachable); n != 1 {
		t.Errorf("the unreachable feed is queued %d times after two polls, want once:\n%s", n, out)
	}
	if !strings.Contains(out, site.URL+"/posts/a.xml/1") {
		t.Errorf("an item's link is not queued after the polls:\n%s", out)
	}
	requests.Range(func(path, _ any) bool {
		if p := path.(string); p != "/a.xml" && p != "/b.xml" && p != "/robots.txt" {
			t.Errorf("the polls requested %s: a poll fetches the feeds alone", p)
		}
		return true
	})
}

// A feed queued for a re-fetch later in the period (as `deltaq run` plans
// them) is polled now: `feeds poll` is asked for every feed at once.
func TestFeedsPollFetchesAFeedWhoseRefetchIsPlannedForLater(t *testing.T) {
	feed, polls := countedFeed(t)
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", feed, "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	if out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private"); err != nil || polls.Load() != 1 {
		t.Fatalf("first poll: %v, %d requests\n%s", err, polls.Load(), out)
	}

	cfg, db := openData(t, data)
	c, err := crawler.New(cfg.Crawler, db, crawler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(t.Context(), db, cfg.Frontier, c.Gate(), frontier.Uniform{}, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(t.Context())
	if _, err := f.Enqueue(b, feed, repo.ReasonRecrawl, time.Now().Add(40*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	db.Close()

	out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private")
	if err != nil || polls.Load() != 2 || !strings.Contains(out, "1 of 1 feeds fetched") {
		t.Errorf("second poll: %v, %d requests in all, want 2\n%s", err, polls.Load(), out)
	}
	if out, _, err := run(t, "queue", "--data", data); err != nil || strings.Contains(out, feed) {
		t.Errorf("the planned re-fetch is still queued after the poll fetched the feed: %v\n%s", err, out)
	}
}

// A feed whose fetch failed (HTTP 404) and one whose body is not a feed
// fail alike: neither is counted as fetched, both are named with why, and
// the poll exits non-zero after its summary.
func TestFeedsPollNamesTheFeedsThatFailedAndFails(t *testing.T) {
	feed, _ := countedFeed(t)
	site := strings.TrimSuffix(feed, "/feed.xml")
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, "<html><body>not a feed</body></html>")
	}))
	defer page.Close()
	gone, html := site+"/gone.xml", page.URL+"/page.xml"
	data := t.TempDir()
	for _, u := range []string{feed, gone, html} {
		if out, _, err := run(t, "feeds", "add", u, "--data", data); err != nil {
			t.Fatalf("feeds add %s: %v\n%s", u, err, out)
		}
	}
	out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private")
	if err == nil || !strings.Contains(err.Error(), "2 of 3 feeds failed") {
		t.Errorf("feeds poll with two failing feeds: err = %v, want 2 of 3 feeds failed", err)
	}
	for _, want := range []string{"1 of 3 feeds fetched, 2 new items, 2 failed\n", "  failed: " + gone + ": fetch outcome gone: HTTP 404\n",
		"  failed: " + html + ": feeds: not an RSS or Atom feed: the body is an HTML page\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("feeds poll:\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, "failed: "+feed) {
		t.Errorf("the feed that answered is named as failed:\n%s", out)
	}
}

// A feed that redirects for good is moved there, and the poll says so:
// the crawler does not follow a redirect within a fetch but queues the
// target, and the feed reads it. One served as text/plain is read as a
// feed; one served as a type neither a crawl nor a feed's poll reads, whose
// body is not XML, is named as failed with the type and the setting.
func TestFeedsPollNamesWhereAFeedRedirects(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old.xml":
			http.Redirect(w, r, "/new.xml", http.StatusMovedPermanently)
		case "/plain.xml":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>`)
		case "/feed.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"version": "https://jsonfeed.org/version/1.1", "items": []}`)
		case "/new.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><guid>a</guid><title>a</title></item></channel></rss>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	data := t.TempDir()
	for _, u := range []string{site.URL + "/old.xml", site.URL + "/plain.xml", site.URL + "/feed.json"} {
		if out, _, err := run(t, "feeds", "add", u, "--data", data); err != nil {
			t.Fatalf("feeds add: %v\n%s", err, out)
		}
	}
	out, _, err := run(t, "feeds", "poll", "--data", data, "--allow-private")
	for _, want := range []string{
		"  moved: " + site.URL + "/old.xml → " + site.URL + "/new.xml (HTTP 301)",
		"2 of 3 feeds fetched, 1 new items, 1 failed",
		"failed: " + site.URL + "/feed.json: fetch outcome bad_content_type: its Content-Type application/json is none of crawler.content_types",
	} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("feeds poll: %v\n%s\nwant %q", err, out, want)
		}
	}
}
