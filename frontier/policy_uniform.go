package frontier

import (
	"container/heap"
	"context"
)

// Uniform re-fetches known pages round-robin: each period, the n pages
// fetched longest ago. It is the baseline every other policy must beat
// (thesis §4.7: "uniform" refresh, Cho and Garcia-Molina's finding that it
// is a strong baseline for freshness).
type Uniform struct{}

// Name implements Policy.
func (Uniform) Name() string { return "uniform" }

// Select implements Policy.
func (Uniform) Select(ctx context.Context, plan Plan, pages Pages) ([]string, error) {
	top := newTopN(plan.N)
	for p, err := range pages.Candidates(ctx) {
		if err != nil {
			return nil, err
		}
		top.offer(p.URL, plan.periods(p.LastFetch), 0)
	}
	return top.urls(), nil
}

// topN keeps the n best URLs seen, in a min-heap: highest score first,
// then highest tie score, then the smaller URL, so every selection is
// deterministic.
type topN struct {
	n int
	h scoredHeap
}

type scored struct {
	url        string
	score, tie float64
}

func newTopN(n int) *topN { return &topN{n: n} }

// offer considers url.
func (t *topN) offer(url string, score, tie float64) {
	if t.n <= 0 {
		return
	}
	s := scored{url, score, tie}
	if len(t.h) < t.n {
		heap.Push(&t.h, s)
		return
	}
	if t.h.less(t.h[0], s) {
		t.h[0] = s
		heap.Fix(&t.h, 0)
	}
}

// urls returns the kept URLs, best first.
func (t *topN) urls() []string {
	out := make([]string, len(t.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(scored).url
	}
	return out
}

type scoredHeap []scored

// less orders worse candidates first.
func (h scoredHeap) less(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.tie != b.tie {
		return a.tie < b.tie
	}
	return a.url > b.url
}

func (h scoredHeap) Len() int           { return len(h) }
func (h scoredHeap) Less(i, j int) bool { return h.less(h[i], h[j]) }
func (h scoredHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
