package ads

// BMIXET is BMIX-ET (§6.6.3): BMIX-E's exploration term and BMIX-T's
// throttled bid together.
type BMIXET struct{}

// Name returns "bmix-et".
func (BMIXET) Name() string { return "bmix-et" }

// Priority returns the BMIX-E priority with bid Throttle(c)·b_ij.
func (BMIXET) Priority(c *Candidate, q Query) float64 {
	return mixEPriority(c, q, Throttle(c)*c.Bid)
}
