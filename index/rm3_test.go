package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortedRelevanceModelIsTheMapsModel checks the relevance model
// summed by merging pages' sorted word lists against the one summed in a
// map, on seeded random feedback pages with shared words, repeated words,
// an empty page and ties: the same words with the same bits.
func TestSortedRelevanceModelIsTheMapsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const vocab = 300
	words := 0
	for round := range 300 {
		n := 1 + rng.IntN(6)
		pages, lists := make([]FeedbackPage, n), make([]feedbackList, n)
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
			pages[i] = FeedbackPage{Score: score, Length: length, Words: func(yield func(word, tf uint32)) {
				for _, w := range list {
					yield(w.of, w.tf)
				}
			}}
			lists[i] = feedbackList{score: score, length: length, words: list}
		}
		k := 1 + rng.IntN(40)
		want := RelevanceModel(pages, k)
		got := sortedRelevanceModel(lists, k)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: merged %v, by map %v", round, got, want)
		}
		words += len(got)
	}
	if words < 3000 {
		t.Fatalf("only %d model words compared", words)
	}
}
