package frontier

import (
	"iter"
	"math"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// history is what a page's fetch log says about how it changes.
type history struct {
	intervals int           // n: re-fetches that could observe a change
	changes   int           // X: re-fetches that did observe one (above a threshold)
	updates   int           // re-fetches that found any change at all
	span      time.Duration // total time covered by the n intervals
}

// readHistory summarizes a fetch log. A re-fetch observes the page when it
// returned content or a 304; it counts as a change when the body changed
// and the shingle difference is at least tau (thesis §4.7.1: a page is
// "changed" for SBR when the fraction of differing shingles exceeds τ).
func readHistory(log []repo.FetchRecord, tau float64) history {
	var h history
	for gap, r := range intervals(log) {
		h.intervals++
		h.span += gap
		if r.Changed {
			h.updates++
			if r.Difference < 0 || r.Difference >= tau {
				h.changes++
			}
		}
	}
	return h
}

// intervals yields every re-fetch of a fetch log that observed the page
// (content or a 304) after an earlier observation, with the time since
// that one: the intervals over which a change was or was not seen.
func intervals(log []repo.FetchRecord) iter.Seq2[time.Duration, repo.FetchRecord] {
	return func(yield func(time.Duration, repo.FetchRecord) bool) {
		var prev time.Time
		for _, r := range log {
			if r.Outcome != repo.OutcomeOK && r.Outcome != repo.OutcomeNotModified {
				continue
			}
			if !prev.IsZero() && !yield(r.At.Sub(prev), r) {
				return
			}
			prev = r.At
		}
	}
}

// changeRate estimates a Poisson change rate, in changes per period, with
// the bias-reduced estimator of Cho and Garcia-Molina ("Estimating
// frequency of change", ACM TOIT 2003): for n accesses at interval I of
// which X saw a change, λ̂·I = −ln((n − X + 0.5)/(n + 0.5)). Irregular
// intervals are replaced by their mean. ok is false without observations.
func changeRate(n, x int, span, period time.Duration) (float64, bool) {
	if n == 0 || span <= 0 {
		return 0, false
	}
	meanInterval := span.Seconds() / float64(n) / period.Seconds()
	return -math.Log((float64(n-x)+0.5)/(float64(n)+0.5)) / meanInterval, true
}

// freshnessGain is ∂F/∂f for a page with change rate λ refreshed f times a
// period at regular intervals, where F(λ, f) = (f/λ)(1 − e^(−λ/f)) is its
// expected freshness (Cho and Garcia-Molina, "Synchronizing a database to
// improve freshness", SIGMOD 2000): (1 − e^(−r)(1 + r))/λ with r = λ/f.
func freshnessGain(r float64) float64 { return 1 - math.Exp(-r)*(1+r) }

// allocateFreshness spreads budget refreshes per period over pages to
// maximize Σ w_i F(λ_i, f_i) (Cho and Garcia-Molina's freshness-optimal
// allocation; with w_i = importance × d(p), Wolf et al.'s embarrassment
// objective). At the optimum every refreshed page has the same marginal
// gain μ = w_i·g(λ_i/f_i)/λ_i; pages whose λ is too high for μ get f = 0
// (the finding that, under a tight budget, the fastest-changing pages are
// best abandoned). μ is found by bisection.
func allocateFreshness(lambda, weight []float64, budget float64) []float64 {
	f := make([]float64, len(lambda))
	freq := func(mu float64) float64 {
		total := 0.0
		for i, l := range lambda {
			f[i] = 0
			if l <= 0 || weight[i] <= 0 {
				continue
			}
			target := mu * l / weight[i]
			if target >= 1 {
				continue
			}
			f[i] = l / invertGain(target)
			total += f[i]
		}
		return total
	}
	lo, hi := 0.0, 0.0
	for i, l := range lambda {
		if l > 0 && weight[i] > 0 {
			hi = math.Max(hi, weight[i]/l)
		}
	}
	if hi == 0 {
		return f
	}
	for range 100 {
		mid := (lo + hi) / 2
		if freq(mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	freq(hi)
	return f
}

// invertGain solves g(r) = y for r > 0, y in (0, 1): Newton's method on
// g′(r) = r·e^(−r), kept inside a shrinking bracket (a step that leaves
// it bisects instead). It is called for every page at every step of the
// allocation's bisection, so it converges in a few steps rather than the
// ~50 of bisection alone.
func invertGain(y float64) float64 {
	lo, hi := 0.0, 1.0
	for freshnessGain(hi) < y {
		lo, hi = hi, hi*2
		if hi > 1e6 {
			return hi
		}
	}
	r := (lo + hi) / 2
	for range 100 {
		d := freshnessGain(r) - y
		if d < 0 {
			lo = r
		} else {
			hi = r
		}
		if d == 0 || hi-lo <= 1e-15*hi {
			return r
		}
		next := r - d/(r*math.Exp(-r))
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-r) <= 1e-14*r {
			return next
		}
		r = next
	}
	return r
}

// allocateHarmonic spreads budget crawls per period over pages to minimize
// the harmonic staleness penalty Σ −μ_w ln(ρ_w/(Δ_w + ρ_w)) of Kolobov et
// al. ("Staying up to date with online content changes using
// reinforcement learning for scheduling", NeurIPS 2019), Δ_w the change
// rate and μ_w the importance. Setting the derivative to the Lagrange
// multiplier λ gives ρ_w = (√(Δ_w² + 4μ_wΔ_w/λ) − Δ_w)/2; λ is found by
// bisection so that Σ ρ_w = budget. Unlike the freshness allocation, every
// page with μ, Δ > 0 gets a positive rate.
func allocateHarmonic(delta, mu []float64, budget float64) []float64 {
	rho := make([]float64, len(delta))
	total := func(lambda float64) float64 {
		s := 0.0
		for i, d := range delta {
			rho[i] = 0
			if d <= 0 || mu[i] <= 0 {
				continue
			}
			rho[i] = (math.Sqrt(d*d+4*mu[i]*d/lambda) - d) / 2
			s += rho[i]
		}
		return s
	}
	// Σρ falls as λ grows; bracket the root geometrically.
	lo, hi := 1e-12, 1.0
	for total(hi) > budget && hi < 1e300 {
		lo, hi = hi, hi*16
	}
	for total(lo) < budget && lo > 1e-300 {
		hi, lo = lo, lo/16
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if total(mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	total(hi)
	return rho
}

// ChangeRate exports changeRate for the other owners of change histories
// (relation's learned update rates), so the estimator is written once.
func ChangeRate(n, x int, span, period time.Duration) (float64, bool) {
	return changeRate(n, x, span, period)
}
