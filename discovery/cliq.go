package discovery

import (
	"encoding/binary"
	"slices"
	"strings"
)

// Cluster is a group of old pages that led to nearly the same new pages
// (§3.6.2): an equivalence class of Lemma 2 when its conditions hold.
type Cluster struct {
	// Members are the old pages of the cluster, sorted.
	Members []string
	// Rep is n_i, the member with the largest p_x (the smaller URL on
	// ties), and Q is q_i, its p_x.
	Rep string
	Q   float64
}

// jaccardSlack absorbs rounding in J ≥ 1 − ε_b (1 − 0.7 is not 0.3 in
// floating point).
const jaccardSlack = 1e-9

// Clusters groups the old pages of h as §3.6.2 does: every page starts in
// its own cluster, and page i belongs to cluster C when
// max_{j∈C} J_ij ≥ 1 − ε_b — single linkage, which makes the partition
// well-defined (the connected components of the graph with an edge where
// J_ij ≥ 1 − ε_b). When every pair has J_ij ≥ 1 − ε_b or J_ij ≤ ε_s with
// ε_b, ε_s ≤ 1/3 (Lemma 2) the clusters are exactly its equivalence
// classes. Only pages with N(x) ≠ ∅ take part. The clusters are returned
// in CLIQ's order: q_i descending, the smaller representative first.
//
// Pairs are found through the new pages they share, never by comparing
// all pairs: pages with identical N(x) are grouped first (a new page in a
// site-wide menu makes thousands of pages identical), and the cost is
// O(Σ_y g_y²) for g_y distinct neighbourhoods containing new page y.
func Clusters(h *Bipartite, epsilonB float64) []Cluster {
	threshold := 1 - epsilonB - jaccardSlack

	// Distinct neighbourhoods; pages sharing one have J = 1.
	groupOf := make(map[string]int, len(h.Old))
	var sets [][]int32
	var members [][]int
	var buf []byte
	for i, n := range h.Neighbors {
		buf = buf[:0]
		for _, y := range n {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(y))
		}
		g, ok := groupOf[string(buf)]
		if !ok {
			g = len(sets)
			groupOf[string(buf)] = g
			sets = append(sets, n)
			members = append(members, nil)
		}
		members[g] = append(members[g], i)
	}

	uf := newUnionFind(len(sets))
	inv := make([][]int32, len(h.New))
	for g, s := range sets {
		for _, y := range s {
			inv[y] = append(inv[y], int32(g))
		}
	}
	shared := make([]int32, len(sets))
	var touched []int32
	for g, s := range sets {
		touched = touched[:0]
		for _, y := range s {
			for _, o := range inv[y] {
				if int(o) <= g {
					continue
				}
				if shared[o] == 0 {
					touched = append(touched, o)
				}
				shared[o]++
			}
		}
		for _, o := range touched {
			inter := float64(shared[o])
			union := float64(len(s)+len(sets[o])) - inter
			if inter/union >= threshold {
				uf.union(g, int(o))
			}
			shared[o] = 0
		}
	}

	byRoot := map[int]int{}
	var out []Cluster
	for g := range sets {
		r := uf.find(g)
		c, ok := byRoot[r]
		if !ok {
			c = len(out)
			byRoot[r] = c
			out = append(out, Cluster{})
		}
		cl := &out[c]
		for _, i := range members[g] {
			x, q := h.Old[i], h.Fraction(i)
			cl.Members = append(cl.Members, x)
			if cl.Rep == "" || q > cl.Q || q == cl.Q && x < cl.Rep {
				cl.Rep, cl.Q = x, q
			}
		}
	}
	for i := range out {
		slices.Sort(out[i].Members)
	}
	slices.SortFunc(out, func(a, b Cluster) int {
		switch {
		case a.Q > b.Q:
			return -1
		case a.Q < b.Q:
			return 1
		}
		return strings.Compare(a.Rep, b.Rep)
	})
	return out
}

// CLIQ is the algorithm of §3.6.2 with exact knowledge of H_t: the
// representatives n_i of the k' = min(k, ℓ) clusters with the largest q_i.
// Theorem 1 bounds its ratio to the optimum by (1 − k'ε_s)/(1 + kε_b)
// under the conditions of Lemma 2.
func CLIQ(h *Bipartite, k int, epsilonB float64) []string {
	cs := Clusters(h, epsilonB)
	k = max(0, min(k, len(cs)))
	out := make([]string, k)
	for i := range k {
		out[i] = cs[i].Rep
	}
	return out
}

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct{ parent, size []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = i, 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
}
