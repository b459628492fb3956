package ranksim

import (
	"math"
	"testing"
)

// constantAnalysis is the model with F(x) = F everywhere (a random
// ranking, §5.6: F(x) = v/n), λ = 1/lifetime, m monitored users.
func constantAnalysis(m int, lifetime, F float64) *analysis {
	c := Community{Pages: 2, Users: m, Monitored: m, VisitsPerDay: 1, LifetimeDays: lifetime, QualityMax: 0.4, QualityExponent: 2.1}
	a := &analysis{c: c, logA: make([]float64, m+1)}
	for i := 1; i <= m; i++ {
		a.logA[i] = math.Log(float64(i) / float64(m))
	}
	a.F = visitCurve{F0: F, C: math.Log(F), lo: 0, hi: math.Inf(1)}
	return a
}

func TestTheorem2OnACaseSolvedByHand(t *testing.T) {
	// λ = 1, F ≡ 1, m = 2 (a_0, a_1, a_2 = 0, ½, 1):
	//   f(0) = λ/(λ+F)                        = 1/2
	//   f(½) = f(0)·F·(1−0)/(λ + F·(1−½))      = (1/2)·1/(3/2) = 1/3
	//   f(1) = f(½)·F·(1−½)/(λ + F·(1−1))      = (1/3)·(1/2)/1 = 1/6
	got := constantAnalysis(2, 1, 1).awareness(0.4)
	want := []float64{1. / 2, 1. / 3, 1. / 6}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("f(a_%d) = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestTBPOnACaseSolvedByHand(t *testing.T) {
	// With F ≡ F the holding time at level i is 1/(F(1−i/m)); reaching full
	// awareness takes Σ_{i<m} m/(F(m−i)) = (m/F)·H_m. For m = 4, F = 2:
	// 2·(1 + 1/2 + 1/3 + 1/4) = 25/6.
	a := constantAnalysis(4, 100, 2)
	if got, want := a.tbp(0.4, 4), 25./6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("TBP = %v, want %v", got, want)
	}
}

func TestAnalysisIsASteadyState(t *testing.T) {
	c := DefaultCommunity()
	c.Pages, c.Users, c.Monitored, c.VisitsPerDay = 500, 50, 5, 50
	for _, p := range []Policy{{Rule: Nonrandomized}, {Rule: Selective, K: 1, R: 0.1}, {Rule: Selective, K: 2, R: 0.3}, {Rule: Uniform, K: 1, R: 0.1}} {
		for _, numeric := range []bool{false, true} {
			a, err := analyze(t.Context(), c, p, numeric)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(p.String(), func(t *testing.T) {
				if !a.conv {
					t.Errorf("did not converge: residual %g after %d iterations", a.resid, a.iters)
				}
				lam := c.Lambda()
				m := c.Monitored
				for _, q := range []float64{a.q[0], a.q[len(a.q)/2], a.q[len(a.q)-1]} {
					f := a.awareness(q)
					sum := 0.0
					for i, v := range f {
						sum += v
						if i == 0 {
							continue
						}
						// Balance of level i: outflow (λ + F_i(1−a_i))·f_i equals
						// inflow F_{i−1}(1−a_{i−1})·f_{i−1}.
						ai, ap := float64(i)/float64(m), float64(i-1)/float64(m)
						out := (lam + a.F.at(q*ai)*(1-ai)) * f[i]
						in := a.F.at(q*ap) * (1 - ap) * f[i-1]
						if math.Abs(out-in) > 1e-12*max(1, in) {
							t.Errorf("q=%g level %d: outflow %g, inflow %g", q, i, out, in)
						}
					}
					if math.Abs(sum-1) > 1e-9 {
						t.Errorf("q=%g: f sums to %v, want 1", q, sum)
					}
				}
				// F(0) is the fixed point: the visits the zero-awareness
				// pages get when a share λ/(λ+F(0)) of pages has zero awareness.
				if got := a.zeroVisits(a.F.F0); math.Abs(got/a.F.F0-1) > 1e-9 {
					t.Errorf("F(0) = %g but the model gives it %g", a.F.F0, got)
				}
				if a.qpc <= 0 || a.qpc > IdealQPC(c)*(1+1e-9) {
					t.Errorf("analytic QPC %g outside (0, ideal %g]", a.qpc, IdealQPC(c))
				}
			})
		}
	}
}

func TestPushedIsF1Prime(t *testing.T) {
	for _, c := range []struct {
		name    string
		d       float64
		k       int
		r, pool float64
		want    float64
	}{
		{"a protected rank stays", 1.5, 2, 0.5, 100, 1.5},
		{"rank k is pushed by r/(1−r)", 2, 2, 0.5, 100, 3},
		{"rank 11 at k=1, r=0.1 gains 11/9", 11, 1, 0.1, 100, 11 + 11./9},
		{"the push is capped by the pool", 100, 1, 0.5, 7, 107},
		{"r = 1 pushes by the whole pool", 5, 1, 1, 7, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := pushed(c.d, c.k, c.r, c.pool); math.Abs(got-c.want) > 1e-12 {
				t.Fatalf("pushed = %v, want %v", got, c.want)
			}
		})
	}
}

func TestQuadFitRecoversAQuadratic(t *testing.T) {
	var x, y, w []float64
	for i := range 20 {
		v := -8 + 0.4*float64(i)
		x, y, w = append(x, v), append(y, -0.05*v*v+0.9*v+3.5), append(w, 1+float64(i%3))
	}
	a, b, c, err := quadFit(x, y, w)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a+0.05) > 1e-9 || math.Abs(b-0.9) > 1e-9 || math.Abs(c-3.5) > 1e-9 {
		t.Fatalf("fit = %v, %v, %v; want -0.05, 0.9, 3.5", a, b, c)
	}
	if _, _, _, err := quadFit([]float64{1, 1, 1}, []float64{1, 2, 3}, []float64{1, 1, 1}); err == nil {
		t.Fatal("a fit through one x value must be singular")
	}
}
