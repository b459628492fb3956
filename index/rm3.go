package index

import (
	"cmp"
	"slices"
	"sync"
)

// FeedbackPage is one page of RM3's feedback set: its retrieval score, its
// analyzed length, and its words (ids that ascend with the words' string
// order) with their counts, TFs[i] the count of Words[i].
type FeedbackPage struct {
	Score  float64
	Length uint32
	Words  []uint32
	TFs    []uint32
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
// smaller id. Each page adds its count of a word times its weight, in page
// order, so the searcher (expand), a cluster's coordinator (NewFeedbackModel)
// and an evaluation scoring pages outside any index get the same bits. A page
// whose words do not ascend is sorted first, the counts of a word listed
// twice added. The ids index an array as long as the largest: they are a
// vocabulary's places, not hashes.
func RelevanceModel(pages []FeedbackPage, k int) []RelevanceWord {
	lists := make([]feedbackList, len(pages))
	for i, p := range pages {
		words := make([]termPosting, len(p.Words))
		for j, w := range p.Words {
			words[j] = termPosting{of: w, tf: p.TFs[j]}
		}
		lists[i] = feedbackList{score: p.Score, length: p.Length, words: ascendingWords(words)}
	}
	return sortedRelevanceModel(lists, k)
}

// ascendingWords sorts a page's words by id if they are not, and makes a
// word listed twice one with the counts added: the same additions in the
// same order as the searcher's lists give.
func ascendingWords(words []termPosting) []termPosting {
	ascending := true
	for i := 1; i < len(words) && ascending; i++ {
		ascending = words[i-1].of < words[i].of
	}
	if ascending {
		return words
	}
	slices.SortStableFunc(words, func(a, b termPosting) int { return cmp.Compare(a.of, b.of) })
	out := words[:0]
	for _, w := range words {
		if n := len(out); n > 0 && out[n-1].of == w.of {
			out[n-1].tf += w.tf
			continue
		}
		out = append(out, w)
	}
	return out
}

// likelierWord orders a relevance model's words: P(w|R) descending, then
// the smaller id.
func likelierWord(a, b RelevanceWord) int {
	if c := cmp.Compare(b.P, a.P); c != 0 {
		return c
	}
	return cmp.Compare(a.Word, b.Word)
}

// feedbackList is a feedback page as the snapshot holds it: its
// retrieval score, analyzed length and words, a list ascending by id (the
// forward index).
type feedbackList struct {
	score  float64
	length uint32
	words  []termPosting
}

// sortedRelevanceModel is RelevanceModel over lists ascending by id. Each
// word's sum starts from zero and adds count × weight page by page, in
// page order, in a dense array by word id (wordSums); the words are then
// offered to the model in the order they were met, which the model's
// total order (likelierWord) makes irrelevant. A k-way merge of the lists
// also sums without an array, but it visits every list for every word:
// on a long query's five feedback pages it took 21 µs of a 182 µs search.
func sortedRelevanceModel(pages []feedbackList, k int) []RelevanceWord {
	var scoreSum float64
	var words uint64 // one past the largest id
	for _, p := range pages {
		scoreSum += p.score
		if n := len(p.words); n > 0 {
			words = max(words, uint64(p.words[n-1].of)+1)
		}
	}
	sums := wordSumsPool.Get().(*wordSums)
	defer wordSumsPool.Put(sums)
	sums.grow(words)
	for _, p := range pages {
		if p.length == 0 {
			continue // a page without text adds nothing
		}
		w := p.score / scoreSum / float64(p.length)
		for _, t := range p.words {
			sums.add(t.of, float64(t.tf)*w)
		}
	}
	model := make([]RelevanceWord, 0, k)
	for _, word := range sums.met {
		// Most words are less likely than the k-th kept.
		if v := sums.sum[word]; len(model) < k || k > 0 && v >= model[k-1].P {
			model = keepBest(model, k, RelevanceWord{word, v}, likelierWord)
		}
	}
	sums.clear()
	return model
}

// wordSums is the relevance model's sums by word id while it is summed: a
// dense array (8 bytes and a bit a word of the vocabulary, as a search's
// page sums take 16 bytes a page), reused across queries and left all
// zero after each, and the words met, in order.
type wordSums struct {
	sum  []float64
	seen []uint64 // bit set: the word is in met
	met  []uint32
}

var wordSumsPool = sync.Pool{New: func() any { return new(wordSums) }}

// grow makes room for the ids below words.
func (s *wordSums) grow(words uint64) {
	if int(words) > len(s.sum) {
		s.sum = make([]float64, words)
		s.seen = make([]uint64, (words+63)/64)
	}
}

func (s *wordSums) add(word uint32, v float64) {
	if bit := uint64(1) << (word % 64); s.seen[word/64]&bit == 0 {
		s.seen[word/64] |= bit
		s.met = append(s.met, word)
	}
	s.sum[word] += v
}

// clear zeroes the sums of the words met.
func (s *wordSums) clear() {
	for _, word := range s.met {
		s.sum[word] = 0
		s.seen[word/64] = 0
	}
	s.met = s.met[:0]
}

// Interpolate is RM3's expanded query: (1−β)·P(w|q) + β·P(w|R), β =
// cfg.FeedbackWeight. weights are the query's words' (their counts or
// weights), rescaled in place so that the query keeps its total weight;
// model is the relevance model, at(w) the position of its word w among
// the query's words (-1: none), and df(w) how many of the n pages hold
// it. The words new to the query come back in the model's order, with
// their weights as P, at most room of them. A new word held by more than
// cfg.FeedbackMaxDF of the pages is left out, and its P(w|R) out of the
// model's mass: such a word's idf is low, so it moves a page's score
// little, yet its postings would be most of what the expanded query
// reads.
func Interpolate(cfg RetrievalConfig, weights []float64, model []RelevanceWord, at func(uint32) int, df func(uint32) uint64, n uint64, room int) []RelevanceWord {
	common := func(m RelevanceWord) bool {
		return at(m.Word) < 0 && float64(df(m.Word)) > cfg.FeedbackMaxDF*float64(n)
	}
	var modelSum, querySum float64
	for _, m := range model {
		if !common(m) {
			modelSum += m.P
		}
	}
	for _, w := range weights {
		querySum += w
	}
	if modelSum == 0 || querySum == 0 {
		return nil
	}
	beta := cfg.FeedbackWeight
	for i := range weights {
		weights[i] = (1 - beta) * weights[i] / querySum
	}
	var added []RelevanceWord
	for _, m := range model {
		if common(m) {
			continue
		}
		if i := at(m.Word); i >= 0 {
			weights[i] += beta * m.P / modelSum
			continue
		}
		if len(added) < room {
			added = append(added, RelevanceWord{Word: m.Word, P: beta * m.P / modelSum})
		}
	}
	for i := range weights {
		weights[i] *= querySum
	}
	for i := range added {
		added[i].P *= querySum
	}
	return added
}
