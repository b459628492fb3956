package index

import (
	"context"
	"slices"

	bindex "github.com/blevesearch/bleve_index_api"
)

// candidates is accumulate for match, with a shortcut for the commonest
// query: a short one (every word required, no RM3) without filters or a
// title component. Its pages are then the intersection of its words'
// postings whenever at least min_results pages hold every word, and the
// intersection is found by walking the shortest postings list and
// searching the others, instead of scoring every page that holds any word
// and dropping the rest. The scores are accumulate's, summed in the same
// order, so the ranking is the same bit for bit; with fewer pages in the
// intersection, accumulate runs as before (the OR fallback).
func (ix *Index) candidates(ctx context.Context, r bindex.IndexReader, st *snapText, p *matchPlan, cands []candidate) ([]candidate, error) {
	cfg := ix.cfg.Retrieval
	if len(p.terms) >= 2 && len(p.terms) <= cfg.ShortQueryTerms && p.required == len(p.terms) &&
		!p.titleOnly && cfg.TitleWeight == 0 && len(p.phrases)+len(p.sites)+len(p.mustNot) == 0 {
		if all := ix.intersection(st, p, cands); len(all) >= cfg.MinResults {
			return all, nil
		}
	}
	return ix.accumulate(ctx, r, st, p, cands)
}

// intersection appends to cands the pages holding every word of p, scored
// as accumulate scores them (BM25 on the text field, the words' shares
// added in p's order).
func (ix *Index) intersection(st *snapText, p *matchPlan, cands []candidate) []candidate {
	cfg := ix.cfg.Retrieval
	n := len(p.terms)
	lists := make([][]termPosting, n)
	for i, t := range p.terms {
		if lists[i] = st.postings(t.term); len(lists[i]) == 0 {
			return cands
		}
	}
	// Walk the shortest list; each other list is searched from where the
	// previous page was found (pages ascend in every list).
	short := 0
	for i := range lists {
		if len(lists[i]) < len(lists[short]) {
			short = i
		}
	}
	at := make([]int, n)   // position of the current page in each list
	from := make([]int, n) // where the next search in each list starts
	k1, b, meanLen := cfg.K1, cfg.B, p.meanLen
	matched := uint64(1)<<n - 1
next:
	for j, d := range lists[short] {
		at[short] = j
		for i, l := range lists {
			if i == short {
				continue
			}
			k, found := slices.BinarySearchFunc(l[from[i]:], d.of, func(p termPosting, doc uint32) int {
				return int(int64(p.of) - int64(doc))
			})
			from[i] += k
			if from[i] == len(l) {
				break next
			}
			if !found {
				continue next
			}
			at[i] = from[i]
		}
		norm := lengthNorm(b, st.length[d.of], meanLen)
		score := 0.0
		for i, t := range p.terms {
			w := t.idf * t.weight
			score += w * saturation(float64(lists[i][at[i]].tf), norm, k1)
		}
		cands = append(cands, candidate{doc: uint64(d.of), score: score, matched: matched})
	}
	return cands
}
