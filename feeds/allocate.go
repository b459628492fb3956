package feeds

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Bounds are the fewest and most polls per Period a feed may get: from its
// max interval (a floor, so no feed starves) and its min interval (a
// ceiling, so no feed is hammered).
type Bounds struct{ Min, Max int }

// BoundsFor turns per-feed min and max poll intervals into Bounds.
func BoundsFor(minInterval, maxInterval time.Duration) (Bounds, error) {
	if minInterval <= 0 || maxInterval < minInterval {
		return Bounds{}, fmt.Errorf("feeds: min interval %s, max interval %s: need 0 < min ≤ max", minInterval, maxInterval)
	}
	return Bounds{
		Min: int(math.Ceil(float64(Period) / float64(maxInterval))),
		Max: max(1, int(float64(Period)/float64(minInterval))),
	}, nil
}

// SqrtAllocation returns the polls per Period of each feed by the
// square-root rule (Sia & Cho, resource allocation, Thm. 1): m_i = k·√(w_i·λ_i)
// with k set so that Σ m_i = total, here within each feed's bounds.
func SqrtAllocation(total int, weights, rates []float64, bounds []Bounds) ([]int, error) {
	if len(weights) != len(rates) {
		return nil, fmt.Errorf("feeds: %d weights for %d rates", len(weights), len(rates))
	}
	root := make([]float64, len(rates))
	for i := range rates {
		root[i] = math.Sqrt(max(weights[i]*rates[i], 0))
	}
	m, err := Fit(total, bounds, func(i int, k float64) float64 { return k * root[i] })
	if err != nil {
		return nil, err
	}
	exchange(m, bounds, func(i, k int) float64 { return evenCost(root[i]*root[i], k) })
	return m, nil
}

// exchange moves single polls between feeds while that lowers Σ cost(i,
// m_i), the total delay of feed i with m_i polls: under even spacing (Thm.
// 1's objective) c_i/m_i, c_i = w_i·λ_i. Rounding the real-valued optimum
// can leave a poll where another feed needs it more; the objective is convex
// and separable, so when no single move helps the integer allocation is
// optimal.
func exchange(m []int, bounds []Bounds, cost func(i, m int) float64) {
	for range 10 * len(m) * max(1, len(m)) {
		gainI, lossI := -1, -1
		gain, loss := 0.0, math.Inf(1)
		for i := range m {
			if m[i] < bounds[i].Max {
				if g := cost(i, m[i]) - cost(i, m[i]+1); g > gain {
					gain, gainI = g, i
				}
			}
			if m[i] > bounds[i].Min && m[i] > 1 {
				if l := cost(i, m[i]-1) - cost(i, m[i]); l < loss {
					loss, lossI = l, i
				}
			}
		}
		if gainI < 0 || lossI < 0 || gainI == lossI || gain <= loss*(1+1e-12) {
			return
		}
		m[gainI]++
		m[lossI]--
	}
}

// evenCost is the total delay c/m of a feed polled m times evenly; a feed
// with postings and no poll costs more than any polled one.
func evenCost(c float64, m int) float64 {
	if m == 0 {
		if c > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return c / float64(m)
}

// Combined allocates total polls and places them (Thm. 1 and Thm. 3 at
// once): it starts from the square-root allocation and moves single polls
// between feeds while that lowers Σ w_i·(expected delay of feed i's placed
// plan), each plan by Place. The square-root rule is optimal when polls are
// evenly spaced; once placed, a feed whose postings come in a few hours
// gains more from a poll than its rate alone says, and one posting round the
// clock less, so the exchange finishes what the two steps in sequence leave.
// It returns the polls per Period and each feed's slots.
func Combined(total int, weights []float64, models []Model, g Grid, bounds []Bounds, starts int) ([]int, [][]int, error) {
	rates := make([]float64, len(models))
	for i, m := range models {
		rates[i] = m.Rate
	}
	m, err := SqrtAllocation(total, weights, rates, bounds)
	if err != nil {
		return nil, nil, err
	}
	// Feeds of one model get one plan for k polls, placed once: every
	// feed without postings yet has the pooled rate and its cluster's
	// shape, and placing 10,000 new subscriptions one by one took seconds.
	type key struct{ i, m int }
	type placement struct {
		shape Shape
		rate  float64
		polls int
	}
	type placed struct {
		plan  []int
		delay time.Duration
	}
	placements := map[placement]placed{}
	place := func(i, k int) placed {
		p := placement{models[i].Shape, models[i].Rate, k}
		pl, ok := placements[p]
		if !ok {
			pl.plan = Place(models[i], g, k, starts)
			pl.delay = ExpectedDelay(models[i], g, pl.plan)
			placements[p] = pl
		}
		return pl
	}
	costs := map[key]float64{}
	cost := func(i, k int) float64 {
		if c, ok := costs[key{i, k}]; ok {
			return c
		}
		c := evenCost(weights[i]*models[i].Rate, 0) // no poll
		if k > 0 {
			c = weights[i] * models[i].Rate * float64(place(i, k).delay)
		}
		costs[key{i, k}] = c
		return c
	}
	exchange(m, bounds, cost)
	out := make([][]int, len(m))
	for i, k := range m {
		out[i] = slices.Clone(place(i, k).plan)
	}
	return m, out, nil
}

// ErrBudget is returned when the bounds cannot be met by the budget.
var ErrBudget = errors.New("feeds: budget outside the feeds' bounds")

// Fit spreads total polls over the feeds: want(i, k) is feed i's real-valued
// share for a multiplier k ≥ 0, non-decreasing in k. Fit finds the k whose
// shares, clamped to the bounds, sum to total, then rounds to integers by
// largest remainder, never leaving a feed's bounds. Any allocation rule
// written as a monotone family (square-root, Cho & Garcia-Molina's
// Lagrangian solutions) goes through here, so all honour the same bounds.
func Fit(total int, bounds []Bounds, want func(i int, k float64) float64) ([]int, error) {
	lo, hi := 0, 0
	for i, b := range bounds {
		if b.Min < 0 || b.Max < b.Min {
			return nil, fmt.Errorf("feeds: feed %d: bounds [%d, %d]: need 0 ≤ min ≤ max", i, b.Min, b.Max)
		}
		lo += b.Min
		hi += b.Max
	}
	if total < lo || total > hi {
		return nil, fmt.Errorf("%w: total = %d polls, bounds allow [%d, %d]", ErrBudget, total, lo, hi)
	}
	clamped := func(k float64) ([]float64, float64) {
		x := make([]float64, len(bounds))
		s := 0.0
		for i, b := range bounds {
			x[i] = min(max(want(i, k), float64(b.Min)), float64(b.Max))
			s += x[i]
		}
		return x, s
	}
	kLo, kHi := 0.0, 1.0
	for _, s := clamped(kHi); s < float64(total) && kHi < 1e300; _, s = clamped(kHi) {
		kHi *= 2
	}
	for range 200 {
		mid := (kLo + kHi) / 2
		if _, s := clamped(mid); s < float64(total) {
			kLo = mid
		} else {
			kHi = mid
		}
	}
	x, _ := clamped(kHi)
	out := make([]int, len(x))
	left := total
	type rem struct {
		i int
		r float64
	}
	var rems []rem
	for i, v := range x {
		out[i] = int(math.Floor(v + 1e-9))
		left -= out[i]
		rems = append(rems, rem{i, v - float64(out[i])})
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return cmp.Compare(b.r, a.r) })
	for left != 0 {
		changed := false
		for _, r := range rems {
			if left > 0 && out[r.i] < bounds[r.i].Max {
				out[r.i]++
				left--
				changed = true
			} else if left < 0 && out[r.i] > bounds[r.i].Min {
				out[r.i]--
				left++
				changed = true
			}
			if left == 0 {
				break
			}
		}
		if !changed {
			return nil, fmt.Errorf("%w: %d polls left over", ErrBudget, left)
		}
	}
	return out, nil
}
