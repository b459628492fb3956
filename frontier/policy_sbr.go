package frontier

import "context"

// SBR is staleness-based re-fetching (Cho and Garcia-Molina, "Synchronizing
// a database to improve freshness", SIGMOD 2000), as thesis §4.7.1 applies
// it: each page's Poisson change rate λ(p) is estimated from its own fetch
// history with the bias-reduced estimator, counting a re-fetch as a change
// only when the fraction of differing shingles reaches τ (frontier.tau);
// the period's budget is spread by the freshness-optimal allocation, which
// gives up on pages that change too often to keep fresh; and the pages most
// overdue under that allocation are re-fetched first.
type SBR struct {
	Tau float64 // τ_SBR
}

// Name implements Policy.
func (*SBR) Name() string { return "sbr" }

// Select implements Policy.
func (s *SBR) Select(ctx context.Context, plan Plan, pages Pages) ([]string, error) {
	cands, err := readCandidates(ctx, pages)
	if err != nil {
		return nil, err
	}
	lambda := make([]float64, len(cands))
	known := make([]bool, len(cands))
	weight := make([]float64, len(cands))
	for i, c := range cands {
		h := readHistory(c.log, s.Tau)
		lambda[i], known[i] = changeRate(h.intervals, h.changes, h.span, plan.Period)
		weight[i] = 1
	}
	prior := meanOr(lambda, known, defaultChangeRate)
	for i := range lambda {
		if !known[i] {
			lambda[i] = prior
		}
	}
	return scheduleByRate(plan, cands, allocateFreshness(lambda, weight, float64(plan.N))), nil
}
