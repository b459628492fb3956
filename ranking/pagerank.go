package ranking

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Graph is a directed graph over nodes 0..N-1. Out[u] lists u's distinct
// targets; self-links are not kept (a page cannot vote for itself).
type Graph struct {
	N   int
	Out [][]int32
}

// NewGraph builds a graph of n nodes from an edge list, dropping duplicate
// edges and self-links. An edge naming a node outside [0, n) is an error.
func NewGraph(n int, edges [][2]int) (*Graph, error) {
	g := &Graph{N: n, Out: make([][]int32, n)}
	seen := make(map[[2]int]struct{}, len(edges))
	for _, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, fmt.Errorf("ranking: edge %d→%d outside a graph of %d nodes", e[0], e[1], n)
		}
		if _, dup := seen[e]; dup {
			continue
		}
		seen[e] = struct{}{}
		g.add(int32(e[0]), int32(e[1]))
	}
	return g, nil
}

// add appends an edge unless it is a self-link. Callers ensure edges are
// distinct (the repository stores each (src, dst) once).
func (g *Graph) add(src, dst int32) {
	if src != dst {
		g.Out[src] = append(g.Out[src], dst)
	}
}

// Edges returns the number of edges.
func (g *Graph) Edges() int {
	n := 0
	for _, o := range g.Out {
		n += len(o)
	}
	return n
}

// InDegrees returns each node's number of distinct in-linking nodes: the
// in-link count popularity.
func (g *Graph) InDegrees() []int {
	in := make([]int, g.N)
	for _, o := range g.Out {
		for _, d := range o {
			in[d]++
		}
	}
	return in
}

// LinkGraph builds the graph of (src, dst) URL pairs, as repo.DB.Links
// yields them, and returns it with the URL of every node. Node ids follow
// first appearance, so the same links give the same graph.
func LinkGraph(links iter.Seq2[[2]string, error]) (*Graph, []string, error) {
	ids := make(map[string]int32)
	var urls []string
	id := func(u string) int32 {
		if i, ok := ids[u]; ok {
			return i
		}
		i := int32(len(urls))
		ids[u] = i
		urls = append(urls, u)
		return i
	}
	type edge struct{ s, d int32 }
	var edges []edge
	for l, err := range links {
		if err != nil {
			return nil, nil, fmt.Errorf("ranking: read link graph: %w", err)
		}
		if len(urls) >= math.MaxInt32-2 {
			return nil, nil, errors.New("ranking: link graph has too many nodes")
		}
		edges = append(edges, edge{id(l[0]), id(l[1])})
	}
	g := &Graph{N: len(urls), Out: make([][]int32, len(urls))}
	for _, e := range edges {
		g.add(e.s, e.d)
	}
	return g, urls, nil
}

// PageRankResult is the outcome of a power iteration.
type PageRankResult struct {
	Scores     []float64 // one per node, summing to 1
	Iterations int
	Delta      float64 // L1 change of the last iteration
	Converged  bool
}

// PageRank computes PageRank by power iteration:
//
//	PR'(v) = (1−d)/N + d·D/N + d·Σ_{u→v} PR(u)/outdeg(u)
//
// where d is the damping and D the total PageRank of dangling pages (no
// out-links), spread uniformly so the vector keeps summing to 1. It starts
// from the uniform vector and stops when the L1 change is below the
// tolerance or after the maximum number of iterations. The summation order
// is fixed, so the result is deterministic.
func PageRank(ctx context.Context, g *Graph, cfg PageRankConfig) (PageRankResult, error) {
	n := g.N
	if n == 0 {
		return PageRankResult{Converged: true}, nil
	}
	d := cfg.Damping
	pr := make([]float64, n)
	next := make([]float64, n)
	for i := range pr {
		pr[i] = 1 / float64(n)
	}
	res := PageRankResult{}
	for res.Iterations < cfg.MaxIterations {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		dangling := 0.0
		for u, o := range g.Out {
			if len(o) == 0 {
				dangling += pr[u]
			}
		}
		base := (1-d)/float64(n) + d*dangling/float64(n)
		for i := range next {
			next[i] = base
		}
		for u, o := range g.Out {
			if len(o) == 0 {
				continue
			}
			share := d * pr[u] / float64(len(o))
			for _, v := range o {
				next[v] += share
			}
		}
		delta := 0.0
		for i := range next {
			delta += math.Abs(next[i] - pr[i])
		}
		pr, next = next, pr
		res.Iterations++
		res.Delta = delta
		if delta < cfg.Tolerance {
			res.Converged = true
			break
		}
	}
	res.Scores = pr
	return res, nil
}

// ComputePageRank reads the crawled link graph, computes PageRank and
// in-link counts, and stores them in one atomic batch together with the
// time of the computation. Pages that left the graph lose their entry.
func (s *Store) ComputePageRank(ctx context.Context) (PageRankInfo, error) {
	start := time.Now()
	g, urls, err := LinkGraph(s.db.Links(ctx))
	if err != nil {
		return PageRankInfo{}, err
	}
	res, err := PageRank(ctx, g, s.pagerank)
	if err != nil {
		return PageRankInfo{}, fmt.Errorf("ranking: pagerank: %w", err)
	}
	in := g.InDegrees()
	info := PageRankInfo{
		ComputedAt: s.clock.Now().UTC(),
		Nodes:      g.N,
		Edges:      g.Edges(),
		Iterations: res.Iterations,
		Delta:      res.Delta,
		Converged:  res.Converged,
	}
	known := make(map[string]struct{}, len(urls))
	for _, u := range urls {
		known[u] = struct{}{}
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	for kv, err := range s.db.BucketScan(ctx, Bucket, prefixLinks) {
		if err != nil {
			return PageRankInfo{}, fmt.Errorf("ranking: scan link stats: %w", err)
		}
		if _, ok := known[string(kv[0][len(prefixLinks):])]; !ok {
			if err := b.DeleteBucket(Bucket, string(kv[0])); err != nil {
				return PageRankInfo{}, err
			}
		}
	}
	for i, u := range urls {
		if err := b.PutBucket(Bucket, prefixLinks+u, encodeLinkStats(res.Scores[i], in[i])); err != nil {
			return PageRankInfo{}, err
		}
	}
	if err := b.PutBucket(Bucket, keyPageRankInfo, info.encode()); err != nil {
		return PageRankInfo{}, err
	}
	if err := b.Commit(); err != nil {
		return PageRankInfo{}, fmt.Errorf("ranking: store pagerank: %w", err)
	}
	s.updateColumn(func() {
		for i := range s.column.stats {
			st := &s.column.stats[i]
			st.PageRank, st.InLinks = 0, 0
		}
		for i, u := range urls {
			st := s.statsOf(u)
			st.PageRank, st.InLinks = res.Scores[i], in[i]
		}
	})
	s.logger.Info("pagerank computed", "n", info.Nodes, "edges", info.Edges,
		"iterations", info.Iterations, "delta", info.Delta, "converged", info.Converged, "took", time.Since(start))
	return info, nil
}

// PageRankInfo returns the description of the stored computation, or an
// error wrapping repo.ErrNotFound if PageRank was never computed.
func (s *Store) PageRankInfo() (PageRankInfo, error) {
	v, err := s.db.Bucket(Bucket, keyPageRankInfo)
	if err != nil {
		return PageRankInfo{}, fmt.Errorf("ranking: pagerank info: %w", err)
	}
	return decodePageRankInfo(v)
}

// RunPageRank recomputes PageRank every interval until ctx is done, and
// returns ctx's error; with an index, each computation is followed by
// RefreshPopularity. The first computation happens at once if the stored
// one is missing or older than interval. A failed computation is logged and
// retried at the next interval.
func (s *Store) RunPageRank(ctx context.Context, interval time.Duration, ix PopularityIndex) error {
	if interval <= 0 {
		return fmt.Errorf("ranking: pagerank interval %v: must be > 0", interval)
	}
	next := s.clock.Now()
	if info, err := s.PageRankInfo(); err == nil {
		next = info.ComputedAt.Add(interval)
	} else if !errors.Is(err, repo.ErrNotFound) {
		s.logger.Warn("pagerank info unreadable; recomputing", "err", err)
	}
	for {
		if err := s.clock.WaitUntil(ctx, next); err != nil {
			return err
		}
		if err := s.RefreshPopularity(ctx, ix); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.logger.Error("pagerank failed", "err", err)
		}
		next = s.clock.Now().Add(interval)
	}
}
