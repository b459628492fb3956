package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRelevanceModelByIDIsTheMapsModel checks the relevance model summed
// in a pooled array by word id against the one summed in a map, on seeded
// random feedback pages with shared words, repeated words, an empty page
// and ties, and that the array is left zero for the next query.
func TestRelevanceModelByIDIsTheMapsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const vocab = 300
	sc := &modelScratch{p: make([]float64, vocab), seen: make([]bool, vocab)}
	words := 0
	for round := range 300 {
		pages := make([]FeedbackPage, 1+rng.IntN(6))
		for i := range pages {
			var words []termPosting
			length := uint32(0)
			for w := range uint32(vocab) {
				if rng.IntN(10) == 0 {
					tf := 1 + uint32(rng.IntN(3))
					words = append(words, termPosting{of: w, tf: tf})
					length += tf
				}
			}
			if round%7 == 0 && i == 0 {
				words, length = nil, 0 // a page without text
			}
			pages[i] = FeedbackPage{Score: float64(1 + rng.IntN(4)), Length: length, Words: func(yield func(word, tf uint32)) {
				for _, w := range words {
					yield(w.of, w.tf)
				}
			}}
		}
		k := 1 + rng.IntN(40)
		want := RelevanceModel(pages, k)
		got := relevanceModel(pages, k, sc)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: by id %v, by map %v", round, got, want)
		}
		words += len(got)
		if slices.ContainsFunc(sc.p, func(v float64) bool { return v != 0 }) || slices.Contains(sc.seen, true) {
			t.Fatalf("round %d: the array is not left zero", round)
		}
	}
	if words < 3000 {
		t.Fatalf("only %d model words compared", words)
	}
}
