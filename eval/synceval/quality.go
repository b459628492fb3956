package synceval

import (
	"cmp"
	"context"
	"slices"
	"unsafe"

	"golang.org/x/sync/errgroup"
)

// ideal is the side of eq. 4.5 that depends only on the live web: for
// every week and query, the ideal answer's value Σ_r I(r)·S over the live
// pages in descending order of live score, cut to the depth a user sees
// (model.depth; eq. 4.4), and what a local answer's pages are scored by
// against it. Under SemanticsThesis that is the live score S(W[p], q) of
// every live page that matches. Under SemanticsSearcher it is how the
// searcher answered on the live week (answerPlan: the scored words, their
// idf and weight, the coordination) and the week's mean length, which give
// S(W[p], q) of any page from its live copy on demand. It is computed once
// per archive and shared, read-only, by every run of a sweep.
//
// Memory, over W weeks and |Q| queries: under SemanticsThesis one URL id
// and one score per (week, query, matching page) — 16.7 M entries, 200
// MB, for digitalgov-2023 under TREC MQ (1,943 queries ANDed); under
// SemanticsSearcher, independent of how many pages match, W·|Q|·(24 + 32·t̄)
// bytes, t̄ the mean number of words scored per query (RM3's included).
type ideal struct {
	c       *corpus
	wl      *workload
	m       model
	inspect inspection
	weeks   []weekIdeal
}

// weekIdeal is one week of the ideal side.
type weekIdeal struct {
	// values are Σ_r I(r)·S over the ideal answer, by workload query.
	values []float64
	// thesis are, under SemanticsThesis, the live pages matching each
	// query (URL ids, ascending) and their S(W_w[p], q).
	thesis []liveScores
	// Under SemanticsSearcher: each query's plan (words in terms) and the
	// week's mean length.
	plans   []planRef
	terms   []sterm
	meanLen float64
	// denominator is Σ_q f_q·Σ_r I(R(p, A(q, W)))·S(W[p], q) (eq. 4.5).
	denominator float64
}

// liveScores are the live pages answering one query in one week.
type liveScores struct {
	urls   []int32
	scores []float64
}

// planRef is an answerPlan whose words are weekIdeal.terms[off:off+n].
type planRef struct {
	off, n      int32
	required    int32
	coordinated bool
}

// buildIdeal computes the ideal side for every week on workers goroutines.
func buildIdeal(ctx context.Context, c *corpus, wl *workload, m model, inspectionC float64, workers int) (*ideal, error) {
	id := &ideal{c: c, wl: wl, m: m, inspect: newInspection(inspectionC, len(c.urls)), weeks: make([]weekIdeal, c.weeks())}
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for w := range c.weeks() {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			id.weeks[w] = id.week(w)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return id, nil
}

// week computes the ideal side of week w.
func (id *ideal) week(w int) weekIdeal {
	ws := id.m.newWeekScorer(id.c, w, id.wl.queries)
	var sorted []float64 // scratch, reused across the week's queries
	var urls []int32
	n := len(id.wl.queries)
	wi := weekIdeal{values: make([]float64, n)}
	if ws.li != nil {
		wi.plans, wi.meanLen = make([]planRef, n), ws.li.meanLen
	} else {
		wi.thesis = make([]liveScores, n)
	}
	for k := range id.wl.queries {
		q := &id.wl.queries[k]
		urls, sorted = urls[:0], sorted[:0]
		plan := ws.answer(q, func(d doc, s float64) {
			urls = append(urls, d.url)
			sorted = append(sorted, s)
		})
		if ws.li != nil {
			wi.plans[k] = planRef{off: int32(len(wi.terms)), n: int32(len(plan.terms)), required: int32(plan.required), coordinated: plan.coordinated}
			wi.terms = append(wi.terms, plan.terms...)
		} else {
			wi.thesis[k] = liveScores{urls: slices.Clone(urls), scores: slices.Clone(sorted)}
		}
		var v float64
		for r, s := range topDescending(sorted, id.m.visible(len(sorted))) {
			v += id.inspect[r+1] * s
		}
		wi.values[k] = v
		wi.denominator += q.freq * v
	}
	wi.terms = slices.Clip(wi.terms)
	return wi
}

// size is the memory the ideal side holds, in bytes (the formula of
// ideal's doc).
func (id *ideal) size() int {
	n := 0
	for _, wi := range id.weeks {
		n += 8 * len(wi.values)
		n += int(unsafe.Sizeof(planRef{}))*len(wi.plans) + int(unsafe.Sizeof(sterm{}))*len(wi.terms)
		for _, ls := range wi.thesis {
			n += 4*len(ls.urls) + 8*len(ls.scores)
		}
	}
	return n
}

// liveScore is S(W_w[p], q_k) for URL u: 0 if the page is not live in
// week w or the query's live answer would not hold it.
func (id *ideal) liveScore(w, k int, u int32) float64 {
	wi := &id.weeks[w]
	if wi.thesis != nil {
		ls := &wi.thesis[k]
		if j, ok := slices.BinarySearch(ls.urls, u); ok {
			return ls.scores[j]
		}
		return 0
	}
	live := id.c.live[w]
	j, ok := slices.BinarySearchFunc(live, u, func(d doc, u int32) int { return cmp.Compare(d.url, u) })
	if !ok {
		return 0
	}
	ref := wi.plans[k]
	plan := answerPlan{terms: wi.terms[ref.off : ref.off+ref.n], required: int(ref.required), coordinated: ref.coordinated}
	return plan.score(id.m.retrieval, id.c, &id.c.bodies[live[j].body], wi.meanLen)
}

// answerValue is Σ_r I(r)·S(W_w[p_r], q) over a local answer A(q, W^L)
// given as URL ids in rank order (-1 for a URL the archive does not
// have), cut to the depth a user sees: each page is scored with its live
// copy of week w, 0 if it is gone or no longer matches (eq. 4.3's
// numerator for one query).
func (id *ideal) answerValue(w, k int, answer []int32) float64 {
	var v float64
	for r, u := range answer[:id.m.visible(len(answer))] {
		if u >= 0 {
			v += id.inspect[r+1] * id.liveScore(w, k, u)
		}
	}
	return v
}

// quality is Q(W^L) of eq. 4.5 for week w: answers[k] is the local answer
// to query k (URL ids in rank order). An empty workload or a week where
// no query has a live result has quality 1 by convention (nothing to
// lose).
func (id *ideal) quality(w int, answers [][]int32) float64 {
	wi := &id.weeks[w]
	if wi.denominator == 0 {
		return 1
	}
	var num float64
	for k, a := range answers {
		num += id.wl.queries[k].freq * id.answerValue(w, k, a)
	}
	return num / wi.denominator
}
