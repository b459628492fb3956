package discovery

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCover(t *testing.T) {
	// o1 → n1 → n2 → n3 is a chain of new pages (n2 → n1 closes a cycle);
	// o2 reaches the chain through its own new page n4, and links to the
	// old page o1, which does not make o1's new pages o2's; o3 only links
	// to old pages; n5 ↔ n6 are new pages nobody old links to.
	h := snapshot(t, "o1>n1; n1>n2; n2>n3 n1; n3>o3; o2>o1 n4; n4>n1; o3>o2; n5>n6; n6>n5", "o1", "o2", "o3")

	tests := []struct {
		name string
		page string
		want []string
	}{
		{"an old page covers the whole chain of new pages behind its link", "o1", []string{"n1", "n2", "n3"}},
		{"a chain may start at a new page of the old page's own", "o2", []string{"n1", "n2", "n3", "n4"}},
		{"a path through another old page does not count", "o3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := neighbours(h, tt.page); !same(got, tt.want) {
				t.Errorf("N(%s) = %v, want %v", tt.page, got, tt.want)
			}
		})
	}
	t.Run("only old pages that cover something are listed, sorted", func(t *testing.T) {
		if got := names(h.Old); !same(got, []string{"o1", "o2"}) {
			t.Errorf("Old = %v", got)
		}
		if got := names(h.New); !same(got, []string{"n1", "n2", "n3", "n4", "n5", "n6"}) {
			t.Errorf("New = %v", got)
		}
	})
	t.Run("orphans are counted but left out of the coverable total", func(t *testing.T) {
		var orphans []string
		for _, y := range h.Orphans {
			orphans = append(orphans, names([]string{h.New[y]})[0])
		}
		if !same(orphans, []string{"n5", "n6"}) || h.Coverable != 4 {
			t.Errorf("Orphans = %v, Coverable = %d; want [n5 n6], 4", orphans, h.Coverable)
		}
	})
	t.Run("p_x is measured against the coverable new pages", func(t *testing.T) {
		i, _ := h.OldIndex(u("o1"))
		j, _ := h.OldIndex(u("o2"))
		if h.Fraction(i) != 0.75 || h.Fraction(j) != 1 {
			t.Errorf("p_o1, p_o2 = %v, %v; want 0.75, 1", h.Fraction(i), h.Fraction(j))
		}
	})
	t.Run("N(S) is the union of the pages' neighbourhoods", func(t *testing.T) {
		if got := h.Covered(us("o1", "o2", "o3", "n1", "o1")); got != 4 {
			t.Errorf("Covered = %d, want 4", got)
		}
		if got := h.Covered(us("o1")); got != 3 {
			t.Errorf("Covered(o1) = %d, want 3", got)
		}
	})
}

func TestCoverOfASnapshotWithoutNewPages(t *testing.T) {
	h := snapshot(t, "a>b; b>a", "a", "b")
	if len(h.Old) != 0 || len(h.New) != 0 || h.Coverable != 0 || len(h.Orphans) != 0 {
		t.Fatalf("H = %+v", h)
	}
	if got := Greedy(h, 3); len(got) != 0 {
		t.Errorf("Greedy = %v", got)
	}
}

func TestCoverOfALongChainDoesNotRecurse(t *testing.T) {
	g := NewGraph(0)
	prev := g.AddPage(u("old"))
	const n = 200000
	for i := range n {
		id := g.AddPage(u(show(i)))
		g.AddLink(prev, id)
		prev = id
	}
	h := Cover(g, func(x string) bool { return x == u("old") })
	if len(h.Old) != 1 || len(h.Neighbors[0]) != n || h.Coverable != n {
		t.Fatalf("old %d, |N| %d, coverable %d; want 1, %d, %d", len(h.Old), len(h.Neighbors[0]), h.Coverable, n, n)
	}
}

// TestCoverMatchesBreadthFirstSearch compares Cover with the definition:
// a breadth-first search from every old page that only walks new pages.
func TestCoverMatchesBreadthFirstSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		n := 1 + r.IntN(40)
		g := NewGraph(n)
		for i := range n {
			g.AddPage(u(show(i)))
		}
		for range r.IntN(3 * n) {
			g.AddLink(r.IntN(n), r.IntN(n))
		}
		old := map[string]bool{}
		for i := range n {
			if r.IntN(3) == 0 {
				old[u(show(i))] = true
			}
		}
		h := Cover(g, func(x string) bool { return old[x] })

		covered := map[string]bool{}
		for x := range n {
			if !old[g.URL(x)] {
				continue
			}
			seen := map[int]bool{}
			queue := []int{x}
			for len(queue) > 0 {
				v := queue[0]
				queue = queue[1:]
				for _, w := range g.Out(v) {
					if !old[g.URL(w)] && !seen[w] {
						seen[w] = true
						queue = append(queue, w)
					}
				}
			}
			var want []string
			for w := range seen {
				want = append(want, g.URL(w))
				covered[g.URL(w)] = true
			}
			slices.Sort(want)
			if got := h.Yield(g.URL(x)); !slices.Equal(got, want) {
				t.Fatalf("trial %d: N(%s) = %v, want %v", trial, g.URL(x), got, want)
			}
		}
		newPages := 0
		for i := range n {
			if !old[g.URL(i)] {
				newPages++
			}
		}
		if h.Coverable != len(covered) || len(h.Orphans) != newPages-len(covered) {
			t.Fatalf("trial %d: coverable %d, orphans %d; want %d, %d", trial, h.Coverable, len(h.Orphans), len(covered), newPages-len(covered))
		}
	}
}

func TestGraphIgnoresSelfLinksAndUnknownIDs(t *testing.T) {
	g := NewGraph(2)
	a, b := g.AddPage(u("a")), g.AddPage(u("b"))
	if g.AddPage(u("a")) != a {
		t.Fatal("AddPage gave a second id to the same URL")
	}
	g.AddLink(a, a)
	g.AddLink(a, 7)
	g.AddLink(-1, b)
	g.AddLink(a, b)
	g.AddLink(a, b)
	if g.Edges() != 1 || g.Len() != 2 {
		t.Fatalf("Edges, Len = %d, %d; want 1, 2", g.Edges(), g.Len())
	}
}
