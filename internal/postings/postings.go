// Package postings is a keyword → document-number inverted index with
// conjunctive lookup: the documents holding every keyword of a query, as a
// keyword-search interface answers it (Yang et al. §3). The replay's added
// search, a relation's server-coverage sample and GreedyProbes all match
// queries this way.
//
// State: one ascending []int32 per keyword, at most one entry per
// document; documents must be added in ascending number order.
//
// Usage:
//
//	ix := postings.Index{}
//	ix.Add(0, []string{"git", "commit"})
//	ix.Add(1, []string{"git", "push"})
//	ix.All([]string{"git", "push"}) // [1]
package postings

import "slices"

// Index maps a keyword to the ascending numbers of the documents holding it.
type Index map[string][]int32

// Add records that document doc holds keywords; doc must not be smaller
// than any document added before. Repeated keywords count once.
func (ix Index) Add(doc int32, keywords []string) {
	for _, k := range keywords {
		p := ix[k]
		if n := len(p); n == 0 || p[n-1] != doc {
			ix[k] = append(p, doc)
		}
	}
}

// All returns the documents holding every keyword, ascending; nil for no
// keywords or when one keyword is absent. The shortest list is walked and
// the others binary-searched.
func (ix Index) All(keywords []string) []int32 {
	if len(keywords) == 0 {
		return nil
	}
	lists := make([][]int32, len(keywords))
	for i, k := range keywords {
		lists[i] = ix[k]
		if len(lists[i]) == 0 {
			return nil
		}
	}
	if len(lists) == 1 {
		return lists[0]
	}
	slices.SortFunc(lists, func(a, b []int32) int { return len(a) - len(b) })
	var out []int32
	for _, d := range lists[0] {
		all := true
		for _, l := range lists[1:] {
			if _, ok := slices.BinarySearch(l, d); !ok {
				all = false
				break
			}
		}
		if all {
			out = append(out, d)
		}
	}
	return out
}
