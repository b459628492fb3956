package index

import (
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/deltaq/deltaq/internal/querylog"
)

// Workload is the single-term workload Q′ of §4.6.1: every multi-term query
// is broken into its terms, and a term's frequency f_q′ is the sum of the
// frequencies of the queries it occurs in (a query counts once per distinct
// term, however often the term repeats in it).
//
// Terms are produced by the index's own analyzer, so a workload term is
// exactly a term of the index's dictionary: "Running Shoes" contributes
// "run" and "shoe", and stop words ("the", "of") contribute nothing.
//
// A Workload is immutable and safe for concurrent use. Memory: the term
// strings, one float64 and one map entry per distinct term (bounded by
// index.workload_max_terms; the most frequent terms are kept).
type Workload struct {
	terms []string       // sorted
	freq  []float64      // f_q′, parallel to terms
	ids   map[string]int // term → position in terms
	fp    uint64         // fingerprint of terms, to tell workloads apart
	total float64        // Σ f_q of the original queries
}

// NewWorkload splits queries with analyzer a. With maxTerms > 0 only the
// maxTerms most frequent terms are kept (ties broken by term order).
func NewWorkload(queries []querylog.Query, a analysis.Analyzer, maxTerms int) *Workload {
	freq := map[string]float64{}
	var total float64
	seen := map[string]struct{}{}
	for _, q := range queries {
		if q.Count <= 0 {
			continue
		}
		total += q.Count
		clear(seen)
		for _, tok := range a.Analyze([]byte(q.Text)) {
			t := string(tok.Term)
			if _, dup := seen[t]; dup {
				continue
			}
			seen[t] = struct{}{}
			freq[t] += q.Count
		}
	}
	type tf struct {
		term string
		f    float64
	}
	all := make([]tf, 0, len(freq))
	for t, f := range freq {
		all = append(all, tf{t, f})
	}
	if maxTerms > 0 && len(all) > maxTerms {
		slices.SortFunc(all, func(x, y tf) int {
			if c := cmp.Compare(y.f, x.f); c != 0 {
				return c
			}
			return cmp.Compare(x.term, y.term)
		})
		all = all[:maxTerms]
	}
	slices.SortFunc(all, func(x, y tf) int { return cmp.Compare(x.term, y.term) })
	w := &Workload{
		terms: make([]string, len(all)),
		freq:  make([]float64, len(all)),
		ids:   make(map[string]int, len(all)),
		total: total,
	}
	h := fnv.New64a()
	var n [8]byte
	for i, x := range all {
		w.terms[i], w.freq[i], w.ids[x.term] = x.term, x.f, i
		binary.LittleEndian.PutUint64(n[:], uint64(len(x.term)))
		h.Write(n[:])
		h.Write([]byte(x.term))
	}
	w.fp = h.Sum64()
	return w
}

// Len is |Q′|, the number of distinct terms.
func (w *Workload) Len() int {
	if w == nil {
		return 0
	}
	return len(w.terms)
}

// Freq returns f_q′ of a term, and whether the term is in Q′.
func (w *Workload) Freq(term string) (float64, bool) {
	if w == nil {
		return 0, false
	}
	i, ok := w.ids[term]
	if !ok {
		return 0, false
	}
	return w.freq[i], true
}

// Terms returns the terms of Q′ in sorted order.
func (w *Workload) Terms() []string {
	if w == nil {
		return nil
	}
	return slices.Clone(w.terms)
}

// Total is the summed frequency of the original (multi-term) queries.
func (w *Workload) Total() float64 {
	if w == nil {
		return 0
	}
	return w.total
}

// Fingerprint identifies the term set; page snapshots record it (snapshot.go).
func (w *Workload) Fingerprint() uint64 {
	if w == nil {
		return 0
	}
	return w.fp
}

// id returns the position of a term in the sorted term list.
func (w *Workload) id(term string) (int, bool) {
	i, ok := w.ids[term]
	return i, ok
}
