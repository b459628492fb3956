package ranking

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fakeRetriever returns n candidates with falling relevance.
type fakeRetriever struct {
	cands []Candidate
	err   error
}

func newFakeRetriever(n int) *fakeRetriever {
	f := &fakeRetriever{}
	for i := range n {
		f.cands = append(f.cands, Candidate{
			URL:       fmt.Sprintf("http://site%d.test/page", i),
			Title:     fmt.Sprintf("page %d", i),
			Relevance: float64(n - i),
		})
	}
	return f
}

func (f *fakeRetriever) Retrieve(_ context.Context, _ string, limit int) ([]Candidate, int, error) {
	if f.err != nil {
		return nil, 0, f.err
	}
	return f.cands[:min(limit, len(f.cands))], len(f.cands), nil
}

func newSearcher(t testing.TB, cfg Config, r Retriever, st StatsReader) *Searcher {
	t.Helper()
	s, err := NewSearcher(cfg, r, st, testSecret, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSearchPagesAreSlicesOfOneList(t *testing.T) {
	_, store := openStore(t, testConfig(), nil)
	retr := newFakeRetriever(95)
	// Half the pages have been clicked by a monitored user: they are out of
	// the selective pool.
	for i, c := range retr.cands {
		if i%2 == 0 {
			if _, err := store.RecordClick(t.Context(), c.URL, "someone"); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := testConfig()
	cfg.Promotion = PromotionConfig{Rule: RuleSelective, K: 2, R: 0.3}
	s := newSearcher(t, cfg, retr, store)
	const user, query = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "go pebble"

	whole, err := s.Search(t.Context(), user, query, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Candidates != 95 || whole.Total != 95 || len(whole.Results) != 95 {
		t.Fatalf("whole list: %d candidates, %d total, %d results", whole.Candidates, whole.Total, len(whole.Results))
	}
	var paged []Result
	for p := 1; ; p++ {
		pg, err := s.Search(t.Context(), user, " GO  pebble", p, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Results) == 0 {
			if p != 11 {
				t.Fatalf("results ran out at page %d, want after page 10", p)
			}
			break
		}
		for _, r := range pg.Results {
			if link := s.Signer().Link(Click{Target: r.URL, Query: "GO  pebble", Rank: r.Rank, User: user}); r.ClickURL != link {
				t.Fatalf("page %d: click link of %s:\n got %s\nwant %s", p, r.URL, r.ClickURL, link)
			}
		}
		paged = append(paged, pg.Results...)
	}
	urls := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.URL)
		}
		return out
	}
	if !slices.Equal(urls(paged), urls(whole.Results)) {
		t.Fatal("pages 1..10 are not consecutive slices of the one merged list")
	}

	promoted := 0
	for i, r := range whole.Results {
		if r.Rank != i+1 {
			t.Fatalf("result %d has rank %d", i, r.Rank)
		}
		if r.Promoted {
			promoted++
			var n int
			fmt.Sscanf(r.URL, "http://site%d.test/page", &n)
			if n%2 == 0 {
				t.Fatalf("%s was clicked by a monitored user but promoted", r.URL)
			}
		}
		want := Click{Target: r.URL, Query: query, Rank: r.Rank, User: user}
		c, err := s.Signer().Verify(rawQuery(r.ClickURL))
		if err != nil || c != want {
			t.Fatalf("click link of %s verifies to %+v, %v", r.URL, c, err)
		}
		// The page's links, written in one buffer, are Link's.
		if link := s.Signer().Link(want); r.ClickURL != link {
			t.Fatalf("click link of %s:\n got %s\nwant %s", r.URL, r.ClickURL, link)
		}
	}
	if promoted == 0 {
		t.Fatal("nothing was promoted at r = 0.3")
	}
	if whole.Results[0].Promoted {
		t.Fatal("k = 2 must protect the top result")
	}

	other, err := s.Search(t.Context(), "ZYXWVUTSRQPONMLKJIHGFEDCBA", query, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(urls(other.Results), urls(whole.Results)) {
		t.Fatal("another user got the same shuffle")
	}
}

func TestSearchWithoutPromotionIsTheDeterministicOrder(t *testing.T) {
	_, store := openStore(t, testConfig(), nil)
	cfg := testConfig()
	cfg.Promotion.Rule = RuleNone
	s := newSearcher(t, cfg, newFakeRetriever(30), store)
	pg, err := s.Search(t.Context(), "u", "q", 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range pg.Results {
		if want := fmt.Sprintf("http://site%d.test/page", 10+i); r.URL != want || r.Promoted {
			t.Fatalf("result %d = %s (promoted %v), want %s by relevance", i, r.URL, r.Promoted, want)
		}
	}
}

func TestSearchRejectsRequestsOutsideItsLimits(t *testing.T) {
	_, store := openStore(t, testConfig(), nil)
	s := newSearcher(t, testConfig(), newFakeRetriever(5), store)
	for _, c := range []struct {
		name        string
		user, query string
		page, size  int
		field, want string
	}{
		{"an empty query", "u", "  ", 1, 10, "query", "query = 0 bytes: must be 1 to 4096 bytes"},
		{"an oversized query", "u", strings.Repeat("q", MaxQueryLen+1), 1, 10, "query", fmt.Sprintf("query = %d bytes", MaxQueryLen+1)},
		{"a missing user", "", "q", 1, 10, "user", "user = 0 bytes: must be 1 to 128 bytes"},
		{"page zero", "u", "q", 0, 10, "page", "page = 0: must be in [1, 1000]"},
		{"a page past the candidates", "u", "q", 1001, 1, "page", "page = 1001: must be in [1, 1000]"},
		{"a size past the candidates", "u", "q", 1, 1001, "size", "size = 1001: must be in [1, 1000]"},
	} {
		t.Run(c.name+" is a bad request", func(t *testing.T) {
			_, err := s.Search(t.Context(), c.user, c.query, c.page, c.size)
			var re *RequestError
			if !errors.Is(err, ErrBadRequest) || !errors.As(err, &re) || re.Field != c.field || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a RequestError of %s naming %q", err, c.field, c.want)
			}
		})
	}
	t.Run("a retriever failure is wrapped", func(t *testing.T) {
		boom := errors.New("index closed")
		s := newSearcher(t, testConfig(), &fakeRetriever{err: boom}, store)
		if _, err := s.Search(t.Context(), "u", "q", 1, 10); !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("duplicate candidates appear once", func(t *testing.T) {
		r := newFakeRetriever(3)
		r.cands = append(r.cands, r.cands[0])
		s := newSearcher(t, testConfig(), r, store)
		pg, err := s.Search(t.Context(), "u", "q", 1, 10)
		if err != nil || len(pg.Results) != 3 {
			t.Fatalf("%d results, %v", len(pg.Results), err)
		}
	})
}

// TestOrderIsSearchOnCandidatesRetrievedElsewhere: a caller that retrieved
// the candidates itself gets the page Search gives, and the same refusal
// of a request outside the limits; with OrderDistinct, whichever order the
// candidates come in (the index hands them over unsorted).
func TestOrderIsSearchOnCandidatesRetrievedElsewhere(t *testing.T) {
	_, store := openStore(t, testConfig(), nil)
	retr := newFakeRetriever(45)
	cfg := testConfig()
	cfg.Promotion = PromotionConfig{Rule: RuleSelective, K: 2, R: 0.3}
	s := newSearcher(t, cfg, retr, store)
	cands, total, err := retr.Retrieve(t.Context(), "go pebble", s.Candidates())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for page := 1; page <= 5; page++ {
		want, err := s.Search(t.Context(), "someone", "go pebble", page, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Order(t.Context(), "someone", " go pebble ", cands, total, page, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Results) == 0 || got.Total != want.Total || got.Candidates != want.Candidates || !slices.Equal(got.Results, want.Results) {
			t.Fatalf("page %d: Order %+v, Search %+v", page, got, want)
		}
		shuffled := slices.Clone(cands)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got, err = s.OrderDistinct(t.Context(), "someone", "go pebble", shuffled, total, page, 10); err != nil {
			t.Fatal(err)
		}
		if got.Total != want.Total || got.Candidates != want.Candidates || !slices.Equal(got.Results, want.Results) {
			t.Fatalf("page %d: OrderDistinct on shuffled candidates %+v, Search %+v", page, got, want)
		}
	}
	if _, err := s.Order(t.Context(), "someone", "go pebble", cands, total, 0, 10); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("page 0: %v, want ErrBadRequest", err)
	}
}

// TestKeyedCandidatesReadTheStoresStatistics: candidates numbered in a
// key space get the statistics Lookup gives by URL, after clicks on
// pages the Store had no statistics for, a PageRank computation, and a
// new key space that numbers the pages differently.
func TestKeyedCandidatesReadTheStoresStatistics(t *testing.T) {
	db, store := openStore(t, testConfig(), nil)
	retr := newFakeRetriever(30)
	s := newSearcher(t, testConfig(), retr, store)
	keyed := func(space uint64, perm []int) []Candidate {
		out := slices.Clone(retr.cands)
		for i := range out {
			out[i].Space, out[i].Key = space, uint32(perm[i])
		}
		return out
	}
	check := func(what string, cands []Candidate) map[string]PageStats {
		t.Helper()
		byURL := func(cands []Candidate) map[string]PageStats {
			items, err := s.score(t.Context(), cands, new(orderScratch))
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]PageStats{}
			for _, it := range items {
				out[it.URL] = it.Stats
			}
			return out
		}
		want, got := byURL(retr.cands), byURL(cands)
		if !maps.Equal(got, want) {
			t.Fatalf("%s: keyed %+v, by URL %+v", what, got, want)
		}
		return got
	}
	rng := rand.New(rand.NewPCG(9, 10))
	first := keyed(1, rng.Perm(30))
	check("no statistics", first)
	clicked := retr.cands[7].URL
	for _, user := range []string{"u1", "u2"} {
		if _, err := store.RecordClick(t.Context(), clicked, user); err != nil {
			t.Fatal(err)
		}
		if st := check("after a click on a page without statistics", first); st[clicked].Clicks == 0 {
			t.Fatalf("the clicked page: %+v", st[clicked])
		}
	}
	setLinks(t, db, map[string][]string{retr.cands[3].URL: {retr.cands[4].URL, retr.cands[5].URL}})
	if _, err := store.ComputePageRank(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := check("after PageRank", first); st[retr.cands[4].URL].PageRank == 0 {
		t.Fatalf("a linked page: %+v", st[retr.cands[4].URL])
	}
	check("another key space", keyed(2, rng.Perm(30)))
	check("the first again", first)
}

func TestDedupeKeepsTheFirstOfEachURLUpToTheLimit(t *testing.T) {
	var many []string // more than the set on the stack holds
	for i := range 300 {
		many = append(many, fmt.Sprintf("p%d", i))
	}
	c := func(urls ...string) []Candidate {
		var out []Candidate
		for i, u := range urls {
			out = append(out, Candidate{URL: u, Relevance: float64(i)})
		}
		return out
	}
	for _, tc := range []struct {
		in    []Candidate
		limit int
		want  []Candidate
	}{
		{c("a", "b", "c"), 5, c("a", "b", "c")},
		{c("a", "b", "c"), 2, c("a", "b")},
		{c("a", "b", "a", "c"), 5, []Candidate{{URL: "a"}, {URL: "b", Relevance: 1}, {URL: "c", Relevance: 3}}},
		{c("a", "a", "b", "c"), 2, []Candidate{{URL: "a"}, {URL: "b", Relevance: 2}}},
		{c("a", "b", "c", "a", "d"), 2, c("a", "b")},
		{nil, 3, nil},
		{c(many...), 1000, c(many[:300]...)},
		{c(append(many[:300:300], "p7")...), 1000, c(many[:300]...)},
	} {
		if got := dedupe(tc.in, tc.limit, maphash.MakeSeed()); !slices.Equal(got, tc.want) {
			t.Errorf("dedupe(%v, %d) = %v, want %v", tc.in, tc.limit, got, tc.want)
		}
	}
}

// TestPartialOrderIsTheFullOrder: the blend order sorted only where a
// merged list reads it (the first m positions, then the rest if a
// promotion reaches beyond them) puts there the items the full sort puts
// there, with ties in score, relevance, popularity and URL.
func TestPartialOrderIsTheFullOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	logs := lnOnePlus(300)
	for trial := range 300 {
		n := 1 + rng.IntN(300)
		items := make([]Scored, n)
		for i := range items {
			items[i] = Scored{
				Candidate:  Candidate{URL: fmt.Sprintf("http://s%d.test/", rng.IntN(n)), Relevance: float64(rng.IntN(6))},
				Popularity: float64(rng.IntN(4)) / 4,
			}
		}
		full := slices.Clone(items)
		orderScored(full, OrderBlend, 0.3, logs, nil)
		m := 1 + rng.IntN(min(n, 2*sortFirstUpTo)) // most sorted apart from the rest
		var sc orderScratch
		ld := newPartialOrder(slices.Clone(items), m, 0.3, logs, &sc)
		// A merged list reading the first m positions, some of them
		// replaced by 0, 1 or 2 positions beyond.
		list := make([]Slot, m)
		for i := range list {
			list[i] = Slot{Index: i}
		}
		for range rng.IntN(3) {
			if m < n {
				list[rng.IntN(m)] = Slot{Index: m + rng.IntN(n-m), Promoted: true}
			}
		}
		ld.place(list, m)
		got := func(p int) Scored { return items[ld.at(p)] }
		for p := range m {
			if got(p).URL != full[p].URL || got(p).Relevance != full[p].Relevance || got(p).Popularity != full[p].Popularity {
				t.Fatalf("trial %d (n %d, m %d): position %d holds %+v, the full order %+v", trial, n, m, p, got(p), full[p])
			}
		}
		for _, sl := range list {
			if p := sl.Index; got(p) != full[p] {
				t.Fatalf("trial %d (n %d, m %d): promoted position %d holds %+v, the full order %+v", trial, n, m, p, got(p), full[p])
			}
		}
	}
}
