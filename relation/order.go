package relation

import (
	"cmp"
	"slices"
)

// GroupCosts returns a_i of §4.3 for each probe of a plan sent one per
// interval I:
//
//	a_i = (1/|L|) Σ_{e_j ∈ g_i} ½·w(e_j)·λ_j·I²
//
// where g_i is the probe's group and |L| = len(tuples).
func GroupCosts(tuples []Tuple, probes []Probe, interval float64) []float64 {
	a := make([]float64, len(probes))
	if len(tuples) == 0 {
		return a
	}
	for i, p := range probes {
		for _, j := range p.Tuples {
			a[i] += 0.5 * tuples[j].Weight * tuples[j].Rate * interval * interval
		}
		a[i] /= float64(len(tuples))
	}
	return a
}

// AscendingOrder is the greedy query order of §4.3: sort a_i ascending and
// send q_{p_i} in slot i, so the group whose staleness grows fastest is
// synchronised last, closest to t = kI, which minimises Eq. 4 by the
// rearrangement inequality. It returns the probe indices in sending order;
// equal a_i keep their plan order.
func AscendingOrder(a []float64) []int {
	order := make([]int, len(a))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(a[i], a[j]) })
	return order
}

// Slots turns a sending order into x_i of §4.3: x[order[s]] = s+1.
func Slots(order []int) []int {
	x := make([]int, len(order))
	for s, i := range order {
		x[i] = s + 1
	}
	return x
}

// ExpectedLoopStaleness is Eq. 4, E[F(L;kI)] = Σ a_i·(k − x_i)², for k
// queries where group i was last synchronised in slot x_i (0: at the start
// of the loop, i.e. not in it).
func ExpectedLoopStaleness(a []float64, x []int) float64 {
	k := len(a)
	total := 0.0
	for i := range a {
		d := float64(k - x[i])
		total += a[i] * d * d
	}
	return total
}
