package feedseval

import "math"

// Cho & Garcia-Molina's optimal refresh allocations (SIGMOD 2000, §4–5),
// for pages changing as Poisson(λ) and refreshed in a fixed order f times a
// period; x = λ/f changes per refresh interval. Both are Lagrangian
// solutions, written as families in a multiplier k = 1/μ that grow with k,
// so feeds.Fit applies the same budget and bounds as to every other policy.

// freshnessOptimal: maximise Σ F_i, F(λ, f) = (1 − e^{−x})/x. ∂F/∂f =
// (1 − e^{−x}(1+x))/λ = μ; a page with 1/λ ≤ μ (changing too fast to keep
// fresh) gets nothing, the policy's known blind spot.
func freshnessOptimal(rates []float64, periodSeconds float64) func(i int, k float64) float64 {
	return func(i int, k float64) float64 {
		lam := rates[i] * periodSeconds // changes per period
		if lam <= 0 || k <= 0 {
			return 0
		}
		target := lam / k // μλ
		if target >= 1 {
			return 0
		}
		x := solve(func(x float64) float64 { return 1 - math.Exp(-x)*(1+x) }, target)
		return lam / x
	}
}

// ageOptimal: minimise Σ A_i, A(λ, f) = (1/λ)(x/2 − 1 + (1 − e^{−x})/x).
// −∂A/∂f = h(x)/λ² with h(x) = x²/2 − 1 + e^{−x}(1+x), increasing from 0,
// so x = h⁻¹(μλ²).
func ageOptimal(rates []float64, periodSeconds float64) func(i int, k float64) float64 {
	return func(i int, k float64) float64 {
		lam := rates[i] * periodSeconds
		if lam <= 0 || k <= 0 {
			return 0
		}
		x := solve(func(x float64) float64 { return x*x/2 - 1 + math.Exp(-x)*(1+x) }, lam*lam/k)
		return lam / x
	}
}

// solve returns x > 0 with h(x) = y for an increasing h with h(0) = 0.
func solve(h func(float64) float64, y float64) float64 {
	lo, hi := 0.0, 1.0
	for h(hi) < y && hi < 1e12 {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if h(mid) < y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return max(hi, 1e-12)
}
