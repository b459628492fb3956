package discovery

import (
	"fmt"
	"slices"
	"testing"
)

// lemma2Fixture has four classes of old pages over 25 new pages: within a
// class every J_ij ≥ 8/11 ≥ 1 − ε_b, across classes every J_ij ≤ 1/19 ≤ ε_s,
// for ε_b = ε_s = 1/3, as Lemma 2 requires.
//
//	a1 = {1..10, 12}, a2 = {1..9}, a3 = {2..10}  J = 9/11, 9/11, 8/10
//	b1 = {12..21}, b2 = {12..20, 22}             J = 9/11
//	c1 = c2 = {23, 24, 25}                       J = 1
//	d1 = {26}                                    a class of its own
func lemma2Fixture(t *testing.T) *Bipartite {
	span := func(lo, hi int, extra ...int) string {
		s := ""
		for i := lo; i <= hi; i++ {
			s += fmt.Sprint(i, " ")
		}
		for _, e := range extra {
			s += fmt.Sprint(e, " ")
		}
		return s
	}
	return coverOf(t,
		"a1:"+span(1, 10, 12), // shares new page 12 with class b: J(a1,b1) = 1/19
		"a2:"+span(1, 9),
		"a3:"+span(2, 10),
		"b1:"+span(12, 21),
		"b2:"+span(12, 20, 22),
		"c1:23 24 25", "c2:23 24 25",
		"d1:26",
	)
}

func jaccard(h *Bipartite, x, y string) float64 {
	i, _ := h.OldIndex(u(x))
	j, _ := h.OldIndex(u(y))
	inter := 0
	for _, a := range h.Neighbors[i] {
		if slices.Contains(h.Neighbors[j], a) {
			inter++
		}
	}
	return float64(inter) / float64(len(h.Neighbors[i])+len(h.Neighbors[j])-inter)
}

func TestClustersRecoverLemma2Classes(t *testing.T) {
	h := lemma2Fixture(t)
	const eps = 1.0 / 3
	classes := [][]string{{"a1", "a2", "a3"}, {"b1", "b2"}, {"c1", "c2"}, {"d1"}}
	// The fixture really satisfies the lemma's condition.
	for ci, c := range classes {
		for _, x := range c {
			for dj, d := range classes {
				for _, y := range d {
					if x == y {
						continue
					}
					j := jaccard(h, x, y)
					if ci == dj && j < 1-eps || ci != dj && j > eps {
						t.Fatalf("fixture breaks Lemma 2: J(%s,%s) = %v", x, y, j)
					}
				}
			}
		}
	}

	cs := Clusters(h, eps)
	var got [][]string
	for _, c := range cs {
		got = append(got, names(c.Members))
	}
	if fmt.Sprint(got) != fmt.Sprint(classes) {
		t.Fatalf("clusters %v, want %v", got, classes)
	}
	t.Run("each class is represented by its highest-degree page, ranked by q", func(t *testing.T) {
		var reps []string
		var qs []float64
		for _, c := range cs {
			reps = append(reps, names([]string{c.Rep})[0])
			qs = append(qs, c.Q)
		}
		// N = 25 coverable new pages; |N(a1)| = 11, |N(b1)| = |N(b2)| = 10.
		if !same(reps, []string{"a1", "b1", "c1", "d1"}) || !slices.Equal(qs, []float64{11.0 / 25, 10.0 / 25, 3.0 / 25, 1.0 / 25}) {
			t.Errorf("reps %v, q %v", reps, qs)
		}
	})
	t.Run("CLIQ takes one representative per class and meets Theorem 1", func(t *testing.T) {
		for k := 1; k <= 5; k++ {
			got := CLIQ(h, k, eps)
			kp := min(k, len(classes))
			if len(got) != kp {
				t.Fatalf("CLIQ(k=%d) = %v", k, names(got))
			}
			opt := bruteForceOptimum(h, k)
			epsS := 1.0 / 19 // the largest J across classes
			bound := (1 - float64(kp)*epsS) / (1 + float64(k)*eps)
			if ratio := float64(h.Covered(got)) / float64(opt); ratio < bound {
				t.Errorf("k=%d: ρ(CLIQ) = %v < Theorem 1's bound %v", k, ratio, bound)
			}
		}
		if got := names(CLIQ(h, 2, eps)); !same(got, []string{"a1", "b1"}) {
			t.Errorf("CLIQ(k=2) = %v, want [a1 b1]", got)
		}
	})
	t.Run("the partition does not depend on the order pages were added", func(t *testing.T) {
		g := NewGraph(0)
		for i := len(h.Old) - 1; i >= 0; i-- {
			x := g.AddPage(h.Old[i])
			for _, y := range h.Neighbors[i] {
				g.AddLink(x, g.AddPage(h.New[y]))
			}
		}
		old := map[string]bool{}
		for _, x := range h.Old {
			old[x] = true
		}
		h2 := Cover(g, func(x string) bool { return old[x] })
		if fmt.Sprint(Clusters(h2, eps)) != fmt.Sprint(cs) {
			t.Errorf("clusters differ when pages are added in reverse")
		}
	})
}

func TestClustersLinkSingly(t *testing.T) {
	// J(x,y) = J(y,z) = 1/3 ≥ 0.2 but J(x,z) = 0: with the thesis's
	// ε_b = 0.8, z joins the cluster through y.
	h := coverOf(t, "x:1 2", "y:2 3", "z:3 4", "w:9")
	cs := Clusters(h, 0.8)
	if len(cs) != 2 || !same(names(cs[0].Members), []string{"x", "y", "z"}) || !same(names(cs[1].Members), []string{"w"}) {
		t.Fatalf("clusters %+v", cs)
	}
	t.Run("a tighter threshold keeps them apart", func(t *testing.T) {
		if cs := Clusters(h, 0.5); len(cs) != 4 {
			t.Errorf("ε_b = 0.5: %d clusters, want 4", len(cs))
		}
	})
}

// bruteForceOptimum returns the most new pages k old pages of h can cover.
func bruteForceOptimum(h *Bipartite, k int) int {
	best := 0
	var rec func(start int, chosen []string)
	rec = func(start int, chosen []string) {
		best = max(best, h.Covered(chosen))
		if len(chosen) == k {
			return
		}
		for i := start; i < len(h.Old); i++ {
			rec(i+1, append(chosen, h.Old[i]))
		}
	}
	rec(0, nil)
	return best
}
