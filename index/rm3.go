package index

import "cmp"

// FeedbackPage is one page of RM3's feedback set: its retrieval score, its
// analyzed length, and its words (ids that ascend with the words' string
// order) with their counts.
type FeedbackPage struct {
	Score  float64
	Length uint32
	Words  func(yield func(word, tf uint32))
}

// RelevanceWord is a word of the relevance model and its P(w|R).
type RelevanceWord struct {
	Word uint32
	P    float64
}

// RelevanceModel is RM3's relevance model (Abdul-Jaleel et al. 2004) over
// the feedback pages: P(w|R) = Σ_D P(w|D)·P(D|q), P(w|D) the word's share
// of the page's analyzed text and P(D|q) the page's share of the pages'
// scores, cut to the k likeliest words, likeliest first, ties by the
// smaller id. The sums are taken one token at a time in page order, so the
// searcher (expand) and an evaluation scoring pages outside any index get
// the same bits.
func RelevanceModel(pages []FeedbackPage, k int) []RelevanceWord {
	var scoreSum float64
	for _, p := range pages {
		scoreSum += p.Score
	}
	// Sized for every page's words at once: growing the map as words
	// arrive rehashes it several times per query.
	size := 0
	for _, p := range pages {
		if p.Length > 0 {
			p.Words(func(uint32, uint32) { size++ })
		}
	}
	rm := make(map[uint32]float64, size)
	for _, p := range pages {
		if p.Length == 0 {
			continue
		}
		w := p.Score / scoreSum / float64(p.Length)
		p.Words(func(word, tf uint32) {
			v := rm[word]
			for range tf { // one addition per token of the page
				v += w
			}
			rm[word] = v
		})
	}
	byP := func(a, b RelevanceWord) int {
		if c := cmp.Compare(b.P, a.P); c != 0 {
			return c
		}
		return cmp.Compare(a.Word, b.Word)
	}
	model := make([]RelevanceWord, 0, k)
	for word, p := range rm {
		model = keepBest(model, k, RelevanceWord{word, p}, byP)
	}
	return model
}
