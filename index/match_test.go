package index

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

func TestALongQuestionFindsThePagesAboutIt(t *testing.T) {
	ix := smallIndex(t)
	// Nine distinct words after analysis; no page has them all, so an
	// AND would answer nothing. The two pages about plain language on
	// federal websites must lead, the budget pages follow.
	q, err := ParseQuery("How should federal agencies write their websites in plain language that everyone can read easily?", ix.cfg.Limits())
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 {
		t.Fatalf("hits %+v", res.Hits)
	}
	top := []string{res.Hits[0].URL, res.Hits[1].URL}
	slices.Sort(top)
	if !slices.Equal(top, []string{"https://a.test/plain", "https://b.test/access"}) {
		t.Fatalf("top two %v, want the plain-language pages", top)
	}
	if res.Total != 4 { // the markup page has none of the words
		t.Fatalf("total %d, want 4", res.Total)
	}
}

func TestOperatorsNarrowABestMatchQuery(t *testing.T) {
	ix := smallIndex(t)
	long := "federal websites agency spending report budget reader language"
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{long, []string{"https://a.test/budget", "https://a.test/plain", "https://b.test/access", "https://b.test/draft", "https://c.test/html"}},
		{long + ` "plain language"`, []string{"https://a.test/plain", "https://b.test/access"}},
		{long + " -draft", []string{"https://a.test/budget", "https://a.test/plain", "https://b.test/access", "https://c.test/html"}},
		{long + ` -"plain language"`, []string{"https://a.test/budget", "https://b.test/draft", "https://c.test/html"}},
		{long + " site:b.test", []string{"https://b.test/access", "https://b.test/draft"}},
		{long + " -site:b.test", []string{"https://a.test/budget", "https://a.test/plain", "https://c.test/html"}},
	} {
		if got, total := searchURLs(t, ix, tc.q); !slices.Equal(got, tc.want) || total != uint64(len(tc.want)) {
			t.Errorf("%q: %v (total %d), want %v", tc.q, got, total, tc.want)
		}
	}
}

// TestCompatibilityCharactersAreTheirPlainLetters: a word in full-width
// letters or with a ligature, on a page or in a query, is the word in
// plain letters (NFKC), and full-width quotes, minus and colon are the
// operators they look like. (Full-width digits are found from a query
// only: on a page, Bleve's unicode tokenizer takes them for no word.)
func TestCompatibilityCharactersAreTheirPlainLetters(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0,
		page{URL: "https://a.test/fees", Title: "Fees", Text: "Filing fees are due by the deadline in March."},
		page{URL: "https://b.test/notice", Title: "お知らせ", Text: "ＤＥＡＤＬＩＮＥ：申請の\uFB01ling window closes in 2024."},
		page{URL: "https://b.test/other", Title: "Other", Text: "Nothing about money here."},
	)
	catchUp(t, ix)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"ｆｅｅｓ", []string{"https://a.test/fees"}},
		{"ＦＥＥＳ", []string{"https://a.test/fees"}},
		{"deadline", []string{"https://a.test/fees", "https://b.test/notice"}},
		{"filing", []string{"https://a.test/fees", "https://b.test/notice"}},
		{"２０２４", []string{"https://b.test/notice"}},
		{"＂filing fees＂", []string{"https://a.test/fees"}},
		{"deadline －fees", []string{"https://b.test/notice"}},
		{"deadline ｓｉｔｅ：ｂ．ｔｅｓｔ", []string{"https://b.test/notice"}},
	} {
		if got, total := searchURLs(t, ix, tc.q); !slices.Equal(got, tc.want) || total != uint64(len(tc.want)) {
			t.Errorf("%q: %v (total %d), want %v", tc.q, got, total, tc.want)
		}
	}
}

// TestAPhraseOfStopWordsMustOccur: a phrase of stop words alone, which
// the text field does not keep, is looked for in titles, which keep them:
// a page whose title holds one of its words but not the phrase is not an
// answer, and an excluded one excludes.
func TestAPhraseOfStopWordsMustOccur(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0,
		page{URL: "https://a.test/home", Title: "Home of Zebra Site", Text: "Zebras and lions."},
		page{URL: "https://a.test/quote", Title: "To Be or Not to Be", Text: "A zebra asks the question."},
		page{URL: "https://a.test/plain", Title: "Plain", Text: "Nothing here but words."},
	)
	catchUp(t, ix)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{`"to be or not to be"`, []string{"https://a.test/quote"}},
		{`"of the"`, nil},
		{`of`, []string{"https://a.test/home"}},
		{`zebra "not to be"`, []string{"https://a.test/quote"}},
		{`zebra -"not to be"`, []string{"https://a.test/home"}},
	} {
		if got, total := searchURLs(t, ix, tc.q); !slices.Equal(got, tc.want) || total != uint64(len(tc.want)) {
			t.Errorf("%q: %v (total %d), want %v", tc.q, got, total, tc.want)
		}
	}
}

func TestALongQueryKeepsItsRarestWords(t *testing.T) {
	ix := smallIndex(t)
	ix.cfg.MaxQueryTerms = 2
	// "federal" is on four pages, "budget" on three, "wcag" and "escape"
	// on one each: the two kept are wcag and escape.
	if got, _ := searchURLs(t, ix, "federal budget wcag escape federal"); !slices.Equal(got, []string{"https://b.test/access", "https://c.test/html"}) {
		t.Fatalf("%v: want the pages with wcag or escape (no page has both: OR fallback)", got)
	}
}

func TestScoresAreTextbookBM25(t *testing.T) {
	ix := smallIndex(t)
	q, _ := ParseQuery("spending", ix.cfg.Limits())
	res, err := ix.Search(t.Context(), q, 0, 10)
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("%+v, %v", res.Hits, err)
	}
	// Analyzed lengths (en analyzer: stop words dropped): the five pages'
	// title + text.
	total := 0
	for _, p := range smallCorpus {
		total += len(ix.Analyzer().Analyze([]byte(IndexedText(p.Title, p.Text))))
	}
	length := float64(len(ix.Analyzer().Analyze([]byte(IndexedText(smallCorpus[0].Title, smallCorpus[0].Text)))))
	mean := float64(total) / 5
	k1, b := ix.cfg.Retrieval.K1, ix.cfg.Retrieval.B
	idf := math.Log(1 + (5-1+0.5)/(1+0.5))
	want := idf * 1 * (k1 + 1) / (1 + k1*(1-b+b*length/mean))
	if math.Abs(res.Hits[0].Score-want) > 1e-9 {
		t.Fatalf("score %v, want %v (length %v, mean %v)", res.Hits[0].Score, want, length, mean)
	}
}

func TestWindowPairs(t *testing.T) {
	for _, tc := range []struct {
		a, b   []uint64
		window uint64
		want   int
	}{
		{[]uint64{1, 10}, []uint64{2}, 1, 1},
		{[]uint64{1, 10}, []uint64{2, 30}, 8, 2},
		{[]uint64{5}, []uint64{1}, 3, 0},
		{[]uint64{5}, []uint64{1}, 4, 1},
		{nil, []uint64{1}, 4, 0},
	} {
		if got := windowPairs(tc.a, tc.b, tc.window); got != tc.want {
			t.Errorf("windowPairs(%v, %v, %d) = %d, want %d", tc.a, tc.b, tc.window, got, tc.want)
		}
	}
}

// TestDenseSumsAreSparseSums checks accumulate's two ways of summing
// postings against each other on digitalgov week 0, for random queries of
// 1 to 40 of the pages' words, each also expanded by RM3: the same pages
// with the same scores (bit for bit) and words, and the sums left zero.
func TestDenseSumsAreSparseSums(t *testing.T) {
	ix := week0WithRM3(t)
	rng := rand.New(rand.NewPCG(7, 11))
	compared, dense := 0, 0
	err := ix.withSnapshot(func(r bindex.IndexReader, m mapping.IndexMapping) error {
		st, err := ix.snapText(t.Context(), r)
		if err != nil {
			return err
		}
		sums := make([]accumulator, len(st.length))
		check := func(q string, p *matchPlan) error {
			want, err := ix.accumulateSparse(t.Context(), r, st, p, &sums, nil)
			if err != nil {
				return err
			}
			got, err := ix.accumulateDense(t.Context(), st, p, sums, nil)
			if err != nil {
				return err
			}
			slices.SortFunc(want, compareCandidates)
			slices.SortFunc(got, compareCandidates)
			if !slices.Equal(got, want) {
				t.Fatalf("%q (%d words): dense %d pages, sparse %d\ndense  %v\nsparse %v", q, len(p.terms), len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
			}
			if i := slices.IndexFunc(sums, func(a accumulator) bool { return a != accumulator{} }); i >= 0 {
				t.Fatalf("%q: the sums of page %d are left %+v", q, i, sums[i])
			}
			compared++
			if size := len(want); uint64(size) >= st.n/denseShare {
				dense++
			}
			return nil
		}
		return eachRandomQuery(t, ix, r, m, st, rng, 100, check)
	})
	if err != nil {
		t.Fatal(err)
	}
	if compared < 100 || dense < 20 {
		t.Fatalf("%d comparisons, %d reaching half the pages: too few to tell", compared, dense)
	}
	t.Logf("%d comparisons, %d reaching half the pages", compared, dense)
}

// TestTiesAtTheCutGoByURL checks that the pages a search keeps, when pages
// tie across the cut, are those with the smallest URLs whatever the
// documents' numbering: on random candidates with few distinct scores and
// a random URL per document, selected unordered and sorted at random
// depths, the kept set is the first k by score and then URL, and a sorted
// front stays sorted.
func TestTiesAtTheCutGoByURL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	crossed := 0
	for round := range 500 {
		n := 1 + rng.IntN(3000)
		urls := make([]string, n)
		for i, p := range rng.Perm(n) {
			urls[i] = fmt.Sprintf("https://t.test/%06d", p)
		}
		all := make([]candidate, n)
		for i := range all {
			all[i] = candidate{doc: uint64(i), score: float64(rng.IntN(1 + rng.IntN(20))), matched: 1}
		}
		rng.Shuffle(n, func(i, j int) { all[i], all[j] = all[j], all[i] })
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b candidate) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(urls[a.doc], urls[b.doc])
		})
		k := rng.IntN(n + 1)
		sorted := round%2 == 0
		var front []candidate
		if sorted {
			front = sortBest(all, k)
		} else {
			front = selectBest(all, k)
		}
		if k > 0 && k < n && want[k-1].score == want[k].score {
			crossed++
		}
		tiesByURL(all, k, urls)
		got := slices.Clone(front)
		if sorted && !slices.IsSortedFunc(got, compareCandidates) {
			t.Fatalf("round %d: the sorted front of %d is no longer sorted", round, k)
		}
		slices.SortFunc(got, compareCandidates)
		exp := slices.Clone(want[:k])
		slices.SortFunc(exp, compareCandidates)
		if !slices.Equal(got, exp) {
			t.Fatalf("round %d: kept %d of %d:\ngot  %v\nwant %v", round, k, n, got[:min(8, k)], exp[:min(8, k)])
		}
	}
	if crossed < 100 {
		t.Fatalf("only %d rounds with a tie across the cut", crossed)
	}
}

// TestPagesTiedAtTheCutAreKeptByURL indexes ten pages of the same text,
// the five with the larger URLs first (so they take the lower document
// numbers), and asks for three, without and with the proximity boost: the
// kept pages are the three smallest URLs, as they would be under any
// numbering.
func TestPagesTiedAtTheCutAreKeptByURL(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	same := func(names ...string) []page {
		var ps []page
		for _, n := range names {
			ps = append(ps, page{URL: "https://" + n + ".test/", Title: "Notes", Text: "alpha beta gamma"})
		}
		return ps
	}
	putPages(t, db, t0, same("v", "w", "x", "y", "z")...)
	catchUp(t, ix)
	putPages(t, db, t0.Add(time.Hour), same("a", "b", "c", "d", "e")...)
	catchUp(t, ix)
	for _, proximity := range []float64{0, 0.5} {
		// With proximity, all ten are boosted alike after the cut of
		// proximity_depth, and tie again at the page's.
		ix.cfg.Retrieval.ProximityWeight = proximity
		got, total := firstURLs(t, ix, "alpha beta", 3)
		if want := []string{"https://a.test/", "https://b.test/", "https://c.test/"}; !slices.Equal(got, want) || total != 10 {
			t.Fatalf("proximity %v: kept %v of %d, want %v of 10", proximity, got, total, want)
		}
	}
}
