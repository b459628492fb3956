package synceval

import "github.com/deltaq/deltaq/index"

// ownStats are the statistics the searcher ranks with (index/match.go),
// followed from the change feed rather than read from Bleve: N, the
// summed analysed length and each term's document frequency over the
// copies the index holds. They decide, under SemanticsSearcher, whether an
// answer no re-indexed page touched is still in order.
//
// Such an answer keeps its pages (their postings did not change), but its
// scores move with N (idf) and the mean length (BM25's normalization),
// and two pages may swap. Rather than re-rank every query whenever the
// mean moves (nearly every week), the kept answer is re-scored from the
// corpus under the new statistics (the searcher's formulas, index.Match*)
// and re-ranked only if it is no longer in order or holds a near tie.
// Queries the searcher expands by RM3 depend on their best pages' whole
// text and are re-ranked every week.
type ownStats struct {
	h     *harness
	n     int
	total uint64
	df    []int32 // by term id
	// vocab is the number of terms with df > 0: the text field's
	// cardinality of the index compacted (index.AssumeCompacted).
	vocab int
	// lost is set when a page's indexed copy is not in the corpus: the
	// statistics are then unknown and every answer is re-ranked.
	lost bool
	// At the last ranking.
	lastN       int
	lastMean    float64
	initialized bool
}

func newOwnStats(h *harness) ownStats {
	return ownStats{h: h, df: make([]int32, len(h.c.terms))}
}

// add counts body b in (sign 1) or out (−1); b < 0 is no copy.
func (o *ownStats) add(b int32, sign int) {
	if b < 0 {
		return
	}
	body := &o.h.c.bodies[b]
	o.n += sign
	if sign > 0 {
		o.total += uint64(body.length)
	} else {
		o.total -= uint64(body.length)
	}
	for _, t := range body.terms {
		o.df[t] += int32(sign)
		switch {
		case sign > 0 && o.df[t] == 1:
			o.vocab++
		case sign < 0 && o.df[t] == 0:
			o.vocab--
		}
	}
}

// meanLen is the searcher's mean analysed length (index.textLengths).
func (o *ownStats) meanLen() float64 {
	if o.n > 0 && o.total > 0 {
		return float64(o.total) / float64(o.n)
	}
	return 1
}

// check marks stale every answer of l the statistics' move may have
// reordered; docCount is N as the index reports it.
func (o *ownStats) check(l *localAnswers, docCount uint64) {
	mean := o.meanLen()
	moved := !o.initialized || o.n != o.lastN || mean != o.lastMean
	o.lastN, o.lastMean, o.initialized = o.n, mean, true
	if o.lost || uint64(o.n) != docCount {
		l.staleAll()
		return
	}
	r := o.h.model.retrieval
	for k := range l.stale {
		if l.stale[k] {
			continue
		}
		q := &o.h.wl.queries[k]
		ts := planTerms(q.terms, o.h.model.maxTerms, uint64(o.n), o.dfOf)
		if index.MatchFeedback(r, len(ts)) {
			l.stale[k] = true
			continue
		}
		if moved && !o.inOrder(l, l.answers[k], ts, mean) {
			l.stale[k] = true
		}
	}
}

func (o *ownStats) dfOf(t uint32) uint64 {
	if !o.h.c.known(t) {
		return 0
	}
	return uint64(max(o.df[t], 0))
}

// inOrder reports whether answer, re-scored under the current statistics,
// is still in the searcher's order (score descending, ties by URL) with
// no two scores closer than rounding could blur: its first model.depth
// results in order, and every later one below the last of them
// (localAnswers).
func (o *ownStats) inOrder(l *localAnswers, answer []int32, ts []sterm, mean float64) bool {
	r := o.h.model.retrieval
	c := o.h.c
	depth := o.h.model.visible(len(answer))
	prev, prevURL := 0.0, ""
	for i, u := range answer {
		if u < 0 || l.indexed[u] < 0 {
			return false
		}
		b := &c.bodies[l.indexed[u]]
		var s float64
		for _, t := range ts {
			if tf := b.tfOf(t.id); tf > 0 {
				s += index.MatchTextScore(r, t.idf, t.weight, uint64(tf), b.length, mean)
			}
		}
		url := c.urls[u]
		if i > 0 {
			switch {
			case s == prev:
				if url < prevURL {
					return false
				}
			case s > prev || prev-s <= 1e-12*prev:
				return false
			}
		}
		if i < depth {
			prev, prevURL = s, url
		}
	}
	return true
}
