package discovery

import "math"

// The estimate of §3.6.4,
//
//	p_i^t = Σ_{t'} α^{t−t'}·p_i^{t'} / Σ_{t'} α^{t−t'},
//
// with t' over the periods of the full re-crawls observed so far, is kept
// as two decayed sums: a numerator per page and one denominator per site.
// A decayed sum stores its value at the period it was last updated and is
// brought forward by α^{Δt} when read or updated, so pages that yield
// nothing cost nothing between re-crawls (their term p_i^{t'} is 0).
// α = 1 is the plain mean over all re-crawls; α = 0 keeps only the most
// recent one (0^0 = 1), which is OD-1.

// decayed is Σ α^{t−t'}·v_{t'}, stored as of period at.
type decayed struct {
	sum float64
	at  int
}

// add adds v observed in period t ≥ d.at.
func (d *decayed) add(alpha float64, t int, v float64) {
	d.sum = d.valueAt(alpha, t) + v
	d.at = t
}

// valueAt returns the sum as of period t ≥ d.at.
func (d decayed) valueAt(alpha float64, t int) float64 {
	if t == d.at || alpha == 1 {
		return d.sum
	}
	return d.sum * math.Pow(alpha, float64(t-d.at))
}

// estimate is p^t for one site: num[x] / den, both as of the same period.
type estimate struct {
	alpha float64
	den   decayed
	last  int // period of the most recent observation
	num   map[string]*decayed
}

func newEstimate(alpha float64) *estimate {
	return &estimate{alpha: alpha, num: map[string]*decayed{}}
}

// observe folds in the p_x^t of one full re-crawl in period t.
func (e *estimate) observe(t int, h *Bipartite) {
	if t < e.last {
		t = e.last // periods must not decrease; a late one counts as the latest
	}
	e.den.add(e.alpha, t, 1)
	e.last = t
	for i, x := range h.Old {
		d := e.num[x]
		if d == nil {
			d = &decayed{at: t}
			e.num[x] = d
		}
		d.add(e.alpha, t, h.Fraction(i))
	}
}

// p returns p_x^t as of the most recent observation.
func (e *estimate) p(x string) float64 {
	d := e.num[x]
	if d == nil {
		return 0
	}
	den := e.den.valueAt(e.alpha, e.last)
	if den == 0 {
		return 0
	}
	return d.valueAt(e.alpha, e.last) / den
}

// ranked returns every page that ever covered a new page with its p_x^t,
// best first.
func (e *estimate) ranked() []scored {
	pages := make([]scored, 0, len(e.num))
	for x := range e.num {
		pages = append(pages, scored{x, e.p(x)})
	}
	rank(pages)
	return pages
}
