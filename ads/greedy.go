package ads

import "math"

// Greedy is GREEDY (§6.7): show the ads of highest estimated expected
// revenue ĉ_ij·b_ij among advertisers with budget left. It only exploits;
// to explore minimally it treats ĉ_ij of a never-displayed ad without a
// prior as ∞, as the thesis's experiments do for every policy.
type Greedy struct{}

// Name returns "greedy".
func (Greedy) Name() string { return "greedy" }

// Priority returns ĉ_ij·b_ij, or +Inf for an ad with no estimate yet.
func (Greedy) Priority(c *Candidate, _ Query) float64 {
	ctr, ok := c.CTR()
	if !ok {
		return math.Inf(1)
	}
	return ctr * c.Bid
}
