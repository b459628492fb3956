package feedseval

import (
	"math"
	"testing"
)

// The age-optimal family is Cho & Garcia-Molina's: at the multiplier that
// spends a budget of refreshes, moving any refresh rate between two pages
// raises Σ A(λ_i, f_i), A = (1/f)(1/2 − 1/x + (1 − e^{−x})/x²), x = λ/f.
func TestAgeOptimalMinimisesTotalAge(t *testing.T) {
	rates := []float64{0.2, 1, 5, 30} // changes per period
	want := ageOptimal(rates, 1)
	age := func(lam, f float64) float64 {
		x := lam / f
		return (1 / f) * (0.5 - 1/x + (1-math.Exp(-x))/(x*x))
	}
	const budget = 12.0
	spend := func(k float64) float64 {
		s := 0.0
		for i := range rates {
			s += want(i, k)
		}
		return s
	}
	lo, hi := 0.0, 1.0
	for spend(hi) < budget {
		hi *= 2
	}
	for range 200 {
		if mid := (lo + hi) / 2; spend(mid) < budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	f := make([]float64, len(rates))
	for i := range rates {
		f[i] = want(i, hi)
	}
	total := func(f []float64) float64 {
		s := 0.0
		for i, lam := range rates {
			s += age(lam, f[i])
		}
		return s
	}
	best := total(f)
	for i := range rates {
		for j := range rates {
			if i == j {
				continue
			}
			g := append([]float64(nil), f...)
			d := 0.01 * g[i]
			g[i], g[j] = g[i]-d, g[j]+d
			if got := total(g); got < best-1e-12 {
				t.Errorf("moving %.4f from page %d to %d lowers the total age %.6f → %.6f: not optimal (f = %v)", d, i, j, best, got, f)
			}
		}
	}
}
