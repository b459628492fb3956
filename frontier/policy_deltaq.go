package frontier

import (
	"context"
	"math"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// DeltaQ re-fetches the pages whose new content is expected to change what
// users see the most (thesis §4.5–4.7). The index measures ΔQ_A(p, t) each
// time a re-fetched page is re-indexed (§4.6); an unchanged re-fetch
// measures 0. Over the last Window re-downloads R(p),
//
//	δQ_A(p) = (1/|R(p)|) Σ_{t∈R(p)} ΔQ_A(p,t) / (t − LR(p,t))     (§4.7.1)
//
// in ΔQ_A per period, and the priority is P(p, t) = δQ_A(p)·(t − LR(p, t)).
//
// A page with no re-download yet takes the mean δQ_A of its host's
// measured pages (the whole repository's if its host has none). Because a
// page whose estimate is 0 would never be re-fetched and so never
// re-estimated (§7.2's vicious cycle), a share Explore of each period's
// picks goes to the pages fetched longest ago among those priority did not
// pick: with C candidate pages, every page is re-fetched at least once
// every ⌈C / ⌈Explore·N⌉⌉ periods.
type DeltaQ struct {
	Explore float64 // share of picks for exploration
	Window  int     // |R(p)|: re-downloads averaged
}

// Name implements Policy.
func (*DeltaQ) Name() string { return "deltaq" }

// Estimate is a page's δQ_A and how it was obtained, for `page explain`.
type Estimate struct {
	Rate      float64 // δQ_A(p), ΔQ_A per period
	Measured  bool    // from the page's own re-downloads (else a prior)
	Samples   int     // |R(p)|
	LastFetch time.Time
}

// Priority is P(p, t) = δQ_A(p)·(t − LR(p, t)) at plan.Now.
func (e Estimate) Priority(plan Plan) float64 { return e.Rate * plan.periods(e.LastFetch) }

// EstimateOf computes δQ_A(p) from a page's fetch log and ΔQ_A
// measurements (measurement At equals the fetch time of the copy it
// measured). ok is false when the page has no re-download in the window.
func EstimateOf(log []repo.FetchRecord, ms []repo.DeltaQ, window int, period time.Duration) (Estimate, bool) {
	byFetch := make(map[int64]float64, len(ms))
	for _, m := range ms {
		byFetch[m.At.UnixNano()] += m.Value
	}
	var e Estimate
	var sum float64
	var prev time.Time
	var terms []float64
	for _, r := range log {
		if r.Outcome != repo.OutcomeOK && r.Outcome != repo.OutcomeNotModified {
			continue
		}
		if !prev.IsZero() {
			gap := r.At.Sub(prev).Seconds() / period.Seconds()
			if gap > 0 {
				terms = append(terms, byFetch[r.At.UnixNano()]/gap)
			}
		}
		prev = r.At
		e.LastFetch = r.At
	}
	if len(terms) > window {
		terms = terms[len(terms)-window:]
	}
	for _, t := range terms {
		sum += t
	}
	e.Samples = len(terms)
	if e.Samples == 0 {
		return e, false
	}
	e.Rate = sum / float64(e.Samples)
	e.Measured = true
	return e, true
}

// Select implements Policy.
func (d *DeltaQ) Select(ctx context.Context, plan Plan, pages Pages) ([]string, error) {
	cands, err := readCandidates(ctx, pages)
	if err != nil {
		return nil, err
	}
	rate := make([]float64, len(cands))
	measured := make([]bool, len(cands))
	hostSum := map[string]float64{}
	hostN := map[string]int{}
	for i, c := range cands {
		ms, err := pages.DeltaQs(ctx, c.url)
		if err != nil {
			return nil, err
		}
		est, ok := EstimateOf(c.log, ms, d.Window, plan.Period)
		if ok {
			h := urlnorm.Host(c.url)
			hostSum[h] += est.Rate
			hostN[h]++
		}
		rate[i], measured[i] = est.Rate, ok
	}
	globalPrior := meanOr(rate, measured, 0)
	explore := int(math.Ceil(d.Explore * float64(plan.N)))
	top := newTopN(plan.N - explore)
	for i, c := range cands {
		if !measured[i] {
			h := urlnorm.Host(c.url)
			if n := hostN[h]; n > 0 {
				rate[i] = hostSum[h] / float64(n)
			} else {
				rate[i] = globalPrior
			}
		}
		age := plan.periods(c.lastFetch)
		top.offer(c.url, rate[i]*age, age)
	}
	picked := top.urls()
	chosen := make(map[string]bool, len(picked))
	for _, u := range picked {
		chosen[u] = true
	}
	oldest := newTopN(explore)
	for _, c := range cands {
		if !chosen[c.url] {
			oldest.offer(c.url, plan.periods(c.lastFetch), 0)
		}
	}
	return append(picked, oldest.urls()...), nil
}
