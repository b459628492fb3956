package synceval

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/index"
)

var testLimits = extract.Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 256, MaxNodes: 100000}

// qualityFixture is one week of four pages; the query "apple" matches
// a (tf 3), b (tf 1) and c (tf 2), all of the same length; "pear"
// matches b and d.
func qualityFixture(t *testing.T) (*corpus, index.Scoring) {
	t.Helper()
	page := func(words string) string {
		return "<html><head><title>t</title></head><body><p>" + words + "</p></body></html>\n"
	}
	dir := t.TempDir()
	archivetest.Write(t, dir, archivetest.Fixture{Name: "fx", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/a", First: 0, Last: 0, Body: page("apple apple apple stone")},
		{URL: "/b", First: 0, Last: 0, Body: page("apple pear stone stone")},
		{URL: "/c", First: 0, Last: 0, Body: page("apple apple stone stone")},
		{URL: "/d", First: 0, Last: 0, Body: page("pear stone stone stone")},
	}})
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := index.ScoringBM25
	m, err := index.NewMapping(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := loadCorpus(context.Background(), a, m.AnalyzerNamed(index.AnalyzerName), testLimits, 2)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestQualityOfEquation45(t *testing.T) {
	c, s := qualityFixture(t)
	term := func(w string) uint32 {
		id, ok := c.termID[w]
		if !ok {
			t.Fatalf("term %q not in the corpus %v", w, c.terms)
		}
		return id
	}
	wl := &workload{queries: []query{
		{text: "apple", freq: 3, terms: []uint32{term("appl")}},
		{text: "pear", freq: 1, terms: []uint32{term("pear")}},
	}}
	const inspectC = 2.5
	id, err := buildIdeal(context.Background(), c, wl, model{semantics: SemanticsThesis, scoring: s}, inspectC, 2)
	if err != nil {
		t.Fatal(err)
	}
	url := func(p string) int32 { return c.byURL["http://fx.test"+p] }
	a, b, cc, d := url("/a"), url("/b"), url("/c"), url("/d")

	// The live scores, from the fixture's term counts: every page has 5
	// tokens (title "t" and four words), N = 4, and the vocabulary is
	// {t, appl, stone, pear}.
	for _, dc := range c.live[0] {
		if l := c.bodies[dc.body].length; l != 5 {
			t.Fatalf("%s has %d tokens, want 5", c.urls[dc.url], l)
		}
	}
	if c.vocab[0] != 4 {
		t.Fatalf("vocabulary %d, want 4", c.vocab[0])
	}
	st := index.BleveCorpusStats(s, 4, 4)
	sc := func(tf, df uint64) float64 { return index.TermScore(tf, 5, st, df) }
	sa, sb, sc3 := sc(3, 3), sc(1, 3), sc(2, 3) // apple: a > c > b
	pb, pd := sc(1, 2), sc(1, 2)                // pear: b = d
	I := func(r float64) float64 { return inspectC * math.Pow(r, -1.5) }
	idealApple := I(1)*sa + I(2)*sc3 + I(3)*sb
	idealPear := I(1)*pb + I(2)*pd
	den := 3*idealApple + 1*idealPear

	for _, tc := range []struct {
		name    string
		answers [][]int32
		want    float64
	}{
		{"fully synchronized", [][]int32{{a, cc, b}, {b, d}}, 1},
		{"empty repository", [][]int32{nil, nil}, 0},
		{"misordered, missing and unknown pages",
			// apple: b first, then a page the archive lacks, then a; c
			// missing. pear: d only.
			[][]int32{{b, -1, a}, {d}},
			(3*(I(1)*sb+I(3)*sa) + 1*I(1)*pd) / den},
		{"a page that no longer matches counts 0 but takes its rank",
			[][]int32{{d, a, cc, b}, {b, d}},
			(3*(I(2)*sa+I(3)*sc3+I(4)*sb) + idealPear) / den},
	} {
		got := id.quality(0, tc.answers)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: Q = %.12f, want %.12f", tc.name, got, tc.want)
		}
	}
	if sa <= sc3 || sc3 <= sb {
		t.Fatalf("fixture scores %v, %v, %v are not in the order a > c > b", sa, sc3, sb)
	}
}

// TestSearcherQualitySeesTheVisibleResults measures eq. 4.5 under the
// searcher's semantics with A(q, ·) cut to two results: a page below the
// cut counts nothing on either side, and a local page outside the live
// answer (coordination drops it) scores 0.
func TestSearcherQualitySeesTheVisibleResults(t *testing.T) {
	c, _ := qualityFixture(t)
	term := func(w string) uint32 { return c.termID[w] }
	r := index.RetrievalConfig{K1: 1.2, B: 0.75, ShortQueryTerms: 3, MinShouldMatch: 0.5, MinResults: 1}
	wl := &workload{queries: []query{
		{text: "apple", freq: 3, terms: []uint32{term("appl")}},
		// Two words, a short query: only b holds both.
		{text: "apple pear", freq: 1, terms: []uint32{term("appl"), term("pear")}},
	}}
	const inspectC = 2.5
	m := model{semantics: SemanticsSearcher, retrieval: r, maxTerms: 10, depth: 2}
	id, err := buildIdeal(context.Background(), c, wl, m, inspectC, 2)
	if err != nil {
		t.Fatal(err)
	}
	url := func(p string) int32 { return c.byURL["http://fx.test"+p] }
	a, b, cc, d := url("/a"), url("/b"), url("/c"), url("/d")

	// Every page has 5 tokens; N = 4; "appl" in 3 pages, "pear" in 2.
	apple := func(tf uint64) float64 { return index.MatchTextScore(r, index.MatchIDF(4, 3), 1, tf, 5, 5) }
	pear := index.MatchTextScore(r, index.MatchIDF(4, 2), 1, 1, 5, 5)
	sa, sc3, sb := apple(3), apple(2), apple(1)
	both := sb + pear // b's score for "apple pear"
	I := func(r float64) float64 { return inspectC * math.Pow(r, -1.5) }
	idealApple := I(1)*sa + I(2)*sc3 // b, third, is below the cut
	den := 3*idealApple + I(1)*both

	for _, tc := range []struct {
		name    string
		answers [][]int32
		want    float64
	}{
		{"fully synchronized", [][]int32{{a, cc, b}, {b}}, 1},
		{"the third result is not seen", [][]int32{{a, cc, d}, {b}}, 1},
		{"misordered, a page cut off, a page the coordination drops",
			[][]int32{{b, a, cc}, {d, b}},
			(3*(I(1)*sb+I(2)*sa) + I(2)*both) / den},
	} {
		if got := id.quality(0, tc.answers); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: Q = %.15f, want %.15f", tc.name, got, tc.want)
		}
	}
	if s := id.liveScore(0, 1, d); s != 0 {
		t.Errorf("d for \"apple pear\": live score %v, want 0 (it lacks apple)", s)
	}
	if s := id.liveScore(0, 1, b); s != both {
		t.Errorf("b for \"apple pear\": live score %v, want %v", s, both)
	}
}

func TestKneeCutsWhereTheCurveBends(t *testing.T) {
	// Ten scores falling by a factor of 10 each up to the fourth, then
	// flat: the farthest point from the chord is the fourth.
	scores := []float64{1e4, 1e3, 1e2, 10, 9, 8.5, 8, 7.5, 7, 6.8}
	th, rank := knee(scores)
	if th != 10 || rank != 4 {
		t.Errorf("knee = %v at rank %d, want 10 at rank 4", th, rank)
	}
	if th, rank := knee([]float64{3, 3, 3}); th != 3 || rank != 3 {
		t.Errorf("knee of equal scores = %v at %d, want every score kept", th, rank)
	}
	if th, rank := knee([]float64{5, 1}); th != 1 || rank != 2 {
		t.Errorf("knee of two scores = %v at %d, want both kept", th, rank)
	}
}

func TestTargetInterpolatesTheBudget(t *testing.T) {
	best := []RunSummary{
		{Policy: "uniform", Budget: 10, MeanQ: 0.90}, {Policy: "uniform", Budget: 40, MeanQ: 0.95},
		{Policy: "sbr", Tau: 0.3, Budget: 10, MeanQ: 0.91}, {Policy: "sbr", Tau: 0.3, Budget: 40, MeanQ: 0.96},
		{Policy: "deltaq", Budget: 10, MeanQ: 0.94}, {Policy: "deltaq", Budget: 20, MeanQ: 0.98}, {Policy: "deltaq", Budget: 40, MeanQ: 0.99},
	}
	tg, ok := target(best)
	if !ok || !tg.Reached || tg.Baseline != "sbr τ=0.3" || tg.MaxBudget != 40 {
		t.Fatalf("target = %+v", tg)
	}
	// 0.96 lies halfway from 0.94 (B=10) to 0.98 (B=20).
	if math.Abs(tg.Budget-15) > 1e-9 || math.Abs(tg.Ratio-15.0/40) > 1e-9 || tg.AtMost {
		t.Errorf("budget %v ratio %v, want 15 and 0.375", tg.Budget, tg.Ratio)
	}
	best[4].MeanQ, best[5].MeanQ, best[6].MeanQ = 0.90, 0.92, 0.95
	if tg, _ := target(best); tg.Reached || !math.IsNaN(tg.Ratio) {
		t.Errorf("deltaq below the baseline everywhere: %+v", tg)
	}
}

func TestMarginsPairTheWeeks(t *testing.T) {
	best := []RunSummary{
		{Policy: "uniform", Budget: 10, MeanQ: 0.5, Q: []float64{1, 0.4, 0.6, 0.5}},
		{Policy: "sbr", Tau: 0.2, Budget: 10, MeanQ: 0.6, Q: []float64{1, 0.7, 0.5, 0.6}},
		{Policy: "deltaq", Budget: 10, MeanQ: 0.7, Q: []float64{1, 0.8, 0.8, 0.5}},
		{Policy: "deltaq", Budget: 20, MeanQ: 0.9, Q: []float64{1, 0.9, 0.9, 0.9}}, // no baseline at B=20
	}
	ms := margins(best)
	if len(ms) != 1 {
		t.Fatalf("margins = %+v, want one (B=10)", ms)
	}
	m := ms[0]
	// Differences against sbr (the best baseline at B=10): 0.1, 0.3, −0.1;
	// mean 0.1, sd 0.2, s.e. 0.2/√3.
	if m.Baseline != "sbr τ=0.2" || m.Weeks != 3 || m.Ahead != 2 ||
		math.Abs(m.Diff-0.1) > 1e-12 || math.Abs(m.StdErr-0.2/math.Sqrt(3)) > 1e-12 {
		t.Errorf("margin = %+v", m)
	}
}

// TestTopDescendingIsTheSortedPrefix compares the selection with a full
// sort on seeded random scores, many of them tied.
func TestTopDescendingIsTheSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(rng.IntN(1 + trial%40))
		}
		want := slices.Clone(s)
		sortDescending(want)
		k := 1 + rng.IntN(n+5)
		got := topDescending(slices.Clone(s), k)
		if !slices.Equal(got, want[:min(k, n)]) {
			t.Fatalf("n %d k %d: %v, want %v", n, k, got, want[:min(k, n)])
		}
	}
}
