package poll_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// A feed served as text/plain (raw file hosting) is polled and its items
// stored: the poller tells the crawler its URL is a feed's, and the crawler
// reads it as a feed reader does. One served as a type no feed is read with,
// whose body is not XML, fails with an error naming the type. The same URL
// crawled as an ordinary page, by a crawl that polls no feeds, is refused as
// bad_content_type, and the items the feed stored are kept.
func TestAFeedServedAsTextPlainIsPolledAndItsItemsStored(t *testing.T) {
	w := newWeb(t)
	cfg := config(t, w, 100, time.Hour, 0.5, time.Hour, "a.test")
	e, clk := fresh(t, cfg, w)
	const plain, json = "http://a.test/feed.txt", "http://a.test/feed.json"
	w.set("a.test/feed.txt", "text/plain; charset=utf-8", atom(3, t0))
	w.set("a.test/feed.json", "application/json", `{"version": "https://jsonfeed.org/version/1.1", "items": []}`)
	fp, _, err := e.feeds.Add(t.Context(), plain, feeds.AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	fj, _, err := e.feeds.Add(t.Context(), json, feeds.AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	e.start(t)
	clk.Set(t0.Add(time.Hour))
	if _, in := e.step(t); in.URLs != 2 || in.NewItems != 3 {
		t.Errorf("ingested %+v, want 2 URLs and the text/plain feed's 3 items", in)
	}
	items, err := e.feeds.Items(t.Context(), fp.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Errorf("items stored of the feed served as text/plain = %d, want 3", len(items))
	}
	if f, err := e.feeds.Get(fp.ID); err != nil || f.LastError != "" {
		t.Errorf("feed served as text/plain: last error %q (%v), want none", f.LastError, err)
	}
	f, err := e.feeds.Get(fj.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "its Content-Type application/json is none of crawler.content_types"; !strings.Contains(f.LastError, want) {
		t.Errorf("feed served as application/json: last error %q, want it to say %q", f.LastError, want)
	}

	// An ordinary crawl of the same URL (no feeds polled) keeps
	// crawler.content_types.
	policy, err := frontier.NewPolicy(cfg.Frontier.Policy, cfg.Frontier, nil)
	if err != nil {
		t.Fatal(err)
	}
	ordinary, err := frontier.New(t.Context(), e.db, cfg.Frontier, e.c.Gate(), policy, frontier.Options{Clock: e.clk})
	if err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(2 * time.Hour))
	b := e.db.NewBatch(t.Context())
	it, err := ordinary.Enqueue(b, plain, repo.ReasonRecrawl, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	ordinary.Publish(it)
	before := w.count("a.test/feed.txt")
	e.f = ordinary
	e.crawl(t)
	if w.count("a.test/feed.txt") != before+1 {
		t.Fatalf("the ordinary crawl did not fetch %s", plain)
	}
	p, err := e.db.Page(plain)
	if err != nil {
		t.Fatal(err)
	}
	if p.LastOutcome != repo.OutcomeBadContentType || p.ContentType != "text/plain; charset=utf-8" {
		t.Errorf("crawled as an ordinary page: outcome %s, Content-Type %q; want bad_content_type, text/plain recorded", p.LastOutcome, p.ContentType)
	}
	if items, err := e.feeds.Items(t.Context(), fp.ID, time.Time{}); err != nil || len(items) != 3 {
		t.Errorf("items stored after the ordinary crawl's refusal = %d (%v), want the 3 kept", len(items), err)
	}
}
