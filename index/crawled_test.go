package index_test

import (
	"context"
	"net"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/repo"
)

// crawledSite is digitalgov-2023 crawled through the replay server, with
// the index following the repository.
type crawledSite struct {
	a   *archive.Archive
	rs  *replay.Server
	db  *repo.DB
	ix  *index.Index
	c   *crawler.Crawler
	f   *frontier.Frontier
	cfg *configs.Config
}

func crawlDigitalgov(t *testing.T) *crawledSite {
	a, rs := replaytest.Open(t, datasets.Path(t, "archives", "digitalgov-2023"), replay.Options{})
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	const host = "digitalgov-2023.test"
	cfg.Crawler.AllowPrivate = true
	cfg.Crawler.Resolve = []string{host + "=127.0.0.1:" + port}
	cfg.Crawler.Politeness.Overrides = []crawler.HostOverride{{Host: host, PerHost: 8}}
	cfg.Crawler.Politeness.Global = 8
	cfg.Frontier.Split.Recrawl = 1
	cfg.Frontier.Split.Monitor = 0 // no feeds or watches to poll
	cfg.Frontier.Spread = false
	dir := t.TempDir()
	db, err := repo.Open(filepath.Join(dir, "repo"), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix, err := index.Open(filepath.Join(dir, "index"), cfg.Index, db, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	c, err := crawler.New(cfg.Crawler, db, crawler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(context.Background(), db, cfg.Frontier, c.Gate(), frontier.Uniform{}, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &crawledSite{a: a, rs: rs, db: db, ix: ix, c: c, f: f, cfg: cfg}
	if _, err := c.Seed(context.Background(), f, []string{"http://" + host + "/"}); err != nil {
		t.Fatal(err)
	}
	s.crawl(t)
	return s
}

// crawl runs the crawler until drained, then brings the index up to date.
func (s *crawledSite) crawl(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := s.c.Run(ctx, s.f, crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ix.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
}

// terms analyzes text with the index's analyzer.
func (s *crawledSite) terms(text string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range s.ix.Analyzer().Analyze([]byte(text)) {
		out[string(tok.Term)] = true
	}
	return out
}

// searchable reports whether a query for the analyzed term searches for
// the term itself: the stemmer can shorten a stem again ("lenses" is
// indexed as "lens", and the query "lens" searches "len").
func (s *crawledSite) searchable(term string) bool {
	toks := s.ix.Analyzer().Analyze([]byte(term))
	return len(toks) == 1 && string(toks[0].Term) == term
}

// pageTerms returns the analyzed terms of every indexable page, from the
// repository's current versions (title and main text, as indexed).
func (s *crawledSite) pageTerms(t *testing.T) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for p, err := range s.db.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if !p.Indexable() {
			continue
		}
		v, err := s.db.VersionAt(p.URL, p.Version)
		if err != nil {
			t.Fatal(err)
		}
		text := v.Text
		if v.Title != "" {
			text = v.Title + "\n\n" + v.Text
		}
		out[p.URL] = s.terms(text)
	}
	return out
}

func (s *crawledSite) search(t *testing.T, q string) []string {
	pq, err := index.ParseQuery(q, s.cfg.Index.Limits())
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	res, err := s.ix.Search(context.Background(), pq, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, h := range res.Hits {
		urls = append(urls, h.URL)
	}
	slices.Sort(urls)
	return urls
}

// TestCrawledIndexAnswersLikeABruteForceScanAndFollowsTheWeeks crawls
// digitalgov-2023 week 0 through the replay server: for 50 short trec-mq
// queries the results equal a scan for the pages the coordination rule
// admits (every query term, or any when fewer than min_results pages have
// them all). It then
// re-crawls week 1: a changed page is found by its new words and no longer
// by the words it lost; and after the first week that deletes a page, that
// page is gone from the index.
func TestCrawledIndexAnswersLikeABruteForceScanAndFollowsTheWeeks(t *testing.T) {
	s := crawlDigitalgov(t)
	pages := s.pageTerms(t)
	// The week's pages minus Hugo's alias stubs, which say noindex.
	if n, _ := s.ix.Count(); int(n) != len(pages) || len(pages) < s.a.Len(0)*9/10 {
		t.Fatalf("index holds %d documents, the repository %d indexable pages, the week %d", n, len(pages), s.a.Len(0))
	}
	qs, err := querylog.Load(datasets.Path(t, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		t.Fatal(err)
	}
	checked, withResults := 0, 0
	for _, q := range qs {
		if checked == 50 {
			break
		}
		pq, err := index.ParseQuery(q.Text, s.cfg.Index.Limits())
		if err != nil || len(pq.Terms) == 0 || len(pq.Phrases)+len(pq.ExcludeTerms)+len(pq.Sites) > 0 {
			continue
		}
		want := []string{}
		terms := s.terms(q.Text)
		rc := s.cfg.Index.Retrieval
		if len(terms) == 0 || len(terms) > rc.ShortQueryTerms {
			continue // a long query is expanded by feedback: its pages are not a function of its words
		}
		var any []string
		for u, pt := range pages {
			all, some := true, false
			for term := range terms {
				all = all && pt[term]
				some = some || pt[term]
			}
			if all {
				want = append(want, u)
			}
			if some {
				any = append(any, u)
			}
		}
		if len(want) < rc.MinResults {
			want = any // the OR fallback
		}
		slices.Sort(want)
		// Every other query must match something, so the check is not all
		// empty sets.
		if len(want) == 0 && checked%2 == 1 {
			continue
		}
		got := s.search(t, q.Text)
		if got == nil {
			got = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: index found %d pages, a scan %d", q.Text, len(got), len(want))
		}
		checked++
		if len(want) > 0 {
			withResults++
		}
	}
	if checked < 50 || withResults < 25 {
		t.Fatalf("checked %d queries, %d with results", checked, withResults)
	}

	// Week 1: find a page whose text changed, with a word it gained and a
	// word it lost, and a page that disappeared.
	old := pages
	if err := s.rs.SetWeek(1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.f.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.crawl(t)
	now := s.pageTerms(t)
	var changed, gained, lost string
	for u, pt := range now {
		before, ok := old[u]
		if !ok {
			continue
		}
		g, l := rareDifference(pt, before, now, s.searchable), rareDifference(before, pt, now, s.searchable)
		if g != "" && l != "" {
			changed, gained, lost = u, g, l
			break
		}
	}
	if changed == "" {
		t.Fatal("no page changed its words between weeks 0 and 1")
	}
	if !slices.Contains(s.search(t, gained), changed) {
		t.Errorf("%s gained %q in week 1 but is not found by it", changed, gained)
	}
	if slices.Contains(s.search(t, lost), changed) {
		t.Errorf("%s lost %q in week 1 but is still found by it", changed, lost)
	}
	// A page of week 0 that the site later deleted: re-crawl the first
	// week without it (week 1 itself deletes nothing on this site).
	var gone string
	for w := 1; w < s.a.Weeks() && gone == ""; w++ {
		for u := range old {
			pu, err := url.Parse(u)
			if err != nil || pu.RawQuery != "" {
				continue // a static site serves ?query like the bare path
			}
			if _, ok := s.a.Lookup(pu.EscapedPath(), w); !ok {
				gone = u
				if err := s.rs.SetWeek(w); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	if gone == "" {
		t.Fatal("no page of week 0 is ever deleted")
	}
	if _, err := s.f.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.crawl(t)
	now = s.pageTerms(t)
	p, err := s.db.Page(gone)
	if err != nil || p.State != repo.StateGone {
		t.Fatalf("%s: state %v, %v; want gone", gone, p.State, err)
	}
	for term := range old[gone] {
		if slices.Contains(s.search(t, term), gone) {
			t.Fatalf("%s went 404 but is still found by %q", gone, term)
		}
		break
	}
	if n, _ := s.ix.Count(); int(n) != len(now) {
		t.Fatalf("index holds %d documents, the repository %d indexable pages", n, len(now))
	}
}

// rareDifference returns a term of a that b lacks and that searching
// finds (searchable), preferring one few pages hold so the search stays
// small; "" if none.
func rareDifference(a, b map[string]bool, all map[string]map[string]bool, searchable func(string) bool) string {
	best, bestN := "", 1<<30
	for term := range a {
		if b[term] || len(term) < 4 || !searchable(term) {
			continue
		}
		n := 0
		for _, pt := range all {
			if pt[term] {
				n++
			}
		}
		if n < bestN {
			best, bestN = term, n
		}
	}
	return best
}
