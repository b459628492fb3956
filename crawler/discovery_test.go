package crawler_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// TestNewPagesFoundThroughChainsAreCreditedToTheOldPage re-fetches an old
// page that now links to a new page, which links to another new page only
// it links to: both are in N(x) of the old page (thesis §3.2).
func TestNewPagesFoundThroughChainsAreCreditedToTheOldPage(t *testing.T) {
	page := func(body string) string { return "<html><title>t</title><body>" + body + "</body></html>" }
	fx := archivetest.Fixture{Name: "chain", Weeks: 2, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: page(`<a href="/old.html">old</a>`)},
		{URL: "/", First: 1, Last: 1, Body: page(`<a href="/old.html">old</a> <a href="/new1.html">new</a>`)},
		{URL: "/new1.html", First: 1, Last: 1, Body: page(`<a href="/new2.html">deeper</a>`)},
		{URL: "/new2.html", First: 1, Last: 1, Body: page("end of the chain")},
		{URL: "/old.html", First: 0, Last: 1, Body: page("unchanged")},
	}}
	rs, srv := serveFixture(t, fx)

	cfg := defaults(t)
	loopback(cfg, srv, "chain.test")
	unpolite(cfg, 2, "chain.test")
	cfg.Crawler.Sitemaps = false
	cfg.Frontier.Split.Recrawl = 1
	cfg.Frontier.Split.Monitor = 0 // no feeds or watches to poll
	cfg.Frontier.Spread = false
	db, err := repo.Open(t.TempDir(), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	seen := map[string][]string{}
	c, err := crawler.New(cfg.Crawler, db, crawler.Options{OnYield: func(x string, y repo.DiscoveryYield) {
		mu.Lock()
		seen[x] = append(seen[x], y.New...)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(context.Background(), db, cfg.Frontier, c.Gate(), frontier.Uniform{}, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cfg: cfg, db: db, c: c, f: f}
	e.crawl(t, "http://chain.test/")
	rs.SetWeek(1)
	if _, err := f.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.crawl(t)

	want := []string{"http://chain.test/new1.html", "http://chain.test/new2.html"}
	ys, err := db.DiscoveryYields(context.Background(), "http://chain.test/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, y := range ys {
		got = append(got, y.New...)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("N(/) stored = %v, want %v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(seen["http://chain.test/"])
	if !slices.Equal(seen["http://chain.test/"], want) {
		t.Fatalf("OnYield for / = %v, want %v", seen["http://chain.test/"], want)
	}
	if _, ok := seen["http://chain.test/old.html"]; !ok {
		t.Fatal("the re-fetch of old.html, which found nothing, was not reported")
	}
	if n := len(seen["http://chain.test/new1.html"]); n != 0 {
		t.Fatalf("new1.html, itself new, was credited with %d pages", n)
	}
	p, _ := db.Page("http://chain.test/new2.html")
	if p.Root != "http://chain.test/" || p.Source != "http://chain.test/new1.html" {
		t.Fatalf("new2.html: root %q source %q", p.Root, p.Source)
	}
}
