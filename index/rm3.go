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
	return relevanceModel(pages, k, nil)
}

// modelScratch sums a relevance model by word id, for words numbered
// below len(p): an array instead of a map, left all zero after use.
type modelScratch struct {
	p    []float64
	seen []bool
}

// relevanceModel is RelevanceModel, summing in sc when it is not nil
// (every word id below len(sc.p)).
func relevanceModel(pages []FeedbackPage, k int, sc *modelScratch) []RelevanceWord {
	var scoreSum float64
	for _, p := range pages {
		scoreSum += p.Score
	}
	// P(w|R), summed per word: in sc's arrays, or in a map sized for
	// every page's words at once (growing it as words arrive rehashes it
	// several times per query).
	var words []uint32
	var rm map[uint32]float64
	add := func(word uint32, v float64) {
		if !sc.seen[word] {
			sc.seen[word] = true
			words = append(words, word)
		}
		sc.p[word] = v
	}
	get := func(word uint32) float64 { return sc.p[word] }
	if sc == nil {
		size := 0
		for _, p := range pages {
			if p.Length > 0 {
				p.Words(func(uint32, uint32) { size++ })
			}
		}
		rm = make(map[uint32]float64, size)
		add = func(word uint32, v float64) { rm[word] = v }
		get = func(word uint32) float64 { return rm[word] }
	}
	for _, p := range pages {
		if p.Length == 0 {
			continue
		}
		w := p.Score / scoreSum / float64(p.Length)
		p.Words(func(word, tf uint32) {
			v := get(word)
			for range tf { // one addition per token of the page
				v += w
			}
			add(word, v)
		})
	}
	byP := func(a, b RelevanceWord) int {
		if c := cmp.Compare(b.P, a.P); c != 0 {
			return c
		}
		return cmp.Compare(a.Word, b.Word)
	}
	// The k best in a total order: the same whatever order the words
	// come in.
	model := make([]RelevanceWord, 0, k)
	if sc == nil {
		for word, p := range rm {
			model = keepBest(model, k, RelevanceWord{word, p}, byP)
		}
		return model
	}
	for _, word := range words {
		model = keepBest(model, k, RelevanceWord{word, sc.p[word]}, byP)
		sc.p[word], sc.seen[word] = 0, false
	}
	return model
}
