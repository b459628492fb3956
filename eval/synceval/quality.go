package synceval

import (
	"context"
	"slices"

	"golang.org/x/sync/errgroup"
)

// ideal is the side of eq. 4.5 that depends only on the live web: for
// every week and query, the live score S(W[p], q) of every live page that
// matches and the ideal answer's value Σ_r I(r)·S over those pages in
// descending order of live score (eq. 4.4). It is computed once per
// archive and shared, read-only, by every run of a sweep. Memory: one
// URL id and one score per (week, query, matching page) — 16.7 M entries,
// 200 MB, for digitalgov-2023 under TREC MQ.
type ideal struct {
	c       *corpus
	wl      *workload
	inspect inspection
	weeks   []weekIdeal
}

// weekIdeal is one week of the ideal side.
type weekIdeal struct {
	queries []queryWeek // by workload query
	// denominator is Σ_q f_q·Σ_r I(R(p, A(q, W)))·S(W[p], q) (eq. 4.5).
	denominator float64
}

// queryWeek is one query in one week.
type queryWeek struct {
	// urls are the live pages matching the query (URL ids, ascending) and
	// scores their S(W_w[p], q): the live scores a local answer is
	// looked up in.
	urls   []int32
	scores []float64
	value  float64 // Σ_r I(r)·S over the ideal answer
}

// buildIdeal computes the ideal side for every week on workers goroutines.
func buildIdeal(ctx context.Context, c *corpus, wl *workload, m model, inspectionC float64, workers int) (*ideal, error) {
	id := &ideal{c: c, wl: wl, inspect: newInspection(inspectionC, len(c.urls)), weeks: make([]weekIdeal, c.weeks())}
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for w := range c.weeks() {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			id.weeks[w] = id.week(w, m)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return id, nil
}

// week computes the ideal side of week w.
func (id *ideal) week(w int, m model) weekIdeal {
	ws := m.newWeekScorer(id.c, w, id.wl.queries)
	var sorted []float64 // scratch, reused across the week's queries
	wi := weekIdeal{queries: make([]queryWeek, len(id.wl.queries))}
	for k := range id.wl.queries {
		q := &id.wl.queries[k]
		var qw queryWeek
		ws.answer(q, func(d doc, s float64) {
			qw.urls = append(qw.urls, d.url)
			qw.scores = append(qw.scores, s)
		})
		sorted = append(sorted[:0], qw.scores...)
		sortDescending(sorted)
		for r, v := range sorted {
			qw.value += id.inspect[r+1] * v
		}
		wi.queries[k] = qw
		wi.denominator += q.freq * qw.value
	}
	return wi
}

// answerValue is Σ_r I(r)·S(W_w[p_r], q) over a local answer A(q, W^L)
// given as URL ids in rank order (-1 for a URL the archive does not
// have): each page is scored with its live copy of week w, 0 if it is gone
// or no longer matches (eq. 4.3's numerator for one query).
func (id *ideal) answerValue(w, k int, answer []int32) float64 {
	qw := &id.weeks[w].queries[k]
	var v float64
	for r, u := range answer {
		if j, ok := slices.BinarySearch(qw.urls, u); ok {
			v += id.inspect[r+1] * qw.scores[j]
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
