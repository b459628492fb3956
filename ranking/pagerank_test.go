package ranking

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

const d = 0.85

func TestPageRankMatchesClosedForms(t *testing.T) {
	// Hand-solved: A→B, A→C, B→C, C→A with s = (1−d)/3:
	//   PR(B) = s + d·PR(A)/2
	//   PR(C) = s + d·PR(A)/2 + d·PR(B) = s(1+d) + PR(A)·d(1+d)/2
	//   PR(A) = s + d·PR(C)                 ⇒ PR(A) = s(1+d+d²) / (1 − d²(1+d)/2)
	s := (1 - d) / 3
	hA := s * (1 + d + d*d) / (1 - d*d*(1+d)/2)
	hB := s + d*hA/2
	hC := s*(1+d) + hA*d*(1+d)/2
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
		want  []float64
	}{
		{"a cycle is uniform", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, []float64{0.25, 0.25, 0.25, 0.25}},
		{
			// Four leaves link to a dangling centre c:
			// PR(l) = (1−d)/5 + d·PR(c)/5 and PR(c) + 4·PR(l) = 1
			// ⇒ PR(c) = (1+4d)/(5+4d), PR(l) = 1/(5+4d).
			"a star's centre collects its leaves' rank", 5, [][2]int{{1, 0}, {2, 0}, {3, 0}, {4, 0}},
			[]float64{(1 + 4*d) / (5 + 4*d), 1 / (5 + 4*d), 1 / (5 + 4*d), 1 / (5 + 4*d), 1 / (5 + 4*d)},
		},
		{
			// A→B, B dangling: PR(A) = (1−d)/2 + d·PR(B)/2, PR(A)+PR(B) = 1
			// ⇒ PR(A) = 1/(2+d), PR(B) = (1+d)/(2+d).
			"a dangling node's rank is spread uniformly", 2, [][2]int{{0, 1}},
			[]float64{1 / (2 + d), (1 + d) / (2 + d)},
		},
		{"a graph solved by hand", 3, [][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 0}}, []float64{hA, hB, hC}},
		{"duplicate edges and self-links are ignored", 3, [][2]int{{0, 1}, {0, 1}, {0, 2}, {1, 2}, {2, 0}, {2, 2}}, []float64{hA, hB, hC}},
		{"a graph without edges is uniform", 3, nil, []float64{1. / 3, 1. / 3, 1. / 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGraph(c.n, c.edges)
			if err != nil {
				t.Fatal(err)
			}
			res, err := PageRank(t.Context(), g, testConfig().PageRank)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("did not converge in %d iterations (delta %g)", res.Iterations, res.Delta)
			}
			sum := 0.0
			for i, want := range c.want {
				sum += res.Scores[i]
				if math.Abs(res.Scores[i]-want) > 1e-6 {
					t.Errorf("PR(%d) = %.9f, want %.9f", i, res.Scores[i], want)
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("scores sum to %v, want 1", sum)
			}
		})
	}
}

func TestPageRankStopsAtTheIterationCap(t *testing.T) {
	g, err := NewGraph(3, [][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig().PageRank
	cfg.MaxIterations = 3
	res, err := PageRank(t.Context(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 3 || res.Converged {
		t.Fatalf("iterations = %d, converged = %v; want 3, false", res.Iterations, res.Converged)
	}
}

func TestNewGraphRejectsEdgesOutsideTheGraph(t *testing.T) {
	if _, err := NewGraph(2, [][2]int{{0, 2}}); err == nil {
		t.Fatal("edge to node 2 in a 2-node graph accepted")
	}
}

func TestComputePageRankStoresScoresInLinksAndTime(t *testing.T) {
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewManual(at)
	db, s := openStore(t, testConfig(), clk)
	const (
		a = "http://a.test/"
		b = "http://b.test/"
		c = "http://c.test/"
	)
	setLinks(t, db, map[string][]string{a: {b, c}, b: {c}, c: {a}})
	info, err := s.ComputePageRank(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.Nodes != 3 || info.Edges != 4 || !info.Converged || !info.ComputedAt.Equal(at) {
		t.Fatalf("info = %+v", info)
	}
	stored, err := s.PageRankInfo()
	if err != nil || stored != info {
		t.Fatalf("stored info = %+v, %v; want %+v", stored, err, info)
	}
	st, err := s.Lookup(t.Context(), []string{a, b, c, "http://unknown.test/"})
	if err != nil {
		t.Fatal(err)
	}
	s3 := (1 - d) / 3
	hA := s3 * (1 + d + d*d) / (1 - d*d*(1+d)/2)
	if math.Abs(st[0].PageRank-hA) > 1e-6 {
		t.Errorf("PR(a) = %v, want %v", st[0].PageRank, hA)
	}
	if got := []int{st[0].InLinks, st[1].InLinks, st[2].InLinks, st[3].InLinks}; !slices.Equal(got, []int{1, 1, 2, 0}) {
		t.Errorf("in-links = %v, want [1 1 2 0]", got)
	}
	if st[3] != (PageStats{}) {
		t.Errorf("unknown page has stats %+v", st[3])
	}

	t.Run("a page that leaves the graph loses its entry", func(t *testing.T) {
		setLinks(t, db, map[string][]string{a: {b}, b: {a}, c: nil})
		if _, err := s.ComputePageRank(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Bucket(Bucket, prefixLinks+c); !errors.Is(err, repo.ErrNotFound) {
			t.Fatalf("stale entry for c: err = %v", err)
		}
		st, err := s.Lookup(t.Context(), []string{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(st[0].PageRank-0.5) > 1e-6 || math.Abs(st[1].PageRank-0.5) > 1e-6 {
			t.Fatalf("two-cycle PR = %v, %v; want 0.5 each", st[0].PageRank, st[1].PageRank)
		}
	})
}

func TestRunPageRankRecomputesEveryInterval(t *testing.T) {
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewReporting(start, 0)
	db, s := openStore(t, testConfig(), clk)
	setLinks(t, db, map[string][]string{"http://a.test/": {"http://b.test/"}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.RunPageRank(ctx, time.Hour, nil) }()

	computedAt := func() time.Time {
		t.Helper()
		info, err := s.PageRankInfo()
		if err != nil {
			t.Fatal(err)
		}
		return info.ComputedAt
	}
	if got := <-clk.Waits; !got.Equal(start) {
		t.Fatalf("first deadline %v: with nothing stored it must be now (%v)", got, start)
	}
	if got := <-clk.Waits; !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("second deadline %v, want %v", got, start.Add(time.Hour))
	}
	if got := computedAt(); !got.Equal(start) {
		t.Fatalf("first computation stamped %v, want %v", got, start)
	}
	clk.Advance(time.Hour)
	if got := <-clk.Waits; !got.Equal(start.Add(2 * time.Hour)) {
		t.Fatalf("third deadline %v", got)
	}
	if got := computedAt(); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("second computation stamped %v", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("RunPageRank = %v, want context.Canceled", err)
	}

	t.Run("after a restart it waits for the stored computation to age", func(t *testing.T) {
		clk.Set(start.Add(2*time.Hour + 10*time.Minute))
		ctx, cancel := context.WithCancel(t.Context())
		go func() { done <- s.RunPageRank(ctx, time.Hour, nil) }()
		if got := <-clk.Waits; !got.Equal(start.Add(2 * time.Hour)) {
			t.Fatalf("first deadline after restart %v, want stored time + interval", got)
		}
		<-clk.Waits // it was overdue, so it recomputed at once
		if got := computedAt(); !got.Equal(start.Add(2*time.Hour + 10*time.Minute)) {
			t.Fatalf("recomputation stamped %v", got)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("RunPageRank = %v", err)
		}
	})
}
