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
