package discovery

import (
	"container/heap"
	"math"
)

// GREEDY (§3.5.2) has full knowledge of H_t and repeatedly takes the old
// page that covers the most still-uncovered new pages. The same order
// answers both problems of the thesis:
//
//   - the k-budgeted cover (a (1 − 1/e)-approximation of the most new
//     pages k old pages can reach) is its first k pages;
//   - the ρ-partial cover (a log|X_t|-approximation of the fewest old pages
//     reaching ρ of the new ones) is its shortest prefix covering at least
//     ρ·N, N being the coverable new pages.
//
// Ties go to the smaller URL, so the order is deterministic and a
// k-budgeted cover is a prefix of every larger one. The order stops when
// no page adds anything: after it, every coverable new page is covered.

// Greedy returns GREEDY's k-budgeted cover of h: at most k old pages in the
// order chosen. It is shorter than k when fewer pages cover everything.
func Greedy(h *Bipartite, k int) []string {
	order, _ := greedyOrder(h, k)
	return h.urls(order)
}

// PartialCover returns GREEDY's ρ-partial cover of h: the shortest greedy
// prefix covering at least ⌈ρ·N⌉ of the N coverable new pages (ρ is
// clamped to [0, 1]; ρ = 1 is a full cover).
func PartialCover(h *Bipartite, rho float64) []string {
	need := int(math.Ceil(max(0, min(1, rho))*float64(h.Coverable) - 1e-9))
	order, gains := greedyOrder(h, len(h.Old))
	covered, n := 0, 0
	for n < len(order) && covered < need {
		covered += gains[n]
		n++
	}
	return h.urls(order[:n])
}

// GreedyOrder returns the complete greedy order of h and, for each page,
// the number of new pages it added. Its prefix sums are the coverage of
// every k-budgeted cover at once (fig. 3.2).
func GreedyOrder(h *Bipartite) (pages []string, gains []int) {
	order, gains := greedyOrder(h, len(h.Old))
	return h.urls(order), gains
}

// urls maps indices into Old to URLs.
func (h *Bipartite) urls(idx []int) []string {
	out := make([]string, len(idx))
	for i, x := range idx {
		out[i] = h.Old[x]
	}
	return out
}

// greedyOrder runs GREEDY for at most k steps with lazy evaluation: a
// page's gain only shrinks as the cover grows, so a page whose refreshed
// gain still beats every stale bound in the heap is the true maximum.
// Ordering by (gain desc, index asc) makes the result identical to the
// plain algorithm's with the smaller URL winning ties.
func greedyOrder(h *Bipartite, k int) (order, gains []int) {
	q := make(gainHeap, len(h.Old))
	for i, n := range h.Neighbors {
		q[i] = gainEntry{page: i, gain: len(n)}
	}
	heap.Init(&q)
	covered := newBitset(len(h.New))
	for len(order) < k && q.Len() > 0 {
		top := q[0]
		gain := 0
		for _, y := range h.Neighbors[top.page] {
			if !covered.has(int(y)) {
				gain++
			}
		}
		if gain != top.gain {
			q[0].gain = gain
			heap.Fix(&q, 0)
			continue
		}
		heap.Pop(&q)
		if gain == 0 {
			break // every page left adds nothing
		}
		for _, y := range h.Neighbors[top.page] {
			covered.set(int(y))
		}
		order = append(order, top.page)
		gains = append(gains, gain)
	}
	return order, gains
}

type gainEntry struct{ page, gain int }

// gainHeap is a max-heap on gain, the smaller page index first on ties.
type gainHeap []gainEntry

func (q gainHeap) Len() int { return len(q) }
func (q gainHeap) Less(i, j int) bool {
	if q[i].gain != q[j].gain {
		return q[i].gain > q[j].gain
	}
	return q[i].page < q[j].page
}
func (q gainHeap) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *gainHeap) Push(x any)   { *q = append(*q, x.(gainEntry)) }
func (q *gainHeap) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
