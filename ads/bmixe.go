package ads

import "math"

// BMIXE is BMIX-E (§6.6.3, variant 1): BMIX with the exploration term
// replaced by the variance-aware heuristic of Auer et al. (UCB-tuned),
//
//	√( (ln n_j / n_ij) · min{1/4, V_ij} ),  V_ij = ĉ_ij(1 − ĉ_ij) + √(2 ln n_j / n_ij),
//
// which explores far less than MIX when CTRs are small, because ĉ(1 − ĉ)
// is then small too.
type BMIXE struct{}

// Name returns "bmix-e".
func (BMIXE) Name() string { return "bmix-e" }

// Priority returns (ĉ_ij + exploreE)·b_ij, or +Inf for an ad never shown.
func (BMIXE) Priority(c *Candidate, q Query) float64 { return mixEPriority(c, q, c.Bid) }

// mixEPriority is the BMIX-E priority with bid b.
func mixEPriority(c *Candidate, q Query, b float64) float64 {
	ctr, ok := c.CTR()
	ev := c.evidence()
	if !ok || ev <= 0 {
		return math.Inf(1)
	}
	ln := q.LnN
	v := ctr*(1-ctr) + math.Sqrt(2*ln/ev)
	return (ctr + math.Sqrt(ln/ev*min(0.25, v))) * b
}
