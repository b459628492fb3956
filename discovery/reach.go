package discovery

import "slices"

// reacher computes R(y), the new pages reachable from new page y through
// new pages only (y included), by breadth-first search over the subgraph
// induced by the new pages, memoized per y. Only the new pages an old page
// links to directly are ever asked for, so the memory is the size of their
// reach sets, and the time at most one search per such entry page.
type reacher struct {
	adj   [][]int32 // out-links among new pages, by new index
	memo  map[int32][]int32
	stamp []uint32 // visited marks: stamp[v] == gen means visited
	gen   uint32
	queue []int32
}

func newReacher(g *Graph, newIDs []int, newIndex []int32) *reacher {
	adj := make([][]int32, len(newIDs))
	for y, id := range newIDs {
		for _, to := range g.out[id] {
			if z := newIndex[to]; z >= 0 && int(z) != y {
				adj[y] = append(adj[y], z)
			}
		}
	}
	return &reacher{adj: adj, memo: map[int32][]int32{}, stamp: make([]uint32, len(newIDs))}
}

// reach returns R(y), ascending. The slice is shared and must not be
// modified.
func (r *reacher) reach(y int32) []int32 {
	if set, ok := r.memo[y]; ok {
		return set
	}
	gen := r.next()
	r.stamp[y] = gen
	r.queue = append(r.queue[:0], y)
	for i := 0; i < len(r.queue); i++ {
		for _, z := range r.adj[r.queue[i]] {
			if r.stamp[z] != gen {
				r.stamp[z] = gen
				r.queue = append(r.queue, z)
			}
		}
	}
	set := slices.Clone(r.queue)
	slices.Sort(set)
	r.memo[y] = set
	return set
}

// union returns the union of R(y) over the entry pages ys, ascending. With
// one entry page the memoized set itself is returned (shared).
func (r *reacher) union(ys []int32) []int32 {
	if len(ys) == 1 {
		return r.reach(ys[0])
	}
	sets := make([][]int32, len(ys))
	for i, y := range ys {
		sets[i] = r.reach(y) // before the marks below: reach uses them too
	}
	var out []int32
	gen := r.next()
	for _, set := range sets {
		for _, z := range set {
			if r.stamp[z] != gen {
				r.stamp[z] = gen
				out = append(out, z)
			}
		}
	}
	slices.Sort(out)
	return out
}

// next starts a new generation of visited marks.
func (r *reacher) next() uint32 {
	r.gen++
	if r.gen == 0 { // wrapped: old marks could collide
		clear(r.stamp)
		r.gen = 1
	}
	return r.gen
}
