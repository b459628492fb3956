package discovery

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// greedyFixture: N(a) = {1,2,3,4}, N(b) = {4,5,6}, N(c) = {5,6,7},
// N(d) = {7,8}. GREEDY takes a (4 new), then c (adds 5,6,7: 3, against
// b's 2 and d's 2), then d (adds 8); b never adds anything after that.
func greedyFixture(t *testing.T) *Bipartite {
	return coverOf(t, "a:1 2 3 4", "b:4 5 6", "c:5 6 7", "d:7 8")
}

func TestGreedyBudgetedCover(t *testing.T) {
	h := greedyFixture(t)
	tests := []struct {
		name    string
		k       int
		want    []string
		covered int
	}{
		{"a budget of one takes the page covering most", 1, []string{"a"}, 4},
		{"the second page is the one adding most, not the one covering most", 2, []string{"a", "c"}, 7},
		{"three pages cover everything", 3, []string{"a", "c", "d"}, 8},
		{"a larger budget stops when nothing is left to cover", 10, []string{"a", "c", "d"}, 8},
		{"a zero budget selects nothing", 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Greedy(h, tt.k)
			if !same(names(got), tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("Greedy(k=%d) = %v, want %v", tt.k, names(got), tt.want)
			}
			if c := h.Covered(got); c != tt.covered {
				t.Errorf("covers %d, want %d", c, tt.covered)
			}
		})
	}
	t.Run("OD, by degree alone, covers less with two pages", func(t *testing.T) {
		got := OD(h, 2)
		if !same(names(got), []string{"a", "b"}) || h.Covered(got) != 6 {
			t.Errorf("OD(k=2) = %v covering %d; want [a b] covering 6", names(got), h.Covered(got))
		}
	})
}

func TestGreedyPartialCover(t *testing.T) {
	h := greedyFixture(t)
	tests := []struct {
		name string
		rho  float64
		want []string
	}{
		{"ρ = 0 needs no page", 0, nil},
		{"half of 8 pages is reached by the first page", 0.5, []string{"a"}},
		{"60 % needs ⌈4.8⌉ = 5 pages covered", 0.6, []string{"a", "c"}},
		{"7/8 is reached exactly by two pages", 0.875, []string{"a", "c"}},
		{"90 % needs ⌈7.2⌉ = 8, everything", 0.9, []string{"a", "c", "d"}},
		{"ρ = 1 is the full cover", 1, []string{"a", "c", "d"}},
		{"ρ above 1 is clamped to the full cover", 1.5, []string{"a", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(PartialCover(h, tt.rho))
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("PartialCover(ρ=%v) = %v, want %v", tt.rho, got, tt.want)
			}
		})
	}
}

func TestGreedyOrderAndTies(t *testing.T) {
	t.Run("ties go to the smaller URL", func(t *testing.T) {
		h := coverOf(t, "q:3 4", "p:1 2", "r:5")
		order, gains := GreedyOrder(h)
		if !same(names(order), []string{"p", "q", "r"}) || !slices.Equal(gains, []int{2, 2, 1}) {
			t.Errorf("order %v gains %v", names(order), gains)
		}
	})
	t.Run("orphans do not keep the cover from completing", func(t *testing.T) {
		h := snapshot(t, "a>n1; n2>n3", "a")
		if got := names(PartialCover(h, 1)); !same(got, []string{"a"}) {
			t.Errorf("PartialCover(1) = %v, want [a]", got)
		}
	})
}

// TestLazyGreedyMatchesPlainGreedy compares the heap-based GREEDY with the
// algorithm as printed in §3.5.2 on random covers.
func TestLazyGreedyMatchesPlainGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 300 {
		var spec []string
		for x := range 1 + r.IntN(12) {
			var ys []string
			for range 1 + r.IntN(6) {
				ys = append(ys, show(r.IntN(15)))
			}
			spec = append(spec, string(rune('a'+x))+":"+strings.Join(ys, " "))
		}
		h := coverOf(t, spec...)
		got, _ := GreedyOrder(h)

		var want []string
		covered := map[int32]bool{}
		for {
			best, bestGain := -1, 0
			for i, n := range h.Neighbors {
				gain := 0
				for _, y := range n {
					if !covered[y] {
						gain++
					}
				}
				if gain > bestGain { // strict: the first (smallest URL) wins ties
					best, bestGain = i, gain
				}
			}
			if best < 0 {
				break
			}
			for _, y := range h.Neighbors[best] {
				covered[y] = true
			}
			want = append(want, h.Old[best])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%v): lazy %v, plain %v", trial, spec, names(got), names(want))
		}
	}
}
