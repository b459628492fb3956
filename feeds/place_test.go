package feeds

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// fullRefine is refine as the paper states it: every point scanned in every
// sweep until none moves. refine skips the points whose neighbours have not
// moved since their last scan, and must end where this does.
func fullRefine(c curve, plan []int) float64 {
	n := c.n
	for sweep := 0; sweep < 200; sweep++ {
		moved := false
		for j := range plan {
			a, b := c.neighbours(plan, j)
			cur := plan[j]
			bestX, bestV := cur, c.cost(a, cur)+c.cost(cur, b)
			for x := a + 1; x < b; x++ {
				if v := c.cost(a, x) + c.cost(x, b); v < bestV-1e-12 {
					bestX, bestV = x, v
				}
			}
			if bestX != cur {
				plan[j] = bestX
				moved = true
			}
		}
		for j := range plan {
			plan[j] = ((plan[j] % n) + n) % n
		}
		slices.Sort(plan)
		if !moved {
			break
		}
	}
	return c.planCost(plan)
}

// TestRefineSkipsOnlySettledPoints: on random shapes and rates (bursty
// ones, flat ones, and ones posting in a few hours of the week), grids and
// plans, from uniform starts and from random ones, refine ends at the very
// plan and cost of the full refinement.
func TestRefineSkipsOnlySettledPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var grids []Grid
	for _, step := range []time.Duration{time.Hour, 15 * time.Minute, 5 * time.Minute} {
		g, err := NewGrid(step)
		if err != nil {
			t.Fatal(err)
		}
		grids = append(grids, g)
	}
	differed := 0
	for trial := range 3000 {
		g := grids[trial%len(grids)]
		m := randomModel(rng)
		switch trial % 3 {
		case 1: // flat: many equal costs, where the tolerance decides
			for b := range m.Shape {
				m.Shape[b] = 1
			}
		case 2: // a few hours of the week
			for b := range m.Shape {
				m.Shape[b] = 0
			}
			for range 1 + rng.IntN(4) {
				m.Shape[rng.IntN(Bins)] = float64(Bins)
			}
		}
		m.Rate = math.Exp(rng.Float64()*8-12) * 10
		polls := 2 + rng.IntN(min(40, g.Slots()-2))
		var plan []int
		if trial%2 == 0 {
			plan = UniformPlan(g, polls, rng.Float64())
		} else {
			plan = rng.Perm(g.Slots())[:polls]
			slices.Sort(plan)
		}
		want, got := slices.Clone(plan), slices.Clone(plan)
		c := newCurve(m, g)
		wantCost, gotCost := fullRefine(c, want), refine(c, got)
		if !slices.Equal(got, want) || gotCost != wantCost {
			differed++
			if differed <= 3 {
				t.Errorf("trial %d (%d slots, %d polls): refine %v (cost %g), full refinement %v (cost %g)",
					trial, g.Slots(), polls, got, gotCost, want, wantCost)
			}
		}
	}
	if differed > 0 {
		t.Errorf("%d of 3000 plans differ", differed)
	}
}

// continuedCost is the objective Continue minimises, summed slot by slot
// from the model (not from curve's prefix sums): each slot's postings, at
// its middle, wait for the first poll after the slot, or for next.
func continuedCost(m Model, g Grid, plan []int, last, end, next int) float64 {
	total := 0.0
	for x := last; x < end; x++ {
		collector := next
		for _, p := range plan {
			if p > x {
				collector = p
				break
			}
		}
		bin := int(time.Duration(((x%g.Slots())+g.Slots())%g.Slots()) * g.Step / time.Hour)
		total += m.Rate * g.Step.Seconds() * m.Shape[bin] * (float64(collector) - float64(x) - 0.5)
	}
	return total
}

// TestContinueAdaptsAPlanToTheLastPoll: Continue keeps the number of polls
// and the window, never costs more than the periodic plan from the same
// last poll, leaves no poll that a move between its neighbours would make
// cheaper, and keeps a placed plan as it is when the week before ended
// where that plan ends it.
func TestContinueAdaptsAPlanToTheLastPoll(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	g := hourGrid(t)
	n := g.Slots()
	for trial := range 200 {
		m := randomModel(rng)
		polls := 1 + rng.IntN(12)
		plan := Place(m, g, polls, 4)
		from := rng.IntN(n)
		if trial%4 == 0 {
			from = 0
		}
		// The periodic plan's own polls in the window, and the one before.
		unrolled := Continue(Model{}, g, plan, from, 0, 0) // a rate of 0 moves nothing
		if len(unrolled) != len(plan) || unrolled[0] < from || unrolled[len(unrolled)-1] >= from+n {
			t.Fatalf("trial %d: plan %v unrolled from %d = %v", trial, plan, from, unrolled)
		}
		if same := Continue(m, g, plan, from, unrolled[len(unrolled)-1]-n, 0); !slices.Equal(same, unrolled) {
			t.Errorf("trial %d: the placed plan %v, continued from its own last poll, moved: %v → %v", trial, plan, unrolled, same)
		}
		last := from - 1 - rng.IntN(n)
		got := Continue(m, g, plan, from, last, 0)
		if len(got) != polls || !slices.IsSorted(got) || got[0] < from || got[len(got)-1] >= from+n {
			t.Fatalf("trial %d: Continue from %d, last poll %d = %v; want %d sorted polls in [%d, %d)", trial, from, last, got, polls, from, from+n)
		}
		next := unrolled[0] + n
		cost := func(p []int) float64 { return continuedCost(m, g, p, last, from+n, next) }
		if cost(got) > cost(unrolled)*(1+1e-9) {
			t.Errorf("trial %d: continued plan %v costs %g, the periodic one %v %g", trial, got, cost(got), unrolled, cost(unrolled))
		}
		for j := range got {
			lo, hi := max(from, last+1), from+n-1
			if j > 0 {
				lo = got[j-1] + 1
			}
			if j < len(got)-1 {
				hi = got[j+1] - 1
			}
			for x := lo; x <= hi; x++ {
				moved := slices.Clone(got)
				moved[j] = x
				if cost(moved) < cost(got)*(1-1e-9) {
					t.Fatalf("trial %d: moving poll %d of %v to %d lowers the cost %g → %g", trial, j, got, x, cost(got), cost(moved))
				}
			}
		}
	}
}

// TestContinueCatchesUpAfterALongGap: of two feeds alike, polled daily,
// the one last polled five days ago is polled at once and the one polled
// an hour ago not before half a day.
func TestContinueCatchesUpAfterALongGap(t *testing.T) {
	g := hourGrid(t)
	var m Model
	m.Rate = 4.0 / 3600
	for b := range m.Shape {
		m.Shape[b] = 1
	}
	plan := Place(m, g, 7, 4) // once a day, round the clock
	from := 50
	recent := Continue(m, g, plan, from, from-1, 0)
	stale := Continue(m, g, plan, from, from-120, 0)
	if stale[0] >= recent[0] {
		t.Errorf("first poll after a poll 120 h ago at slot %d, after one 1 h ago at %d: want the stale feed first", stale[0], recent[0])
	}
	if stale[0] != from {
		t.Errorf("first poll after five days at slot %d, want at once (%d)", stale[0], from)
	}
	if recent[0]-(from-1) < 12 {
		t.Errorf("first poll %d h after a poll 1 h ago, want about a day's gap (polled daily)", recent[0]-(from-1))
	}
}

// TestContinueKeepsTheMaxInterval: a feed polled once a week, posting in
// one hour of the week, is polled after that hour unless that is further
// from its last poll than its max interval; one overdue is polled at once.
func TestContinueKeepsTheMaxInterval(t *testing.T) {
	g := hourGrid(t)
	var m Model
	m.Rate = 1.0 / 3600
	m.Shape[150] = Bins // Sunday 06:00
	plan := Place(m, g, 1, 4)
	if !slices.Equal(plan, []int{151}) {
		t.Fatalf("placed %v, want just after the posting hour [151]", plan)
	}
	if got := Continue(m, g, plan, 0, -1, 0); !slices.Equal(got, []int{151}) {
		t.Errorf("no bound: %v, want [151]", got)
	}
	for _, c := range []struct{ last, longest, want int }{
		{-10, 168, 151}, // the peak is within the bound
		{-10, 100, 90},  // it is not: as late as the bound lets
		{-100, 0, 151},  // no bound: last week's posting (hour -18) waits for the peak
		{-100, 168, 0},  // bound before the peak: at once, for last week's posting
		{-200, 168, 0},  // overdue
	} {
		if got := Continue(m, g, plan, 0, c.last, c.longest); !slices.Equal(got, []int{c.want}) {
			t.Errorf("last poll at %d, longest %d: %v, want [%d]", c.last, c.longest, got, c.want)
		}
	}
}
