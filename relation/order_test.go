package relation

import (
	"math"
	"slices"
	"testing"
)

// table3 is the §4.3 example: four tuples of weight 1 with λ = 1, 2, 3, 4,
// q1 covering e1 and e2, q2 covering e3 and e4.
func table3() ([]Tuple, []Probe) {
	tuples := []Tuple{{ID: "e1", Weight: 1, Rate: 1}, {ID: "e2", Weight: 1, Rate: 2}, {ID: "e3", Weight: 1, Rate: 3}, {ID: "e4", Weight: 1, Rate: 4}}
	probes := []Probe{{Keywords: []string{"q1"}, Tuples: []int{0, 1}}, {Keywords: []string{"q2"}, Tuples: []int{2, 3}}}
	return tuples, probes
}

func TestQueryOrderTable3(t *testing.T) {
	tuples, probes := table3()
	a := GroupCosts(tuples, probes, 1)
	if math.Abs(a[0]-0.375) > 1e-12 || math.Abs(a[1]-0.875) > 1e-12 {
		t.Fatalf("a = %v, want [0.375 0.875]", a)
	}
	// Every cell of Table 3: x_i ∈ {0, 1, 2}, distinct unless 0.
	want := map[[2]int]float64{
		{0, 0}: 5, {1, 0}: 3.875, {2, 0}: 3.5,
		{0, 1}: 2.375, {2, 1}: 0.875,
		{0, 2}: 1.5, {1, 2}: 0.375,
	}
	minimum, argmin := math.Inf(1), [2]int{}
	for x, w := range want {
		got := ExpectedLoopStaleness(a, x[:])
		if math.Abs(got-w) > 1e-12 {
			t.Errorf("x1=%d x2=%d: E[F(L;kI)] = %v, want %v", x[0], x[1], got, w)
		}
		if got < minimum {
			minimum, argmin = got, x
		}
	}
	if minimum != 0.375 || argmin != [2]int{1, 2} {
		t.Errorf("minimum %v at x = %v, want 0.375 at (1, 2)", minimum, argmin)
	}
	order := AscendingOrder(a)
	if !slices.Equal(order, []int{0, 1}) {
		t.Errorf("ascending order = %v, want q1 then q2", order)
	}
	if got := ExpectedLoopStaleness(a, Slots(order)); got != 0.375 {
		t.Errorf("E[F] under the ascending order = %v, want 0.375", got)
	}
}

func TestAscendingOrderIsOptimal(t *testing.T) {
	// Against every permutation of five groups: the rearrangement
	// inequality says no order does better.
	a := []float64{0.7, 0.1, 2.5, 0.4, 1.3}
	best := math.Inf(1)
	perm := []int{0, 1, 2, 3, 4}
	var walk func(int)
	walk = func(i int) {
		if i == len(perm) {
			best = math.Min(best, ExpectedLoopStaleness(a, Slots(perm)))
			return
		}
		for j := i; j < len(perm); j++ {
			perm[i], perm[j] = perm[j], perm[i]
			walk(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	walk(0)
	if got := ExpectedLoopStaleness(a, Slots(AscendingOrder(a))); math.Abs(got-best) > 1e-12 {
		t.Errorf("ascending order gives %v, the best permutation %v", got, best)
	}
}
