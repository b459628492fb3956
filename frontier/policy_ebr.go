package frontier

import "context"

// EBR is embarrassment-based re-fetching (Wolf, Squillante, Yu, Sethuraman
// and Ozsen, "Optimal crawling strategies for web search engines", WWW
// 2002), as thesis §4.7.1 applies it under the Poisson model: embarrassment
// accrues when a user is shown a stale page that has become irrelevant;
// d(p), the probability that an update makes p irrelevant, is the fraction
// of p's observed updates whose shingle difference reaches τ
// (frontier.tau). Minimizing expected embarrassment is the freshness
// allocation weighted by d(p)·importance(p), the page's weight under the
// query workload.
type EBR struct {
	Tau        float64 // τ_EBR
	Importance Importance
}

// Name implements Policy.
func (*EBR) Name() string { return "ebr" }

// Select implements Policy.
func (e *EBR) Select(ctx context.Context, plan Plan, pages Pages) ([]string, error) {
	cands, err := readCandidates(ctx, pages)
	if err != nil {
		return nil, err
	}
	lambda := make([]float64, len(cands))
	rateKnown := make([]bool, len(cands))
	d := make([]float64, len(cands))
	dKnown := make([]bool, len(cands))
	for i, c := range cands {
		h := readHistory(c.log, e.Tau)
		lambda[i], rateKnown[i] = changeRate(h.intervals, h.updates, h.span, plan.Period)
		if h.updates > 0 {
			d[i], dKnown[i] = float64(h.changes)/float64(h.updates), true
		}
	}
	lambdaPrior := meanOr(lambda, rateKnown, defaultChangeRate)
	dPrior := meanOr(d, dKnown, 1)
	weight := make([]float64, len(cands))
	for i, c := range cands {
		if !rateKnown[i] {
			lambda[i] = lambdaPrior
		}
		if !dKnown[i] {
			d[i] = dPrior
		}
		weight[i] = d[i] * importanceOf(e.Importance, c.url)
	}
	return scheduleByRate(plan, cands, allocateFreshness(lambda, weight, float64(plan.N))), nil
}
