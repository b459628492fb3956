package index

import (
	"testing"
)

// TestMatchScoreIsMatch scores the small corpus's pages for a two-word
// query with the closed forms of matchscore.go, from the pages' analysed
// text, and finds the float64 Ranker.Match returns, bit for bit.
func TestMatchScoreIsMatch(t *testing.T) {
	ix := smallIndex(t)
	cfg := ix.cfg.Retrieval
	an := ix.Analyzer()
	// "budget" twice: a repeated word weighs its occurrences.
	words := []string{"feder", "budget"}
	weights := []float64{1, 2}
	tfs := map[string]map[string]uint64{}
	lengths := map[string]int{}
	df := map[string]uint64{}
	total := 0
	for _, p := range smallCorpus {
		tokens := an.Analyze([]byte(IndexedText(p.Title, p.Text)))
		lengths[p.URL] = len(tokens)
		total += len(tokens)
		tfs[p.URL] = map[string]uint64{}
		for _, tok := range tokens {
			tfs[p.URL][string(tok.Term)]++
		}
		for _, w := range words {
			if tfs[p.URL][w] > 0 {
				df[w]++
			}
		}
	}
	n := uint64(len(smallCorpus))
	mean := float64(total) / float64(n)
	want := map[string]float64{}
	qualifying := 0
	for _, p := range smallCorpus {
		var s float64
		matched := 0
		for i, w := range words {
			if tf := tfs[p.URL][w]; tf > 0 {
				s += MatchTextScore(cfg, MatchIDF(n, df[w]), weights[i], tf, lengths[p.URL], mean)
				matched++
			}
		}
		if matched >= MatchRequired(cfg, len(words)) {
			want[p.URL] = s
			qualifying++
		}
	}
	if qualifying == 0 || qualifying == len(smallCorpus) {
		t.Fatalf("%d of %d pages have both words: the fixture no longer tests coordination", qualifying, len(smallCorpus))
	}
	rk, err := ix.Ranker()
	if err != nil {
		t.Fatal(err)
	}
	defer rk.Close()
	got, err := rk.Match(t.Context(), Query{Terms: []string{"federal budget budget"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Match returned %d pages %v, want %d", len(got), got, len(want))
	}
	for _, r := range got {
		if w, ok := want[r.URL]; !ok || r.Score != w {
			t.Errorf("%s: Match scores %v, closed form %v (qualifies: %v)", r.URL, r.Score, w, ok)
		}
	}
	if MatchFeedback(cfg, len(words)) {
		t.Errorf("a two-word query is expanded by RM3 under %+v", cfg)
	}
}
