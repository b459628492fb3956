package ads

import "math"

// MIX is the policy of §6.5 for the unbudgeted problem, UCB [Auer et al.]
// adapted to bids: P_ij = (ĉ_ij + √(2 ln n_j / n_ij))·b_ij, and ∞ for an ad
// never displayed for the phrase. It makes O(ln n) mistakes for any C
// (appendix 9.4).
//
// Select applies the budget filter to every policy, so MIX and BMIX choose
// the same ads; MIX is kept under its own name for unbudgeted deployments
// and because BMIX is defined in terms of it.
type MIX struct{}

// Name returns "mix".
func (MIX) Name() string { return "mix" }

// Priority returns (ĉ_ij + √(2 ln n_j / n_ij))·b_ij, or +Inf for n_ij = 0.
func (MIX) Priority(c *Candidate, q Query) float64 {
	return mixPriority(c, q, c.Bid)
}

// mixPriority is the MIX priority with bid b (BMIX-T passes φ(d′)·b_ij).
func mixPriority(c *Candidate, q Query, b float64) float64 {
	ctr, ok := c.CTR()
	ev := c.evidence()
	if !ok || ev <= 0 {
		return math.Inf(1)
	}
	return (ctr + math.Sqrt(2*q.LnN/ev)) * b
}
