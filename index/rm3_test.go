package index

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// relevanceModelByMap is the relevance model as its definition reads,
// summed per word in a map, each page adding count × weight in page
// order, in whatever order a page lists its words: the reference for the
// searcher's sums.
func relevanceModelByMap(pages []FeedbackPage, k int) []RelevanceWord {
	var scoreSum float64
	for _, p := range pages {
		scoreSum += p.Score
	}
	rm := map[uint32]float64{}
	for _, p := range pages {
		if p.Length == 0 {
			continue
		}
		w := p.Score / scoreSum / float64(p.Length)
		for j, word := range p.Words {
			rm[word] += float64(p.TFs[j]) * w
		}
	}
	model := make([]RelevanceWord, 0, k)
	for word, p := range rm {
		model = keepBest(model, k, RelevanceWord{word, p}, likelierWord)
	}
	return model
}

// TestRelevanceModelIsTheMapsModel checks the relevance model summed in
// an array by word id against the one summed in a map, on seeded
// random feedback pages with shared words, repeated words, an empty page
// and ties: the same words with the same bits, for lists ascending by id
// (sortedRelevanceModel, as the searcher has them) and for the same lists
// shuffled with a word's count split in two (RelevanceModel).
func TestRelevanceModelIsTheMapsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const vocab = 300
	words := 0
	for round := range 300 {
		n := 1 + rng.IntN(6)
		pages, shuffled, lists := make([]FeedbackPage, n), make([]FeedbackPage, n), make([]feedbackList, n)
		for i := range pages {
			var list []termPosting
			length := uint32(0)
			for w := range uint32(vocab) {
				if rng.IntN(10) == 0 {
					tf := 1 + uint32(rng.IntN(3))
					list = append(list, termPosting{of: w, tf: tf})
					length += tf
				}
			}
			if round%7 == 0 && i == 0 {
				list, length = nil, 0 // a page without text
			}
			if round%11 == 0 && i == 1 {
				length = 0 // a page with words but no length: skipped
			}
			score := float64(1 + rng.IntN(4))
			p := FeedbackPage{Score: score, Length: length}
			for _, w := range list {
				p.Words, p.TFs = append(p.Words, w.of), append(p.TFs, w.tf)
			}
			pages[i] = p
			lists[i] = feedbackList{score: score, length: length, words: list}
			s := FeedbackPage{Score: score, Length: length}
			for _, w := range list {
				if w.tf > 1 && rng.IntN(2) == 0 {
					s.Words, s.TFs = append(s.Words, w.of, w.of), append(s.TFs, 1, w.tf-1)
					continue
				}
				s.Words, s.TFs = append(s.Words, w.of), append(s.TFs, w.tf)
			}
			perm := rng.Perm(len(s.Words))
			s.Words, s.TFs = permuted(s.Words, perm), permuted(s.TFs, perm)
			shuffled[i] = s
		}
		k := rng.IntN(41) // 0: a model of no words
		want := relevanceModelByMap(pages, k)
		if got := sortedRelevanceModel(lists, k); !slices.Equal(got, want) {
			t.Fatalf("round %d: by id %v, by map %v", round, got, want)
		}
		if got := RelevanceModel(shuffled, k); !slices.Equal(got, want) {
			t.Fatalf("round %d: shuffled pages %v, by map %v", round, got, want)
		}
		words += len(want)
	}
	if words < 3000 {
		t.Fatalf("only %d model words compared", words)
	}
}

func permuted[T any](s []T, perm []int) []T {
	out := make([]T, len(s))
	for i, j := range perm {
		out[i] = s[j]
	}
	return out
}

// TestInterpolateLeavesOutWordsMostPagesHold checks RM3's interpolation on
// a query of two words and a model of four: a word of the query keeps its
// place and gains the model's weight even when most pages hold it; a new
// word held by more than feedback_max_df of the pages is left out, and
// the others share the model's half of the weight in proportion to P(w|R);
// room bounds the words added; feedback_max_df 1 keeps every word.
func TestInterpolateLeavesOutWordsMostPagesHold(t *testing.T) {
	const n = 100
	df := map[uint32]uint64{1: 90, 2: 5, 3: 80, 4: 10} // by word
	query := map[uint32]int{1: 0, 7: 1}                // word: position
	at := func(w uint32) int {
		if i, ok := query[w]; ok {
			return i
		}
		return -1
	}
	model := []RelevanceWord{{1, 0.4}, {3, 0.3}, {2, 0.2}, {4, 0.1}}
	cfg := RetrievalConfig{FeedbackWeight: 0.5, FeedbackMaxDF: 0.5}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

	weights := []float64{1, 3} // counts: the query's total weight is 4
	added := Interpolate(cfg, weights, model, at, func(w uint32) uint64 { return df[w] }, n, 10)
	// Word 3 (80 of 100 pages) is out: the model's mass is 0.4+0.2+0.1.
	const mass = 0.7
	want := []float64{4 * (0.5*1/4 + 0.5*0.4/mass), 4 * (0.5 * 3 / 4)}
	if !near(weights[0], want[0]) || !near(weights[1], want[1]) {
		t.Errorf("query weights %v, want %v", weights, want)
	}
	wantAdded := []RelevanceWord{{2, 4 * 0.5 * 0.2 / mass}, {4, 4 * 0.5 * 0.1 / mass}}
	if len(added) != len(wantAdded) {
		t.Fatalf("added %v, want %v", added, wantAdded)
	}
	total := weights[0] + weights[1]
	for i, m := range added {
		if m.Word != wantAdded[i].Word || !near(m.P, wantAdded[i].P) {
			t.Errorf("added %v, want %v", added, wantAdded)
		}
		total += m.P
	}
	if !near(total, 4) {
		t.Errorf("the expanded query weighs %v, the query 4", total)
	}

	if added := Interpolate(cfg, []float64{1, 3}, model, at, func(w uint32) uint64 { return df[w] }, n, 1); len(added) != 1 || added[0].Word != 2 {
		t.Errorf("room for 1 word: added %v, want word 2 alone", added)
	}

	cfg.FeedbackMaxDF = 1
	added = Interpolate(cfg, []float64{1, 3}, model, at, func(w uint32) uint64 { return df[w] }, n, 10)
	if got := len(added); got != 3 || added[0].Word != 3 {
		t.Errorf("feedback_max_df 1: added %v, want words 3, 2 and 4", added)
	}
}
