package ads

import "math"

// BMIXT is BMIX-T (§6.6.3, variant 2): BMIX with each bid discounted by
// the throttling factor of Mehta et al., b_ij → φ(d′_i)·b_ij, so that an
// advertiser is shown less often as its budget runs down.
type BMIXT struct{}

// Name returns "bmix-t".
func (BMIXT) Name() string { return "bmix-t" }

// Priority returns the MIX priority with bid Throttle(c)·b_ij.
func (BMIXT) Priority(c *Candidate, q Query) float64 {
	return mixPriority(c, q, Throttle(c)*c.Bid)
}

// Throttle returns φ(d′_i) = 1 − e^(−d′_i/d_i), where d_i is the
// advertiser's daily budget and d′_i what remains of it today (§6.6.3). It
// is 1 − 1/e ≈ 0.632 for an untouched budget and falls to 0 as the budget
// runs out. An unbudgeted advertiser never spends any fraction of its
// budget, so it gets the untouched-budget factor 1 − 1/e: throttling then
// ranks it exactly as a budgeted advertiser that has spent nothing today.
func Throttle(c *Candidate) float64 {
	if !c.Budgeted {
		return 1 - 1/math.E
	}
	if c.Budget <= 0 || c.Remaining <= 0 {
		return 0
	}
	return 1 - math.Exp(-c.Remaining/c.Budget)
}
