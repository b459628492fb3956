package discovery

import (
	"math"
	"testing"
)

func TestExponentialWeighting(t *testing.T) {
	// Full re-crawls at t = 1 and t = 3. At t = 1, x covers 2 of 5 new
	// pages (p = 0.4) and y does not exist; at t = 3, x covers 1 of 10
	// (p = 0.1) and y 6 of 10 (p = 0.6). By §3.6.4,
	//	p_x^3 = (α²·0.4 + 0.1)/(α² + 1),  p_y^3 = 0.6/(α² + 1).
	h1 := coverOf(t, "x:1 2", "z:3 4 5")
	h3 := coverOf(t, "x:1", "y:2 3 4 5 6 7", "z:8 9 10")
	tests := []struct {
		name   string
		alpha  float64
		px, py float64
	}{
		{"α = 0.5 weighs the older re-crawl by a quarter", 0.5, (0.25*0.4 + 0.1) / 1.25, 0.6 / 1.25},
		{"α = 1 is the plain mean", 1, 0.25, 0.3},
		{"α = 0 keeps only the most recent re-crawl (OD-1)", 0, 0.1, 0.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewODWin(tt.alpha)
			p.Observe(site, 1, h1)
			p.Observe(site, 3, h3)
			px, py := p.Estimate(site, u("x")), p.Estimate(site, u("y"))
			if math.Abs(px-tt.px) > 1e-12 || math.Abs(py-tt.py) > 1e-12 {
				t.Errorf("p_x, p_y = %v, %v; want %v, %v", px, py, tt.px, tt.py)
			}
		})
	}
	t.Run("α = 0.5 gives p_x = 0.16 and p_y = 0.48 by hand", func(t *testing.T) {
		p := NewODWin(0.5)
		p.Observe(site, 1, h1)
		p.Observe(site, 3, h3)
		if px := p.Estimate(site, u("x")); math.Abs(px-0.16) > 1e-12 {
			t.Errorf("p_x = %v", px)
		}
		if py := p.Estimate(site, u("y")); math.Abs(py-0.48) > 1e-12 {
			t.Errorf("p_y = %v", py)
		}
	})
}

// weeks is a three-week history of one site: at t = 1, a covers 3 of 4 new
// pages and b 1; at t = 2, c covers all 4; at t = 3, b covers both new
// pages.
func weeks(t *testing.T) []*Bipartite {
	return []*Bipartite{
		1: coverOf(t, "a:1 2 3", "b:4"),
		2: coverOf(t, "c:1 2 3 4"),
		3: coverOf(t, "b:1 2"),
	}
}

func TestODFamilySelection(t *testing.T) {
	hs := weeks(t)
	tests := []struct {
		name     string
		policy   Policy
		observed []int
		k        int
		want     []string
	}{
		// α = 1: a = 0.75/3, b = (0.25 + 1)/3, c = 1/3.
		{"OD-ALL observing every week ranks b, c, a", NewODAll(1), []int{1, 2, 3}, 3, []string{"b", "c", "a"}},
		{"OD-ALL with a budget of two", NewODAll(1), []int{1, 2, 3}, 2, []string{"b", "c"}},
		// Δ = 2: a = 0.75/2, b = 1.25/2; c was never seen.
		{"OD-WIN re-crawling every other week never learns of c", NewODWin(1), []int{1, 3}, 3, []string{"b", "a"}},
		{"OD-1 only knows the latest re-crawl", NewOD1(), []int{1, 2, 3}, 3, []string{"b"}},
		// After weeks 1 and 2: a = 0.375, b = 0.125, c = 0.5.
		{"OD-ALL after two weeks prefers the newest big yield", NewODAll(1), []int{1, 2}, 3, []string{"c", "a", "b"}},
		{"a site never observed selects nothing", NewODWin(1), nil, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.observed {
				tt.policy.Observe(site, w, hs[w])
			}
			got := tt.policy.Select(site, tt.k)
			if !same(names(got), tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("%s.Select(k=%d) = %v, want %v", tt.policy.Name(), tt.k, names(got), tt.want)
			}
		})
	}
	t.Run("sites are kept apart", func(t *testing.T) {
		p := NewODWin(1)
		p.Observe(site, 1, hs[1])
		if got := p.Select("other.test", 5); len(got) != 0 {
			t.Errorf("other site: %v", got)
		}
	})
}

func TestCOV(t *testing.T) {
	hs := weeks(t)
	p := NewCOV()
	p.Observe(site, 1, coverOf(t, "a:1 2 3", "b:3 4 5 6", "c:1 2"))
	t.Run("takes the greedy cover of the last full re-crawl", func(t *testing.T) {
		// b covers 4; a and c would each add {1, 2}: a wins the tie.
		if got := names(p.Select(site, 5)); !same(got, []string{"b", "a"}) {
			t.Errorf("Select(5) = %v, want [b a]", got)
		}
		if got := names(p.Select(site, 1)); !same(got, []string{"b"}) {
			t.Errorf("Select(1) = %v, want [b]", got)
		}
	})
	t.Run("forgets it at the next full re-crawl", func(t *testing.T) {
		p.Observe(site, 2, hs[2])
		if got := names(p.Select(site, 5)); !same(got, []string{"c"}) {
			t.Errorf("Select(5) = %v, want [c]", got)
		}
	})
}

func TestCLIQWin(t *testing.T) {
	// t = 1: b covers 9 of 10 new pages, c 1. t = 3: a and a2 cover the
	// same 5 of 10 (one cluster, q = 0.5), c the other 5 (a cluster of its
	// own, q = 0.5), b none. With α = 1 the singletons have b = 0.45,
	// c = 0.3, a = a2 = 0.25.
	h1 := coverOf(t, "b:1 2 3 4 5 6 7 8 9", "c:10")
	h3 := coverOf(t, "a:1 2 3 4 5", "a2:1 2 3 4 5", "c:6 7 8 9 10")
	tests := []struct {
		name   string
		policy Policy
		k      int
		want   []string
	}{
		{"the recent clusters' representatives come first", NewCLIQWin(1, 0.8), 2, []string{"a", "c"}},
		{"a page is taken once even when it is both", NewCLIQWin(1, 0.8), 4, []string{"a", "c", "b", "a2"}},
		{"OD-WIN ranks the same pages by the estimate alone", NewODWin(1), 2, []string{"b", "c"}},
		{"CLIQ-1 ranks by the latest re-crawl and still lists every page that ever yielded", NewCLIQ1(0.8), 4, []string{"a", "a2", "c", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.policy.Observe(site, 1, h1)
			tt.policy.Observe(site, 3, h3)
			if got := names(tt.policy.Select(site, tt.k)); !same(got, tt.want) {
				t.Errorf("%s.Select(%d) = %v, want %v", tt.policy.Name(), tt.k, got, tt.want)
			}
		})
	}
}
