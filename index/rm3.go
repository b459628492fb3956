package index

import (
	"cmp"
	"math"
)

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
	// P(w|R), summed per word in a map sized for every page's words at
	// once (growing it as words arrive rehashes it several times).
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
	// The k best in a total order: the same whatever order the words
	// come in.
	model := make([]RelevanceWord, 0, k)
	for word, p := range rm {
		model = keepBest(model, k, RelevanceWord{word, p}, likelierWord)
	}
	return model
}

// likelierWord orders a relevance model's words: P(w|R) descending, then
// the smaller id.
func likelierWord(a, b RelevanceWord) int {
	if c := cmp.Compare(b.P, a.P); c != 0 {
		return c
	}
	return cmp.Compare(a.Word, b.Word)
}

// sortedRelevanceModel is RelevanceModel for pages whose words are lists
// ascending by id (the snapshot's forward index), given as their scores,
// analyzed lengths and lists: the lists are merged, so each word's sum is
// complete where the merge meets it, with no map or array by word id.
// Each word's tokens are added page by page in page order, starting from
// zero, as RelevanceModel adds them: the same bits.
func sortedRelevanceModel(scores []float64, lengths []uint32, words [][]termPosting, k int) []RelevanceWord {
	var scoreSum float64
	for _, s := range scores {
		scoreSum += s
	}
	// heads[i] is the word at page i's cursor at[i]; done: none left.
	const done = math.MaxUint32
	weights, at, heads := make([]float64, len(scores)), make([]int, len(scores)), make([]uint32, len(scores))
	for i := range scores {
		heads[i] = done
		if lengths[i] > 0 && len(words[i]) > 0 { // a page without text adds nothing
			weights[i], heads[i] = scores[i]/scoreSum/float64(lengths[i]), words[i][0].of
		}
	}
	model := make([]RelevanceWord, 0, k)
	for {
		word := uint32(done)
		for _, h := range heads {
			word = min(word, h)
		}
		if word == done {
			return model
		}
		v := 0.0
		for i, h := range heads {
			if h != word {
				continue
			}
			list := words[i]
			for range list[at[i]].tf {
				v += weights[i]
			}
			if at[i]++; at[i] < len(list) {
				heads[i] = list[at[i]].of
			} else {
				heads[i] = done
			}
		}
		model = keepBest(model, k, RelevanceWord{word, v}, likelierWord)
	}
}
