package frontier

import (
	"context"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// candidate is one page a rate-based policy considers.
type candidate struct {
	url       string
	lastFetch time.Time
	log       []repo.FetchRecord
}

// readCandidates loads every candidate page with its fetch history.
func readCandidates(ctx context.Context, pages Pages) ([]candidate, error) {
	var out []candidate
	for p, err := range pages.Candidates(ctx) {
		if err != nil {
			return nil, err
		}
		log, err := pages.FetchLog(ctx, p.URL)
		if err != nil {
			return nil, err
		}
		out = append(out, candidate{url: p.URL, lastFetch: p.LastFetch, log: log})
	}
	return out, nil
}

// scheduleByRate turns per-period refresh rates into this period's picks:
// a page refreshed f times a period is due every 1/f periods, so the pages
// most overdue relative to their interval, (t − LR)·f, go first. Pages the
// allocation left at f = 0 only fill slots nothing else wants, oldest
// first, so the budget is always spent.
func scheduleByRate(plan Plan, cands []candidate, rate []float64) []string {
	top := newTopN(plan.N)
	for i, c := range cands {
		age := plan.periods(c.lastFetch)
		top.offer(c.url, age*rate[i], age)
	}
	return top.urls()
}

// meanOr returns the mean of the known values, or def if there are none.
func meanOr(vals []float64, known []bool, def float64) float64 {
	sum, n := 0.0, 0
	for i, v := range vals {
		if known[i] {
			sum += v
			n++
		}
	}
	if n == 0 {
		return def
	}
	return sum / float64(n)
}

// defaultChangeRate is the change rate assumed for every page before any
// page has a re-fetch history: one change per period. It only matters in
// the first periods, and it makes every policy start out round-robin.
const defaultChangeRate = 1.0

// importanceOf returns the importance of url, 1 without an Importance.
func importanceOf(imp Importance, url string) float64 {
	if imp == nil {
		return 1
	}
	return imp(url)
}
