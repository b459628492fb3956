package ads

// BMIX is MIX run under the budget-aware framework BPOL (§6.6.3): for ads
// whose advertisers have not depleted their budgets, compute the MIX
// priority and show the C highest. MIX keeps its state per ad, so unlike
// generic BPOL it need not restart when an advertiser drops out. Its
// revenue is at least opt(N)/2 − O(ln N) (Theorem 3 with appendix 9.4).
//
// The budget filter itself lives in Select (Candidate.Eligible).
type BMIX struct{}

// Name returns "bmix".
func (BMIX) Name() string { return "bmix" }

// Priority returns the MIX priority.
func (BMIX) Priority(c *Candidate, q Query) float64 { return mixPriority(c, q, c.Bid) }
