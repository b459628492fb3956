package synceval

import (
	"math"
	"testing"
)

// TestMarginCountsTheSeedsSpread: a run standing for several seeds is
// judged by the spread of its seeds' means as well as by the weeks'. Two
// seeds that are steadily ahead and behind, week by week, leave a small
// weekly standard error and a large one over the seeds.
func TestMarginCountsTheSeedsSpread(t *testing.T) {
	base := summary("uniform", 10, 1, 0.90, 0.92, 0.91, 0.93)
	seed := func(offset float64) RunSummary {
		r := summary("deltaq", 10, 1, 0.90+offset, 0.92+offset, 0.91+offset, 0.93+offset)
		r.Seeded = true
		return r
	}
	d := meanOfSeeds([]RunSummary{seed(0.03), seed(-0.01), seed(0.01)})
	m, ok := weekByWeek(d, base)
	if !ok {
		t.Fatal("no margin")
	}
	if math.Abs(m.Diff-0.01) > 1e-12 || m.Seeds != 3 || m.SeedsAhead != 2 {
		t.Errorf("diff %v over %d seeds, %d ahead; want 0.01 over 3, 2 ahead", m.Diff, m.Seeds, m.SeedsAhead)
	}
	if m.WeekStdErr > 1e-12 {
		t.Errorf("the weeks' differences are all 0.01, yet their s.e. is %v", m.WeekStdErr)
	}
	// The seeds' differences 0.03, −0.01, 0.01: sd 0.02, over √3.
	if want := 0.02 / math.Sqrt(3); math.Abs(m.SeedStdErr-want) > 1e-12 || math.Abs(m.StdErr-want) > 1e-12 {
		t.Errorf("s.e. of seeds %v, combined %v; want both %v", m.SeedStdErr, m.StdErr, want)
	}

	one, _ := weekByWeek(seed(0.01), base)
	if one.Seeds != 1 || one.SeedStdErr != 0 || one.StdErr != one.WeekStdErr {
		t.Errorf("one seed: %+v, want its weeks' s.e. alone", one)
	}
}

// summary is a run of policy at budget with Q q week by week, fetching
// its budget every week and finding one change.
func summary(policy string, budget int, q ...float64) RunSummary {
	r := RunSummary{Policy: policy, Budget: budget, Q: q, Fetched: make([]int, len(q)), Changed: make([]int, len(q)),
		Shares: make([]float64, len(q)), NewFetched: make([]int, len(q)), DiscFetched: make([]int, len(q))}
	for w := 1; w < len(q); w++ {
		r.MeanQ += q[w] / float64(len(q)-1)
		r.Fetched[w], r.Changed[w] = budget, 1
	}
	return r
}

// TestSeedMeansStandForTheirSeeds: the reported run of a seeded policy
// is the mean of its seeds' runs, at the place of the first; the other
// runs stay as they were.
func TestSeedMeansStandForTheirSeeds(t *testing.T) {
	run := func(policy string, budget int, seed uint64, seeded bool, q float64) RunSummary {
		r := summary(policy, budget, 1, q)
		r.Seeded, r.Seed = seeded, seed
		return r
	}
	runs := []RunSummary{run("uniform", 5, 0, false, 0.5), run("deltaq", 5, 1, true, 0.6), run("deltaq", 10, 1, true, 0.9),
		run("deltaq", 5, 2, true, 0.8), run("deltaq", 10, 2, true, 0.7)}
	best := bestRuns(runs)
	if len(best) != 3 {
		t.Fatalf("%d reported runs, want 3 (uniform, deltaq at two budgets)", len(best))
	}
	if best[0].Policy != "uniform" || best[0].Seeds != nil {
		t.Errorf("first reported run %+v, want uniform alone", best[0])
	}
	for i, want := range map[int]float64{1: 0.7, 2: 0.8} {
		r := best[i]
		if len(r.Seeds) != 2 || math.Abs(r.MeanQ-want) > 1e-12 || math.Abs(r.Q[1]-want) > 1e-12 {
			t.Errorf("deltaq B=%d: mean Q %v, week 1 %v over %d seeds; want %v over 2", r.Budget, r.MeanQ, r.Q[1], len(r.Seeds), want)
		}
		if r.ChangedShare() != 1/float64(r.Budget) || r.Fetched[1] != 2*r.Budget {
			t.Errorf("deltaq B=%d: %v of %d fetches changed, want the two seeds' pooled", r.Budget, r.ChangedShare(), r.Fetched[1])
		}
	}
}
