package feeds

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/deltaq/deltaq/repo"
)

func testConfig() Config {
	return Config{Step: 5 * time.Minute, Starts: 4, MinInterval: 15 * time.Minute, MaxInterval: 7 * 24 * time.Hour,
		Clusters: 3, ClusterMinPostings: 10, ClusterIterations: 20, PriorWeight: 20, Floor: 0.05, RateCount: 0.5,
		SeenKept: 50, HistoryKept: 100, MaxItems: 40, MaxBytes: 32 << 20, ClockSkew: 5 * time.Minute, LearnWindow: 8 * 7 * 24 * time.Hour, PollsPerDay: 1}
}

func openStore(t *testing.T, fs vfs.FS, dir string) (*Store, *repo.DB) {
	t.Helper()
	opts := repo.Options{}
	if fs != nil {
		opts.FS = fs
	}
	db, err := repo.Open(dir, repo.Config{VersionsKept: 1, FetchLogKept: 2, StatsKept: 1, CacheBytes: 1 << 20}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(t.Context(), db, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

// atom renders an Atom feed of entries "e<n>" published at the given times,
// newest first as feeds list them.
func atom(published ...time.Time) []byte { return atomFrom(0, published) }

// atomFrom numbers the entries from first.
func atomFrom(first int, published []time.Time) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:f</id><updated>2025-01-01T00:00:00Z</updated>`)
	for i := len(published) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `<entry><id>urn:e%d</id><title>e%d</title><link href="http://x.test/e%d"/><updated>%s</updated></entry>`,
			first+i, first+i, first+i, published[i].Format(time.RFC3339))
	}
	b.WriteString(`</feed>`)
	return []byte(b.String())
}

var t0 = time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)

func TestRecordDedupesAndLearnsPostingTimes(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	f, _, err := s.Add(t.Context(), "http://x.test/feed.atom", AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	first := []time.Time{t0.Add(-3 * time.Hour), t0.Add(-2 * time.Hour)}
	up, err := s.Record(t.Context(), f.ID, Fetch{At: t0, Status: 200, ETag: `"a"`, Body: atom(first...)})
	if err != nil || len(up.New) != 2 {
		t.Fatalf("first fetch: %d new, %v; want 2", len(up.New), err)
	}
	// One more item, one in the future (1 day ahead), one back-dated before the last fetch.
	at := t0.Add(time.Hour)
	next := append(first, at.Add(-10*time.Minute), at.Add(24*time.Hour), t0.Add(-5*time.Hour))
	up, err = s.Record(t.Context(), f.ID, Fetch{At: at, Status: 200, ETag: `"b"`, Body: atom(next...)})
	if err != nil || len(up.New) != 3 {
		t.Fatalf("second fetch: %d new, %v; want 3 (the two seen are not new)", len(up.New), err)
	}
	posted := map[string]time.Time{}
	for _, it := range up.New {
		posted[it.Key] = it.Posted
	}
	if p := posted["g:urn:e2"]; !p.Equal(at.Add(-10 * time.Minute)) {
		t.Errorf("plausible item posted at %s, want its published time", p)
	}
	if p := posted["g:urn:e3"]; !p.Equal(at) {
		t.Errorf("future-dated item posted at %s, want the first-seen time %s", p, at)
	}
	if p := posted["g:urn:e4"]; !p.Equal(at) {
		t.Errorf("back-dated item posted at %s, want the first-seen time %s", p, at)
	}
	got, err := s.Get(f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != `"b"` || len(got.Seen) != 5 || len(got.History) != 5 || len(got.Delays) != 3 || got.Fetches != 2 {
		t.Fatalf("feed after two fetches: etag %s, %d seen, %d history, %d delays, %d fetches", got.ETag, len(got.Seen), len(got.History), len(got.Delays), got.Fetches)
	}
	if _, err := s.Record(t.Context(), f.ID, Fetch{At: at.Add(time.Hour), Status: 304}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(f.ID); got.NotModified != 1 || got.ETag != `"b"` {
		t.Errorf("after a 304: %d not modified, etag %s", got.NotModified, got.ETag)
	}
	items, err := s.Items(t.Context(), f.ID, time.Time{})
	if err != nil || len(items) != 5 {
		t.Fatalf("Items = %d, %v; want 5", len(items), err)
	}
}

func TestBadFeedsLoseNothing(t *testing.T) {
	many := make([]time.Time, 100000)
	for i := range many {
		many[i] = t0.Add(time.Duration(i-len(many)) * time.Second)
	}
	cases := []struct {
		name  string
		body  []byte
		want  error  // errors.Is target, or nil for a bounded success
		text  string // in the error
		trunc int
	}{
		{"malformed XML", []byte(`<?xml version="1.0"?><rss version="2.0"><channel><item><title>x</ti`), nil, "malformed feed", 0},
		{"turned into HTML", []byte("<!DOCTYPE html><html><body>Moved</body></html>"), ErrNotAFeed, "HTML page", 0},
		{"not a feed", []byte("plain text, no markup"), ErrNotAFeed, "", 0},
		{"100,000 items", atom(many...), nil, "", 100000 - 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, db := openStore(t, vfs.NewMem(), "")
			defer db.Close()
			f, _, _ := s.Add(t.Context(), "http://x.test/feed", AddOptions{}, t0)
			if _, err := s.Record(t.Context(), f.ID, Fetch{At: t0, Status: 200, ETag: `"good"`, Body: atom(t0.Add(-time.Hour))}); err != nil {
				t.Fatal(err)
			}
			up, err := s.Record(t.Context(), f.ID, Fetch{At: t0.Add(time.Hour), Status: 200, ETag: `"bad"`, Body: c.body})
			got, _ := s.Get(f.ID)
			switch {
			case c.trunc > 0:
				if err != nil || up.Truncated != c.trunc || len(got.Seen) > testConfig().SeenKept {
					t.Fatalf("err %v, truncated %d (want %d), %d seen (bound %d)", err, up.Truncated, c.trunc, len(got.Seen), testConfig().SeenKept)
				}
				items, _ := s.Items(t.Context(), f.ID, time.Time{})
				if len(items) > testConfig().SeenKept {
					t.Fatalf("%d items stored, bound %d", len(items), testConfig().SeenKept)
				}
				return
			case err == nil:
				t.Fatal("no error")
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("err = %v, want %v", err, c.want)
			case !strings.Contains(err.Error(), c.text) || !strings.Contains(err.Error(), "http://x.test/feed"):
				t.Fatalf("err = %q, want it to name the feed and say %q", err, c.text)
			}
			items, _ := s.Items(t.Context(), f.ID, time.Time{})
			if got.ETag != `"good"` || len(got.Seen) != 1 || len(items) != 1 || got.LastError == "" {
				t.Fatalf("after a bad body: etag %s, %d seen, %d items, last error %q; the good state must stay", got.ETag, len(got.Seen), len(items), got.LastError)
			}
		})
	}
}

func TestParseLimitsBytes(t *testing.T) {
	_, err := Parse(make([]byte, 2048), 1024, 10)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2048 bytes, limit 1024") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseReadsRSSAndAtom(t *testing.T) {
	rss1 := `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://x.test/"><title>one</title><link>http://x.test/</link><description>d</description></channel>
<item rdf:about="http://x.test/a"><title>A</title><link>http://x.test/a</link><dc:date>2025-03-01T10:00:00Z</dc:date></item></rdf:RDF>`
	rss2 := `<?xml version="1.0"?><rss version="2.0"><channel><title>two</title>
<item><title>A</title><guid>id-a</guid><pubDate>Sat, 01 Mar 2025 10:00:00 GMT</pubDate></item>
<item><title>B</title><description>no guid, no link</description></item></channel></rss>`
	for _, c := range []struct {
		body string
		keys []string
	}{
		{rss1, []string{"l:http://x.test/a"}},
		{rss2, []string{"g:id-a", "h:"}},
		{string(atom(t0)), []string{"g:urn:e0"}},
	} {
		p, err := Parse([]byte(c.body), 1<<20, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != len(c.keys) {
			t.Fatalf("%d items, want %d", len(p.Items), len(c.keys))
		}
		for i, k := range c.keys {
			if !strings.HasPrefix(p.Items[i].Key, k) {
				t.Errorf("item %d key %q, want prefix %q", i, p.Items[i].Key, k)
			}
		}
		if p.Items[0].Published.IsZero() {
			t.Errorf("item 0 has no published time")
		}
	}
}

// TestAddAgainKeepsWhatItIsNotGiven re-adds a feed with its own settings,
// as importing a list that holds it does: the settings not given stay the
// feed's, not the defaults, and so do its state; a weight that is not a
// finite positive number is refused, naming it, with nothing changed.
func TestAddAgainKeepsWhatItIsNotGiven(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const u = "http://x.test/feed"
	if _, isNew, err := s.Add(t.Context(), u, AddOptions{Weight: new(3.0), MinInterval: new(time.Hour), MaxInterval: new(48 * time.Hour)}, t0); err != nil || !isNew {
		t.Fatalf("first subscription: new %t, %v", isNew, err)
	}
	if _, err := s.Record(t.Context(), IDOf(u), Fetch{At: t0, Status: 200, Body: atom(t0.Add(-time.Hour))}); err != nil {
		t.Fatal(err)
	}
	f, isNew, err := s.Add(t.Context(), u, AddOptions{}, t0.Add(time.Hour))
	if err != nil || isNew {
		t.Fatalf("added again: new %t, %v; want not new", isNew, err)
	}
	if f.Weight != 3 || f.MinInterval != time.Hour || f.MaxInterval != 48*time.Hour || f.Fetches != 1 || !f.Added.Equal(t0) {
		t.Errorf("added again with no options: %+v, want weight 3, every 1h to 48h, 1 fetch, added %v", f, t0)
	}
	f, _, err = s.Add(t.Context(), u, AddOptions{MaxInterval: new(24 * time.Hour)}, t0)
	if err != nil || f.Weight != 3 || f.MinInterval != time.Hour || f.MaxInterval != 24*time.Hour {
		t.Errorf("added again with a max interval: %+v, %v; want weight 3, every 1h to 24h", f, err)
	}
	for _, c := range []struct {
		o       AddOptions
		setting string
	}{
		{AddOptions{Weight: new(math.Inf(1))}, "weight"},
		{AddOptions{Weight: new(math.NaN())}, "weight"},
		{AddOptions{Weight: new(0.0)}, "weight"},
		{AddOptions{Weight: new(-1.0)}, "weight"},
		{AddOptions{MinInterval: new(time.Duration(0))}, "min_interval"},
		{AddOptions{MaxInterval: new(-time.Hour)}, "max_interval"},
		{AddOptions{MinInterval: new(25 * time.Hour)}, "min_interval"}, // over the feed's own max, 24h
	} {
		_, _, err := s.Add(t.Context(), u, c.o, t0)
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != c.setting {
			t.Errorf("%+v: %v, want a SettingError naming %s", c.o, err, c.setting)
		}
	}
	if _, _, err := s.Add(t.Context(), "ftp://x.test/feed", AddOptions{}, t0); !strings.Contains(fmt.Sprint(err), `url = "ftp://x.test/feed"`) {
		t.Errorf("an ftp URL: %v, want an error naming the url", err)
	}
	// A URL over the length limit: the limit is named, and the URL is
	// repeated only in part.
	long := "http://x.test/" + strings.Repeat("a", 3000)
	if _, _, err := s.Add(t.Context(), long, AddOptions{}, t0); err == nil || !strings.HasSuffix(err.Error(), "must be an absolute http or https URL of at most 2048 bytes") || len(err.Error()) > 400 {
		t.Errorf("a 3,014-byte URL: %.500v, want an error of a few hundred bytes naming the 2048-byte limit", err)
	}
	if f, err := s.Get(IDOf(u)); err != nil || f.Weight != 3 || f.MinInterval != time.Hour || f.MaxInterval != 24*time.Hour {
		t.Errorf("after the refusals: %+v, %v; want weight 3, every 1h to 24h", f, err)
	}
	if f, _, err := s.Add(t.Context(), "http://y.test/feed", AddOptions{}, t0); err != nil || f.Weight != 1 || f.MinInterval != 15*time.Minute || f.MaxInterval != 7*24*time.Hour {
		t.Errorf("a new feed with no options: %+v, %v; want the defaults", f, err)
	}
}

// TestRemoveTakesTheFeedAndOnlyIt unsubscribes from one of two polled
// feeds: its record, items and plan go, the other's stay, and a poll of
// the removed one that lands afterwards stores nothing.
func TestRemoveTakesTheFeedAndOnlyIt(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	ids := subscribe(t, s, "http://x.test/a.atom", "http://x.test/b.atom")
	for _, id := range ids {
		if _, err := s.Record(t.Context(), id, Fetch{At: t0, Status: 200, Body: atom(t0.Add(-2*time.Hour), t0.Add(-time.Hour))}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	plans, err := PlanAll(testConfig(), list, t0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SavePlans(t.Context(), t0, plans); err != nil {
		t.Fatal(err)
	}
	gone, items, err := s.Remove(t.Context(), ids[0])
	if err != nil || gone.URL != "http://x.test/a.atom" || items != 2 {
		t.Fatalf("Remove: %s with %d items, %v; want a.atom with 2", gone.URL, items, err)
	}
	if _, err := s.Get(ids[0]); !errors.Is(err, ErrUnknownFeed) {
		t.Errorf("Get after Remove: %v, want ErrUnknownFeed", err)
	}
	if _, _, ok, err := s.SavedPlan(gone); ok || err != nil {
		t.Errorf("the removed feed's plan: ok %v, %v; want gone", ok, err)
	}
	if its, err := s.Items(t.Context(), ids[0], time.Time{}); err != nil || len(its) != 0 {
		t.Errorf("the removed feed's items: %d, %v; want none", len(its), err)
	}
	river, err := s.River(t.Context(), time.Time{}, 10)
	if err != nil || len(river) != 2 || river[0].FeedID != ids[1] {
		t.Errorf("river after Remove: %+v, %v; want b.atom's 2 items alone", river, err)
	}
	if _, err := s.Record(t.Context(), ids[0], Fetch{At: t0.Add(time.Hour), Status: 200, Body: atom(t0)}); !errors.Is(err, ErrUnknownFeed) {
		t.Errorf("a poll landing after Remove: %v, want ErrUnknownFeed", err)
	}
	if list, _ := s.List(t.Context()); len(list) != 1 || list[0].ID != ids[1] {
		t.Errorf("feeds after Remove: %+v, want b.atom alone", list)
	}
	if _, _, err := s.Remove(t.Context(), ids[0]); !errors.Is(err, ErrUnknownFeed) {
		t.Errorf("Remove again: %v, want ErrUnknownFeed", err)
	}
}

// TestAFeedReadsTheCrawlersCopy subscribes to a feed the crawler has
// fetched already: the copy it stored gives the feed its items at once, a
// later fetch that finds the copy unchanged adds nothing, and a copy the
// feed has not read is read though the fetch answered 304.
func TestAFeedReadsTheCrawlersCopy(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	// crawled stores what the crawler would after fetching u at at: a 200
	// storing body as a new copy, or a 304 keeping the copy of copyAt.
	crawled := func(u string, at, copyAt time.Time, body []byte) {
		t.Helper()
		b := db.NewBatch(t.Context())
		defer b.Close()
		p := &repo.Page{URL: u, State: repo.StateLive, LastFetch: at, Version: copyAt, LastOutcome: repo.OutcomeOK, HTTPStatus: 200, ETag: `"v1"`}
		if body == nil {
			p.LastOutcome, p.HTTPStatus = repo.OutcomeNotModified, 304
		} else if err := b.AddVersion(u, &repo.Version{FetchedAt: at, ContentType: "application/atom+xml", Body: body}); err != nil {
			t.Fatal(err)
		}
		if err := b.PutPage(p); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	const u = "http://x.test/feed.atom"
	crawled(u, t0, t0, atom(t0.Add(-2*time.Hour), t0.Add(-time.Hour)))
	f, _, err := s.Add(t.Context(), u, AddOptions{}, t0.Add(time.Hour))
	if err != nil || len(f.History) != 2 || !f.Read.Equal(t0) {
		t.Fatalf("subscribed after the crawler fetched it: %d postings, read %v, %v; want the copy's 2, read %v", len(f.History), f.Read, err, t0)
	}
	crawled(u, t0.Add(2*time.Hour), t0, nil)
	if up, absorbed, err := s.Absorb(t.Context(), f.ID); err != nil || !absorbed || len(up.New) != 0 {
		t.Errorf("a 304 on the copy read: %d new, absorbed %v, %v; want none new", len(up.New), absorbed, err)
	}
	// A second feed, subscribed before any copy; the crawler stores one
	// while the feed is not polled (a crawl without the monitoring class),
	// then its poll answers 304.
	const u2 = "http://x.test/other.atom"
	f2, _, err := s.Add(t.Context(), u2, AddOptions{}, t0)
	if err != nil || len(f2.History) != 0 || f2.Fetches != 0 {
		t.Fatalf("subscribed before any copy: %+v, %v", f2, err)
	}
	crawled(u2, t0.Add(time.Hour), t0.Add(time.Hour), atom(t0))
	crawled(u2, t0.Add(2*time.Hour), t0.Add(time.Hour), nil)
	up, absorbed, err := s.Absorb(t.Context(), f2.ID)
	if err != nil || !absorbed || len(up.New) != 1 {
		t.Fatalf("a 304 on a copy the feed has not read: %d new, absorbed %v, %v; want its 1 item", len(up.New), absorbed, err)
	}
	if f2, _ = s.Get(f2.ID); f2.LastStatus != 304 || f2.NotModified != 1 || !f2.Read.Equal(t0.Add(time.Hour)) {
		t.Errorf("after it: last status %d, %d not modified, read %v; want 304, 1, %v", f2.LastStatus, f2.NotModified, f2.Read, t0.Add(time.Hour))
	}
}

func TestCollectorExportsDelays(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	f, _, _ := s.Add(t.Context(), "http://x.test/feed", AddOptions{}, t0)
	s.Record(t.Context(), f.ID, Fetch{At: t0, Status: 200, Body: atom(t0.Add(-time.Hour))})
	s.Record(t.Context(), f.ID, Fetch{At: t0.Add(2 * time.Hour), Status: 200, Body: atom(t0.Add(-time.Hour), t0.Add(time.Hour))})
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "deltaq_feed_delay_seconds" {
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != 1 || h.GetSampleSum() != 3600 {
			t.Fatalf("delay histogram: %d samples, sum %g; want one delay of an hour", h.GetSampleCount(), h.GetSampleSum())
		}
		return
	}
	t.Fatal("no deltaq_feed_delay_seconds")
}

func TestDiscoverOffersAdvertisedFeeds(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	b := db.NewBatch(t.Context())
	for _, p := range []struct {
		url   string
		links []repo.Link
	}{
		{"http://a.test/", []repo.Link{{URL: "http://a.test/feed.xml", Kind: repo.LinkFeed}, {URL: "http://a.test/about", Kind: repo.LinkAnchor}}},
		{"http://a.test/post", []repo.Link{{URL: "http://a.test/feed.xml", Kind: repo.LinkFeed}, {URL: "http://a.test/comments.xml", Kind: repo.LinkFeed}}},
		{"http://b.test/", []repo.Link{{URL: "http://b.test/atom", Kind: repo.LinkFeed}}},
	} {
		if err := b.PutPage(&repo.Page{URL: p.url}); err != nil {
			t.Fatal(err)
		}
		if err := b.SetOutLinks(p.url, p.links); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, _, err := s.Add(t.Context(), "http://b.test/atom", AddOptions{}, t0); err != nil {
		t.Fatal(err)
	}
	offers, err := s.Discover(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(offers) != 2 || offers[0].URL != "http://a.test/feed.xml" || offers[0].Pages != 2 || offers[1].URL != "http://a.test/comments.xml" {
		t.Fatalf("offers %+v: want a.test's two feeds, the one on two pages first, and not the subscribed b.test/atom", offers)
	}
}

// TestRiverIsNewestFirstAndFollowsTheItems reads the river of two feeds:
// newest first by first-seen time and, among one poll's items, by posting
// time (the items' keys alone would order them by a hash); cut at the limit
// and at since; without the items trimmed past feeds.seen_kept or removed
// with their feed; and the same after the index is rebuilt from the items,
// as for a repository written before the index.
func TestRiverIsNewestFirstAndFollowsTheItems(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	ids := subscribe(t, s, "http://x.test/a.atom", "http://x.test/b.atom")
	// a: two polls of 30 items each, one a minute apart, 60 > seen_kept
	// (50); b: one poll of 5 items, between a's two.
	published := func(first time.Time, n int) []time.Time {
		ts := make([]time.Time, n)
		for i := range ts {
			ts[i] = first.Add(time.Duration(i) * time.Minute)
		}
		return ts
	}
	polls := []struct {
		feed  int
		at    time.Time
		first int
		times []time.Time
	}{
		{0, t0, 0, published(t0.Add(-2*time.Hour), 30)},
		{1, t0.Add(time.Minute), 0, published(t0.Add(-time.Hour), 5)},
		{0, t0.Add(2 * time.Minute), 30, published(t0.Add(-90*time.Minute), 30)},
	}
	for _, p := range polls {
		if _, err := s.Record(t.Context(), ids[p.feed], Fetch{At: p.at, Status: 200, Body: atomFrom(p.first, p.times)}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		all, err := s.River(t.Context(), time.Time{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 50+5 {
			t.Fatalf("%s: river of %d items, want a's newest 50 and b's 5", when, len(all))
		}
		for i := 1; i < len(all); i++ {
			if itemOrder(all[i-1], all[i]) <= 0 {
				t.Fatalf("%s: river item %d (%s first seen %s, posted %s) before %d (%s, %s, %s)", when,
					i-1, all[i-1].Key, all[i-1].FirstSeen, all[i-1].Posted, i, all[i].Key, all[i].FirstSeen, all[i].Posted)
			}
		}
		if all[0].Key != "g:urn:e59" || all[29].Key != "g:urn:e30" || all[30].Key != "g:urn:e4" || all[54].Key != "g:urn:e10" {
			t.Errorf("%s: river runs %s…%s, %s…%s; want a's e59…e30, then b's e4…e0, then a's e29…e10", when, all[0].Key, all[29].Key, all[30].Key, all[54].Key)
		}
		if top, err := s.River(t.Context(), time.Time{}, 3); err != nil || len(top) != 3 || top[2].Key != "g:urn:e57" {
			t.Errorf("%s: river of 3: %+v, %v; want e59, e58, e57", when, top, err)
		}
		if since, err := s.River(t.Context(), t0, 1000); err != nil || len(since) != 35 || since[34].FeedID != ids[1] {
			t.Errorf("%s: river since a's first poll: %d items, %v; want the 35 of the two later polls", when, len(since), err)
		}
		items, err := s.Items(t.Context(), ids[1], time.Time{})
		if err != nil || len(items) != 5 || items[0].Key != "g:urn:e0" || items[4].Key != "g:urn:e4" {
			t.Errorf("%s: b's items %+v, %v; want e0…e4, oldest first", when, items, err)
		}
		if i, r := countKeys(t, db, "i/"), countKeys(t, db, "r/"); i != 55 || r != 55 {
			t.Errorf("%s: %d items and %d river entries stored, want 55 of each", when, i, r)
		}
	}
	check("as written")

	// Drop the index and its mark, as a repository written before it.
	b := db.NewBatch(t.Context())
	for kv, err := range db.BucketScan(t.Context(), Bucket, "r/") {
		if err != nil {
			t.Fatal(err)
		}
		b.DeleteBucket(Bucket, string(kv[0]))
	}
	b.DeleteBucket(Bucket, riverIndexed)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if all, err := s.River(t.Context(), time.Time{}, 1000); err != nil || len(all) != 0 {
		t.Fatalf("river without its index: %d items, %v", len(all), err)
	}
	s, err := NewStore(t.Context(), db, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	check("rebuilt")

	if _, _, err := s.Remove(t.Context(), ids[0]); err != nil {
		t.Fatal(err)
	}
	if all, err := s.River(t.Context(), time.Time{}, 1000); err != nil || len(all) != 5 || countKeys(t, db, "r/") != 5 {
		t.Errorf("river after removing a: %d items (%d entries), %v; want b's 5", len(all), countKeys(t, db, "r/"), err)
	}
}

// subscribe adds the feeds at t0 and returns their ids.
func subscribe(t *testing.T, s *Store, urls ...string) []string {
	t.Helper()
	var ids []string
	for _, u := range urls {
		f, _, err := s.Add(t.Context(), u, AddOptions{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	return ids
}

// countKeys counts the feed bucket's keys that start with prefix.
func countKeys(t *testing.T, db *repo.DB, prefix string) int {
	t.Helper()
	n := 0
	for _, err := range db.BucketScan(t.Context(), Bucket, prefix) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestListsAreKeptApart polls a feed and reads it back: Get and List
// carry its item keys and posting times, Subscriptions and Subscription
// only their count, from a record that does not hold them; a record written
// before the lists were kept apart is moved when the store opens, and reads
// the same; Remove takes the lists too.
func TestListsAreKeptApart(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	ids := subscribe(t, s, "http://x.test/a.atom", "http://x.test/b.atom")
	if _, err := s.Record(t.Context(), ids[0], Fetch{At: t0, Status: 200, Body: atom(t0.Add(-3*time.Hour), t0.Add(-2*time.Hour), t0.Add(-time.Hour))}); err != nil {
		t.Fatal(err)
	}
	full, err := s.Get(ids[0])
	if err != nil || len(full.Seen) != 3 || len(full.History) != 3 || full.Postings != 3 {
		t.Fatalf("Get: %d seen, %d history, %d postings, %v; want 3 of each", len(full.Seen), len(full.History), full.Postings, err)
	}
	check := func(when string) {
		t.Helper()
		v, err := db.Bucket(Bucket, "f/"+ids[0])
		if err != nil || strings.Contains(string(v), `"history"`) || strings.Contains(string(v), `"seen"`) {
			t.Errorf("%s: the feed's record holds its lists: %s (%v)", when, v, err)
		}
		subs, err := s.Subscriptions(t.Context())
		if err != nil || len(subs) != 2 {
			t.Fatalf("%s: Subscriptions: %d, %v", when, len(subs), err)
		}
		one, err := s.Subscription(ids[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []Feed{subs[slices.IndexFunc(subs, func(f Feed) bool { return f.ID == ids[0] })], one} {
			if f.Seen != nil || f.History != nil || f.Postings != 3 || f.Fetches != 1 || f.URL != full.URL {
				t.Errorf("%s: subscription %+v; want no lists, 3 postings, 1 fetch", when, f)
			}
		}
		list, err := s.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got := list[slices.IndexFunc(list, func(f Feed) bool { return f.ID == ids[0] })]
		if !slices.Equal(got.Seen, full.Seen) || !slices.EqualFunc(got.History, full.History, time.Time.Equal) || got.Postings != 3 {
			t.Errorf("%s: List's feed %v %v, want Get's %v %v", when, got.Seen, got.History, full.Seen, full.History)
		}
	}
	check("as written")

	// The record as stored before: the lists inside, none apart, no mark.
	old, err := encode(full)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(t.Context())
	b.PutBucket(Bucket, "f/"+ids[0], old)
	b.DeleteBucket(Bucket, "l/"+ids[0])
	b.DeleteBucket(Bucket, listsApart)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if f, err := s.Subscription(ids[0]); err != nil || f.Seen != nil || f.Postings != 3 {
		t.Errorf("an old record's subscription: %d seen, %d postings, %v; want none and 3", len(f.Seen), f.Postings, err)
	}
	if f, err := s.Get(ids[0]); err != nil || len(f.Seen) != 3 || len(f.History) != 3 {
		t.Errorf("Get of an old record: %d seen, %d history, %v; want 3 of each", len(f.Seen), len(f.History), err)
	}
	s, err = NewStore(t.Context(), db, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	check("moved")

	if _, _, err := s.Remove(t.Context(), ids[0]); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, db, "l/"); n != 1 {
		t.Errorf("after Remove: %d feeds' lists stored, want b's alone", n)
	}
}

// Items reads a feed's items first seen after since: an item first seen
// at since itself is not after it, and a since before 1970 or beyond the
// keys' range reads all or none.
func TestItemsSince(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	f, _, err := s.Add(t.Context(), "http://x.test/feed.atom", AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := s.Add(t.Context(), "http://y.test/feed.atom", AddOptions{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	// Three polls of two new items each, an hour apart; the other feed's
	// items sort after this one's and must not be read with them.
	for poll := range 3 {
		at := t0.Add(time.Duration(poll) * time.Hour)
		published := []time.Time{at.Add(-2 * time.Minute), at.Add(-time.Minute)}
		for _, id := range []string{f.ID, other.ID} {
			if _, err := s.Record(t.Context(), id, Fetch{At: at, Status: 200, Body: atomFrom(2*poll, published)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name  string
		since time.Time
		want  []string
	}{
		{"zero", time.Time{}, []string{"e0", "e1", "e2", "e3", "e4", "e5"}},
		{"before 1970", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), []string{"e0", "e1", "e2", "e3", "e4", "e5"}},
		{"at the second poll", t0.Add(time.Hour), []string{"e4", "e5"}},
		{"just before it", t0.Add(time.Hour - time.Nanosecond), []string{"e2", "e3", "e4", "e5"}},
		{"after the last", t0.Add(2 * time.Hour), nil},
		{"year 9999", time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), nil},
	} {
		items, err := s.Items(t.Context(), f.ID, c.since)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			if it.FeedID != f.ID {
				t.Errorf("%s: item %s of feed %s", c.name, it.Key, it.FeedID)
			}
			got = append(got, strings.TrimPrefix(it.Key, "g:urn:"))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: items %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRemoveThenAddStartsFromZero removes a feed the crawler polled and
// subscribes to it again: nothing of the removed feed is left (record,
// lists, items, river entries, plan), and the new subscription does not
// take the copy the removed feed had read back from the crawler; the next
// fetch, though it answers 304, gives it the items as new.
func TestRemoveThenAddStartsFromZero(t *testing.T) {
	s, db := openStore(t, vfs.NewMem(), "")
	defer db.Close()
	const u = "http://x.test/feed.atom"
	crawled := func(at, copyAt time.Time, body []byte) {
		t.Helper()
		b := db.NewBatch(t.Context())
		defer b.Close()
		p := &repo.Page{URL: u, State: repo.StateLive, LastFetch: at, Version: copyAt, LastOutcome: repo.OutcomeOK, HTTPStatus: 200, ETag: `"v1"`}
		if body == nil {
			p.LastOutcome, p.HTTPStatus = repo.OutcomeNotModified, 304
		} else if err := b.AddVersion(u, &repo.Version{FetchedAt: at, ContentType: "application/atom+xml", Body: body}); err != nil {
			t.Fatal(err)
		}
		if err := b.PutPage(p); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	f, _, err := s.Add(t.Context(), u, AddOptions{}, t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	crawled(t0, t0, atom(t0.Add(-2*time.Hour), t0.Add(-time.Hour)))
	if up, _, err := s.Absorb(t.Context(), f.ID); err != nil || len(up.New) != 2 {
		t.Fatalf("first poll: %d new, %v; want 2", len(up.New), err)
	}
	list, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	plans, err := PlanAll(testConfig(), list, t0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SavePlans(t.Context(), t0, plans); err != nil {
		t.Fatal(err)
	}
	if _, items, err := s.Remove(t.Context(), f.ID); err != nil || items != 2 {
		t.Fatalf("Remove: %d items, %v; want 2", items, err)
	}
	for _, prefix := range []string{"f/", "l/", "i/", "r/", "p/"} {
		if n := countKeys(t, db, prefix); n != 0 {
			t.Errorf("%d keys under %q after Remove, want none", n, prefix)
		}
	}
	f, isNew, err := s.Add(t.Context(), u, AddOptions{}, t0.Add(time.Hour))
	if err != nil || !isNew || f.Fetches != 0 || f.Postings != 0 || len(f.Seen) != 0 || !f.LastFetch.IsZero() || f.Title != "" {
		t.Fatalf("subscribed again: new %v, %d fetches, %d postings, %d seen, last fetch %v, title %q, %v; want a feed never polled",
			isNew, f.Fetches, f.Postings, len(f.Seen), f.LastFetch, f.Title, err)
	}
	if items, err := s.Items(t.Context(), f.ID, time.Time{}); err != nil || len(items) != 0 {
		t.Errorf("items subscribed again: %d, %v; want none", len(items), err)
	}
	if river, err := s.River(t.Context(), time.Time{}, 10); err != nil || len(river) != 0 {
		t.Errorf("river subscribed again: %d, %v; want none", len(river), err)
	}
	if _, absorbed, err := s.Absorb(t.Context(), f.ID); err != nil || absorbed {
		t.Errorf("the removed feed's fetch: absorbed %v, %v; want not taken", absorbed, err)
	}
	crawled(t0.Add(2*time.Hour), t0, nil)
	if up, absorbed, err := s.Absorb(t.Context(), f.ID); err != nil || !absorbed || len(up.New) != 2 {
		t.Errorf("the first poll subscribed again, a 304: %d new, absorbed %v, %v; want the 2 items", len(up.New), absorbed, err)
	}
	if n := countKeys(t, db, "x/"); n != 0 {
		t.Errorf("%d removal marks once subscribed again, want none", n)
	}
}

// TestFetchFailureSaysWhy: a failed fetch whose outcome's name alone does
// not say what went wrong is explained, with the setting or the header
// that decided it.
func TestFetchFailureSaysWhy(t *testing.T) {
	for _, c := range []struct {
		p    repo.Page
		want string
	}{
		{repo.Page{LastOutcome: repo.OutcomeTooLarge}, "crawler.limits.max_body_bytes"},
		{repo.Page{LastOutcome: repo.OutcomeBadEncoding}, "Content-Encoding is none the crawler undoes"},
		{repo.Page{LastOutcome: repo.OutcomeTimeout}, "crawler.timeouts"},
		{repo.Page{LastOutcome: repo.OutcomeBadContentType, ContentType: "image/png"}, "its Content-Type image/png is none of crawler.content_types"},
		{repo.Page{LastOutcome: repo.OutcomeHTTPError, HTTPStatus: 500}, "HTTP 500"},
	} {
		if got := fetchFailure(c.p); !strings.Contains(got, c.want) {
			t.Errorf("fetchFailure(outcome %s) = %q, want %q", c.p.LastOutcome, got, c.want)
		}
	}
}
