package feeds

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Grid is the resolution poll times are placed at within the Period.
type Grid struct {
	Step  time.Duration
	slots int
}

// NewGrid divides the Period into slots of step.
func NewGrid(step time.Duration) (Grid, error) {
	if step <= 0 || Period%step != 0 {
		return Grid{}, fmt.Errorf("feeds: placement step = %s: must divide one week", step)
	}
	return Grid{Step: step, slots: int(Period / step)}, nil
}

// Slots is the number of slots in a Period.
func (g Grid) Slots() int { return g.slots }

// SlotOf is the slot t falls in, counted from weekStart: negative before
// it, and past Slots() after the week.
func (g Grid) SlotOf(weekStart, t time.Time) int {
	d := t.Sub(weekStart)
	s := int(d / g.Step)
	if d%g.Step < 0 {
		s--
	}
	return s
}

// curve holds prefix sums of λ over four periods, from a week before the
// plan's week to two after, so an interval that wraps round the week is a
// plain difference: lam[x] = ∫_0^x λ, mom[x] =
// ∫_0^x t·λ(t) dt, in slots (λ constant within a slot).
type curve struct {
	n        int
	lam, mom []float64
}

func newCurve(m Model, g Grid) curve {
	c := curve{n: g.slots, lam: make([]float64, 4*g.slots+1), mom: make([]float64, 4*g.slots+1)}
	perSlot := m.Rate * g.Step.Seconds()
	for x := range 4 * g.slots {
		slot := x % g.slots
		bin := int(time.Duration(slot) * g.Step / time.Hour)
		v := perSlot * m.Shape[bin%Bins]
		c.lam[x+1] = c.lam[x] + v
		c.mom[x+1] = c.mom[x] + v*(float64(x)+0.5)
	}
	return c
}

// cost is the expected total delay, in slots, of the postings made in
// (a, b] when the next poll is at b (Lemma 1: ∫_a^b λ(t)(b − t) dt);
// a and b are slot indices in [−n, 3n).
func (c curve) cost(a, b int) float64 {
	a, b = a+c.n, b+c.n
	return delay(float64(b), c.lam[a], c.lam[b], c.mom[a], c.mom[b])
}

// delay is cost from the prefix sums at an interval's two ends and the
// end's slot index b (offset as in curve).
func delay(b, lamA, lamB, momA, momB float64) float64 {
	return b*(lamB-lamA) - (momB - momA)
}

// ExpectedDelay returns the expected delay per posting of a weekly plan of
// poll slots (sorted, in [0, slots)) under model m, in the grid's time unit
// converted to a Duration.
func ExpectedDelay(m Model, g Grid, slots []int) time.Duration {
	if len(slots) == 0 || m.Rate == 0 {
		return 0
	}
	c := newCurve(m, g)
	perPosting := c.planCost(slots) / c.lam[g.slots]
	return time.Duration(perPosting * float64(g.Step))
}

// UniformPlan spaces m polls evenly over the week, the first at phase
// (a fraction of the gap, in [0, 1)).
func UniformPlan(g Grid, m int, phase float64) []int {
	out := make([]int, 0, m)
	gap := float64(g.slots) / float64(m)
	for j := range m {
		s := int(math.Floor((float64(j)+phase)*gap)) % g.slots
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Place returns the weekly poll slots for m polls that minimise the expected
// delay under the model's λ(t) (Sia & Cho, retrieval scheduling, Thm. 3: at
// the optimum λ(τ_j)(τ_{j+1} − τ_j) = ∫_{τ_{j−1}}^{τ_j} λ(t) dt). It is the
// paper's iterative refinement: each τ_j in turn moves to the best slot
// between its neighbours (where the derivative of the delay, the difference
// of the two sides of Thm. 3, changes sign), until no point moves; started
// from starts evenly spaced phases of the uniform plan, keeping the best.
// The expected delay never rises during a sweep.
func Place(m Model, g Grid, polls, starts int) []int {
	if polls <= 0 {
		return nil
	}
	if polls >= g.slots {
		return UniformPlan(g, g.slots, 0)
	}
	c := newCurve(m, g)
	var best []int
	bestCost := math.Inf(1)
	for s := range max(starts, 1) {
		plan := UniformPlan(g, polls, float64(s)/float64(max(starts, 1)))
		cost := refine(c, plan)
		if cost < bestCost-1e-12 {
			best, bestCost = plan, cost
		}
	}
	return best
}

// Refine improves a plan (slots in [0, g.Slots())) by the same refinement as Place,
// from that plan alone: a re-plan after re-learning starts from last week's
// plan, close to the new optimum, instead of from several uniform ones.
func Refine(m Model, g Grid, plan []int) []int {
	out := slices.Clone(plan)
	slices.Sort(out) // refine keeps the order it is given round the week
	if len(out) == 0 || len(out) >= g.slots {
		return out
	}
	refine(newCurve(m, g), out)
	return out
}

// refine improves plan (sorted slots) in place by coordinate descent and
// returns its cost. A point is scanned again only once a neighbour has
// moved: between the same neighbours the scan would keep it where the last
// one put it (no slot there is better by more than the tolerance), so
// skipping it changes nothing (TestRefineSkipsOnlySettledPoints) and most
// of a sweep's work after the first few goes.
func refine(c curve, plan []int) float64 {
	n := c.n
	m := len(plan)
	if m == 1 { // Thm. 2: one poll; every slot is a candidate
		best := 0
		for x := 1; x < n; x++ {
			if c.cost(x-n, x) < c.cost(best-n, best)-1e-12 {
				best = x
			}
		}
		plan[0] = best
		return c.cost(best-n, best)
	}
	settled := make([]bool, m) // plan[j] is the best slot between its neighbours
	for sweep := 0; sweep < 200; sweep++ {
		moved := false
		for j := range plan {
			if settled[j] {
				continue
			}
			a, b := c.neighbours(plan, j)
			cur := plan[j]
			bestX := c.bestBetween(a, b, cur)
			settled[j] = true
			if bestX != cur {
				plan[j] = bestX
				moved = true
				settled[(j+m-1)%m], settled[(j+1)%m] = false, false
			}
		}
		// Points that stepped over the week's edge come back into [0, n),
		// and the plan, still in cyclic order, turns to start at its
		// earliest slot.
		first := 0
		for j := range plan {
			plan[j] = ((plan[j] % n) + n) % n
			if plan[j] < plan[first] {
				first = j
			}
		}
		if first != 0 {
			rotate(plan, first)
			rotate(settled, first)
			// The points at the ends see a neighbour a week away, and the
			// cost of the same interval a week later rounds differently:
			// the new ends and the old ones are scanned again.
			for _, j := range []int{0, m - 1, m - first, (2*m - 1 - first) % m} {
				settled[j] = false
			}
		}
		if !moved {
			break
		}
	}
	return c.planCost(plan)
}

// bestBetween returns the slot in (a, b) where a poll costs least with
// polls at a and b, cur unless another is better by more than 1e-12.
func (c curve) bestBetween(a, b, cur int) int { return c.bestIn(a, b, a+1, b-1, cur) }

// bestIn is bestBetween over the slots [lo, hi] alone (within (a, b), cur
// among them): c.cost(a, x) + c.cost(x, b), with what does not depend on x
// read once.
func (c curve) bestIn(a, b, lo, hi, cur int) int {
	a, b, cur = a+c.n, b+c.n, cur+c.n
	lam, mom := c.lam[a:b+1], c.mom[a:b+1]
	lamA, momA, lamB, momB, fb := lam[0], mom[0], lam[len(lam)-1], mom[len(mom)-1], float64(b)
	cost := func(i int) float64 { // of slot a + i
		return delay(float64(a+i), lamA, lam[i], momA, mom[i]) + delay(fb, lam[i], lamB, mom[i], momB)
	}
	best, bestV := cur-a, cost(cur-a)
	for i := lo + c.n - a; i <= hi+c.n-a; i++ {
		if v := cost(i); v < bestV-1e-12 {
			best, bestV = i, v
		}
	}
	return a + best - c.n
}

// rotate turns s left by k places.
func rotate[T any](s []T, k int) {
	slices.Reverse(s[:k])
	slices.Reverse(s[k:])
	slices.Reverse(s)
}

// planCost is the expected total delay, in slots, of a periodic plan
// (sorted slots in [0, n)): each poll collects what came since the one
// before it, the first since the last of the previous week.
func (c curve) planCost(plan []int) float64 {
	total := 0.0
	for j, s := range plan {
		prev, _ := c.neighbours(plan, j)
		total += c.cost(prev, s)
	}
	return total
}

// neighbours are the polls before and after plan[j] (sorted slots in
// [0, n)), round the week: the last poll of the week before, a week
// earlier (−n), precedes the first, and the first of the week after
// follows the last.
func (c curve) neighbours(plan []int, j int) (before, after int) {
	m := len(plan)
	before, after = plan[(j+m-1)%m], plan[(j+1)%m]
	if j == 0 {
		before -= c.n
	}
	if j == m-1 {
		after += c.n
	}
	return before, after
}

// Continue adapts a periodic plan (sorted slots in [0, g.Slots())) to the
// week it is followed in, [from, from + g.Slots()) with from in [0,
// g.Slots()), given the feed's last poll before it at slot last (from
// minus up to a week; earlier is taken as a week). A periodic plan assumes
// the week before ended with its own last poll; after a re-plan it ended
// with the old plan's, and a feed whose first interval comes out much
// longer or shorter than planned pays for the difference (delay grows with
// the square of an interval). Continue moves the polls, by the same
// refinement as Place, to minimise the delay of the postings from last to
// the window's end: those since last wait for the first poll, and those
// after the window's last poll for the next window's first, taken where
// plan puts it. The first poll comes at most longest slots after last (0:
// no bound; the feed's max interval), or at from if that is already past.
// It returns the polls' slots, in [from, from + g.Slots()).
func Continue(m Model, g Grid, plan []int, from, last, longest int) []int {
	n := g.slots
	out := make([]int, 0, len(plan))
	for _, s := range plan { // plan's polls within the window, in order
		if s < from {
			s += n
		}
		out = append(out, s)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return out
	}
	last = min(max(last, from-n), from-1)
	latest := from + n - 1
	if longest > 0 {
		latest = min(max(last+longest, from), latest)
	}
	out[0] = min(out[0], latest)
	if len(out) < n && m.Rate > 0 {
		newCurve(m, g).continued(out, from, last, latest)
	}
	return out
}

// continued is Continue's refinement of plan (sorted, in [from, from+n),
// in place; the first poll at most at latest).
func (c curve) continued(plan []int, from, last, latest int) {
	n := c.n
	next := plan[0] + n
	around := func(j int) (a, b int) {
		a, b = last, next
		if j > 0 {
			a = plan[j-1]
		}
		if j < len(plan)-1 {
			b = plan[j+1]
		}
		return a, b
	}
	for sweep := 0; sweep < 200; sweep++ {
		moved := false
		for j := range plan {
			a, b := around(j)
			lo, hi := max(a+1, from), min(b-1, from+n-1) // within the window
			if j == 0 {
				hi = min(hi, latest)
			}
			if best := c.bestIn(a, b, lo, hi, plan[j]); best != plan[j] {
				plan[j], moved = best, true
			}
		}
		if !moved {
			return
		}
	}
}
