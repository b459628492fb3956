package relation

// IDRoundRobin is the ID-fetching baseline of §5.2: each call hands out
// the next n tuples of a fixed cycle, one request each. Naive 1 cycles
// over every tuple; Naive 2 only over those whose λ is below a threshold
// (the paper's λ < 1, "the item does not change too frequently"), so the
// fast-changing tuples are never synchronised.
type IDRoundRobin struct {
	cycle []int
	next  int
}

// NewNaive1 cycles over all n tuples in index order.
func NewNaive1(n int) *IDRoundRobin {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return &IDRoundRobin{cycle: c}
}

// NewNaive2 cycles over the tuples whose rate is below maxRate.
func NewNaive2(tuples []Tuple, maxRate float64) *IDRoundRobin {
	var c []int
	for i := range tuples {
		if tuples[i].Rate < maxRate {
			c = append(c, i)
		}
	}
	return &IDRoundRobin{cycle: c}
}

// Len is the number of tuples in the cycle.
func (r *IDRoundRobin) Len() int { return len(r.cycle) }

// Next returns the next n tuple indices (fewer when the cycle is shorter
// than n).
func (r *IDRoundRobin) Next(n int) []int {
	n = min(n, len(r.cycle))
	out := make([]int, n)
	for i := range out {
		out[i] = r.cycle[r.next]
		r.next = (r.next + 1) % len(r.cycle)
	}
	return out
}
