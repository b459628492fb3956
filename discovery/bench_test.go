package discovery

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchGraph is a site of n pages with about deg links each, of which the
// last newPages are new: the shape of a weekly tldr-en snapshot at
// n = 7,000, deg = 3.5, 30 new pages.
func benchGraph(n, newPages int, deg float64) (*Graph, func(string) bool) {
	r := rand.New(rand.NewPCG(1, 2))
	g := NewGraph(n)
	for i := range n {
		g.AddPage(fmt.Sprintf("http://s.test/p%d", i))
	}
	for range int(float64(n) * deg) {
		g.AddLink(r.IntN(n), r.IntN(n))
	}
	old := map[string]bool{}
	for i := range n - newPages {
		old[g.URL(i)] = true
	}
	return g, func(u string) bool { return old[u] }
}

func BenchmarkCover(b *testing.B) {
	for _, size := range []struct{ n, newPages int }{{7000, 30}, {7000, 1000}, {100000, 5000}} {
		b.Run(fmt.Sprintf("pages=%d/new=%d", size.n, size.newPages), func(b *testing.B) {
			g, old := benchGraph(size.n, size.newPages, 3.5)
			b.ReportAllocs()
			for b.Loop() {
				Cover(g, old)
			}
			b.ReportMetric(float64(size.n)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

func BenchmarkGreedy(b *testing.B) {
	g, old := benchGraph(100000, 5000, 3.5)
	h := Cover(g, old)
	b.ReportAllocs()
	for b.Loop() {
		PartialCover(h, 1)
	}
}

func BenchmarkClusters(b *testing.B) {
	g, old := benchGraph(100000, 5000, 3.5)
	h := Cover(g, old)
	b.ReportAllocs()
	for b.Loop() {
		Clusters(h, 0.8)
	}
}
