package frontier

import "context"

// LambdaCrawl allocates re-fetches as Kolobov, Peres, Lu and Horvitz do for
// the harmonic staleness objective ("Staying up to date with online content
// changes using reinforcement learning for scheduling", NeurIPS 2019): a
// page with change rate Δ and importance μ is re-fetched at rate
// ρ = (√(Δ² + 4μΔ/λ) − Δ)/2 per period, the multiplier λ chosen so the
// rates sum to the budget. Δ is estimated from the page's fetch history
// (any change counts), μ from the query workload.
type LambdaCrawl struct {
	Importance Importance
}

// Name implements Policy.
func (*LambdaCrawl) Name() string { return "lambdacrawl" }

// Select implements Policy.
func (l *LambdaCrawl) Select(ctx context.Context, plan Plan, pages Pages) ([]string, error) {
	cands, err := readCandidates(ctx, pages)
	if err != nil {
		return nil, err
	}
	delta := make([]float64, len(cands))
	known := make([]bool, len(cands))
	for i, c := range cands {
		h := readHistory(c.log, 0)
		delta[i], known[i] = changeRate(h.intervals, h.updates, h.span, plan.Period)
	}
	prior := meanOr(delta, known, defaultChangeRate)
	mu := make([]float64, len(cands))
	for i, c := range cands {
		if !known[i] {
			delta[i] = prior
		}
		mu[i] = importanceOf(l.Importance, c.url)
	}
	return scheduleByRate(plan, cands, allocateHarmonic(delta, mu, float64(plan.N))), nil
}
