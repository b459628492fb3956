package index

import (
	"context"
	"math"
	"math/bits"
	"slices"
)

// This file is dynamic pruning for best-match retrieval: MaxScore (Turtle
// and Flood 1995) over the in-memory postings, document at a time, so the
// best k pages of a query are found without scoring every page that holds
// one of its words.
//
// match uses it where it pays: the RM3 feedback pages (k =
// feedback_docs) of a long query, where on digitalgov-2023 week 0 with
// the trec-mq queries it scores about 140 of the ~1,300 pages holding a
// word and takes ~17 µs against ~27 µs for scoring them all. The
// expanded query's 200 candidates are still scored exhaustively: with
// ~25 words (feedback_terms was 20), most of them common, the bound on
// the 200th score leaves most lists essential, and walking them
// document at a time (~3,000 pages visited, ~900 scored of ~4,300) took
// 1.0 ms against 0.38 ms for accumulating all ~23,000 postings term at a
// time, which summing them densely (accumulateDense) has since brought
// to ~35 µs.
//
// Each word's score on a page is at most its weight (idf × query weight)
// times the largest BM25 saturation tf·(k1+1)/(tf+k1·norm) over its
// postings (snapText.saturations, computed once per word and snapshot). The
// words are ordered by that bound; once k pages are held, the words whose
// bounds sum to no more than the k-th best score are non-essential: a page
// holding only them cannot enter, so only the essential words' postings
// are walked, and a page found there is looked up in the non-essential
// lists (best bound first) only while its score so far plus the bounds
// left could still beat the k-th.
//
// Exactness (the same pages, scores and ties as scoring every page, then
// sortBest):
//
//   - A page that is scored gets accumulate's float64: its words' shares
//     are the same products of weight and kept saturation, added in the
//     plan's word order, starting from zero.
//   - A page is skipped only when an upper bound of its score is at most
//     the k-th best score held. Pages are visited in ascending document
//     number, so a page that ties the k-th loses the tie (compareCandidates:
//     lower number first) and skipping it changes nothing. The bounds are
//     raised by a relative 1e-9, far above the rounding of a sum of at
//     most 64 shares, so rounding never makes a bound too low.
//   - The k-th best score only rises, so a page skipped could not have
//     entered later either.

// boundSlack raises every score bound, so that float64 rounding of the
// shares and of their sums never makes a bound lower than a score.
const boundSlack = 1 + 1e-9

// prunable reports whether bestMatches may take p's best pages: every
// page with a word qualifies (at most one word required, no filter) and
// the scores are the text field's alone, with the snapshot's statistics.
func (ix *Index) prunable(p *matchPlan, st *snapText) bool {
	return p.required <= 1 && !p.titleOnly && ix.cfg.Retrieval.TitleWeight == 0 &&
		len(p.phrases)+len(p.sites)+len(p.mustNot) == 0 && p.meanLen == st.meanLen
}

// wordCursor walks one word's postings in bestMatches.
type wordCursor struct {
	list  []termPosting
	sats  []float64 // the saturation of each of list's postings
	at    int
	term  int     // the word's index in the plan
	w     float64 // idf × query weight
	bound float64 // the largest share the word gives a page, raised by boundSlack
}

// seek moves c to its first posting of a document ≥ doc (galloping, then
// binary search: documents ascend) and reports whether it holds doc.
func (c *wordCursor) seek(doc uint32) bool {
	l, lo := c.list, c.at
	if lo < len(l) && l[lo].of < doc {
		step := 1
		for lo+step < len(l) && l[lo+step].of < doc {
			lo += step
			step *= 2
		}
		hi := min(lo+step, len(l))
		k, _ := slices.BinarySearchFunc(l[lo:hi], doc, func(p termPosting, doc uint32) int {
			return int(int64(p.of) - int64(doc))
		})
		lo += k
	}
	c.at = lo
	return lo < len(l) && l[lo].of == doc
}

// wordCursors returns a cursor on each of p's words that a page has,
// lowest bound first, and sum, where sum[j] bounds the score of a page
// holding only curs[:j+1]: bestMatches skips a page whose words cannot
// beat the k-th best.
func (ix *Index) wordCursors(st *snapText, p *matchPlan) (curs []wordCursor, sum []float64) {
	cfg := ix.cfg.Retrieval
	k1, b := cfg.K1, cfg.B
	curs = make([]wordCursor, 0, len(p.terms))
	for i, t := range p.terms {
		id, ok := st.term(t.term)
		if !ok {
			continue
		}
		w, sats := t.idf*t.weight, st.saturations(id, k1, b, p.meanLen)
		curs = append(curs, wordCursor{list: st.postingsOf(id), sats: sats.v, term: i, w: w, bound: w * sats.max * boundSlack})
	}
	slices.SortStableFunc(curs, func(a, c wordCursor) int {
		switch {
		case a.bound < c.bound:
			return -1
		case a.bound > c.bound:
			return 1
		}
		return 0
	})
	sum = make([]float64, len(curs))
	acc := 0.0
	for j, c := range curs {
		acc += c.bound
		sum[j] = acc * boundSlack
	}
	return curs, sum
}

// bestMatches appends to cands the k best pages of p (compareCandidates
// order, unsorted) as accumulate followed by sortBest(cands, k) finds
// them, scoring only the pages that can be among them. p must be
// prunable.
func (ix *Index) bestMatches(ctx context.Context, st *snapText, p *matchPlan, k int, cands []candidate) ([]candidate, error) {
	curs, sum := ix.wordCursors(st, p)
	if k <= 0 || len(curs) == 0 {
		return cands, nil
	}
	base := len(cands)
	best := cands // best[base:] is a heap, worst on top, of at most k pages
	theta := math.Inf(-1)
	essential := 0 // curs[essential:] are essential
	var share [maxMatchTerms]float64
	for visited := 0; ; visited++ {
		if visited%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return cands, err
			}
		}
		doc := uint32(math.MaxUint32)
		more := false
		for j := essential; j < len(curs); j++ {
			if c := &curs[j]; c.at < len(c.list) {
				doc, more = min(doc, c.list[c.at].of), true
			}
		}
		if !more {
			break
		}
		var matched uint64
		partial := 0.0
		for j := essential; j < len(curs); j++ {
			c := &curs[j]
			if c.at < len(c.list) && c.list[c.at].of == doc {
				s := c.w * c.sats[c.at]
				share[c.term], matched, partial = s, matched|1<<c.term, partial+s
				c.at++
			}
		}
		out := false
		for j := essential - 1; j >= 0; j-- {
			if (partial+sum[j])*boundSlack <= theta {
				out = true
				break
			}
			if c := &curs[j]; c.seek(doc) {
				s := c.w * c.sats[c.at]
				share[c.term], matched, partial = s, matched|1<<c.term, partial+s
			}
		}
		if out {
			continue
		}
		// accumulate's sum: the shares in the plan's word order.
		score := 0.0
		for m := matched; m != 0; m &= m - 1 {
			score += share[bits.TrailingZeros64(m)]
		}
		c := candidate{doc: uint64(doc), score: score, matched: matched}
		heap := best[base:]
		switch {
		case len(heap) < k:
			best = append(best, c)
			siftUp(best[base:], len(heap))
		case compareCandidates(c, heap[0]) < 0:
			heap[0] = c
			siftDown(heap, 0)
		default:
			continue
		}
		if heap = best[base:]; len(heap) == k {
			theta = heap[0].score
			for essential < len(curs) && sum[essential] <= theta {
				essential++
			}
		}
	}
	return best, nil
}

// siftUp and siftDown keep h a heap with the worst candidate
// (compareCandidates) on top.
func siftUp(h []candidate, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if compareCandidates(h[i], h[parent]) <= 0 {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func siftDown(h []candidate, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && compareCandidates(h[l], h[worst]) > 0 {
			worst = l
		}
		if r < len(h) && compareCandidates(h[r], h[worst]) > 0 {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
