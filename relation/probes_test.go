package relation

import (
	"math"
	"slices"
	"testing"
)

func smallRelation() []Tuple {
	return []Tuple{
		{ID: "a", Keywords: []string{"x", "y"}, Weight: 1, Rate: 1},
		{ID: "b", Keywords: []string{"x", "y"}, Weight: 1, Rate: 1},
		{ID: "c", Keywords: []string{"x", "z"}, Weight: 1, Rate: 1},
		{ID: "d", Keywords: []string{"w"}, Weight: 1, Rate: 1},
	}
}

var smallServer = ReportedHits{"x": 100, "y": 5, "z": 3, "w": 2, "x y": 2, "x z": 1, "y z": 0}

func TestGreedyProbesPicksByEquation2(t *testing.T) {
	opts := ProbeOptions{Interface: Interface{PageSize: 10, MaxResults: 100}, Method: AllPages, MaxKeywords: 2, Pool: 10}
	plan, err := GreedyProbes(smallRelation(), 1, smallServer, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan.Probes {
		got = append(got, p.Query())
	}
	// "x y" and "x z" both score 0.5 per server hit; the weights tie too,
	// so the key decides. "w" then covers d.
	if want := []string{"x y", "x z", "w"}; !slices.Equal(got, want) {
		t.Fatalf("probes = %q, want %q", got, want)
	}
	if plan.Covered != 4 || plan.Requests != 3 || math.Abs(plan.Speedup-4.0/3) > 1e-12 || plan.CoverageRatio != 1 {
		t.Errorf("covered %d, requests %d, speedup %v, coverage %v; want 4, 3, 4/3, 1", plan.Covered, plan.Requests, plan.Speedup, plan.CoverageRatio)
	}
	if !slices.Equal(plan.Probes[0].Tuples, []int{0, 1}) || !slices.Equal(plan.Probes[1].Tuples, []int{2}) {
		t.Errorf("groups %v, %v are not disjoint first-cover groups", plan.Probes[0].Tuples, plan.Probes[1].Tuples)
	}
}

func TestGreedyProbesSingleKeywords(t *testing.T) {
	opts := ProbeOptions{Interface: Interface{PageSize: 10, MaxResults: 100}, Method: AllPages, MaxKeywords: 1, Pool: 10}
	plan, err := GreedyProbes(smallRelation(), 1, smallServer, opts)
	if err != nil {
		t.Fatal(err)
	}
	// y: 1/5; z: 0.5/3; w: 0.5/2 = 0.25 first; then y (0.2), then z.
	var got []string
	for _, p := range plan.Probes {
		got = append(got, p.Query())
	}
	if want := []string{"w", "y", "z"}; !slices.Equal(got, want) {
		t.Errorf("probes = %q, want %q", got, want)
	}
}

func TestGreedyProbesStaleTuplesFirst(t *testing.T) {
	tuples := smallRelation()
	tuples[3].LastSync = -9 // d is ten units stale: 100 times the others' F
	opts := ProbeOptions{Interface: Interface{PageSize: 10, MaxResults: 100}, Method: AllPages, MaxKeywords: 2, Pool: 10, MaxProbes: 1}
	plan, err := GreedyProbes(tuples, 1, smallServer, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Probes) != 1 || plan.Probes[0].Query() != "w" {
		t.Errorf("first probe %v, want w (the stalest tuple)", plan.Probes)
	}
}

func TestGreedyProbesRequestBudget(t *testing.T) {
	// Method 1 on "x" alone needs 10 pages; a budget of 2 requests rules
	// it out and stops after two one-page probes.
	tuples := []Tuple{{ID: "a", Keywords: []string{"x"}, Weight: 1, Rate: 1}, {ID: "b", Keywords: []string{"w"}, Weight: 1, Rate: 1}, {ID: "c", Keywords: []string{"z"}, Weight: 1, Rate: 1}}
	opts := ProbeOptions{Interface: Interface{PageSize: 10, MaxResults: 100}, Method: AllPages, MaxKeywords: 1, Pool: 10, MaxRequests: 2}
	plan, err := GreedyProbes(tuples, 1, smallServer, opts)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Requests != 2 || plan.Covered != 2 {
		t.Errorf("requests %d, covered %d; want 2 and 2", plan.Requests, plan.Covered)
	}
	for _, p := range plan.Probes {
		if p.Query() == "x" {
			t.Errorf("probe x (10 requests) chosen under a budget of 2")
		}
	}
}

func TestExtractionMethods(t *testing.T) {
	f := Interface{PageSize: 10, MaxResults: 100}
	for _, c := range []struct {
		m        Method
		local    int
		server   float64
		requests int
		coverage float64
		name     string
	}{
		{AllPages, 4, 35, 4, 4, "method 1 reads every page"},
		{AllPages, 4, 400, 10, 1, "method 1 stops at the result cap K"},
		{FirstPage, 4, 40, 1, 1, "method 2 reads p of |R_S|"},
		{FirstPage, 4, 8, 1, 4, "method 2 on a one-page result"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := f.Requests(c.m, c.server); got != c.requests {
				t.Errorf("N(q) = %d, want %d", got, c.requests)
			}
			if got := f.ExpectedCoverage(c.m, c.local, c.server); math.Abs(got-c.coverage) > 1e-12 {
				t.Errorf("E_coverage = %v, want %v", got, c.coverage)
			}
		})
	}
}

func TestScaledSample(t *testing.T) {
	s := NewScaledSample([][]string{{"x", "y"}, {"x"}, {"x", "y", "z"}, {"z"}}, 2)
	if n := s.Count([]string{"x", "y"}); n != 2 {
		t.Errorf("|R(x y)| = %d, want 2", n)
	}
	if h, ok := s.Hits([]string{"z"}); !ok || h != 4 {
		t.Errorf("c·|R(z)| = %v %v, want 4", h, ok)
	}
	if _, ok := s.Hits([]string{"q"}); ok {
		t.Error("a keyword absent from the sample has an estimate")
	}
	c, err := s.CalibrateScale(ReportedHits{"x": 9, "z": 3})
	if err != nil || c != 12.0/5 {
		t.Errorf("c = %v (%v), want 12/5", c, err)
	}
	if _, err := s.CalibrateScale(ReportedHits{"q": 3}); err == nil {
		t.Error("calibrating from queries absent from the sample gave no error")
	}
}

func TestPendingStaleness(t *testing.T) {
	// Table 2: updates at 5, 6, 7 give F = 1, 3, 6 at t = 6, 7, 8.
	var p Pending
	p.Update(5)
	if got := p.At(6); got != 1 {
		t.Errorf("F(e;6) = %v, want 1", got)
	}
	p.Update(6)
	if got := p.At(7); got != 3 {
		t.Errorf("F(e;7) = %v, want 3", got)
	}
	p.Update(7)
	if got := p.At(8); got != 6 {
		t.Errorf("F(e;8) = %v, want 6", got)
	}
	p.Sync()
	if got := p.At(9); got != 0 {
		t.Errorf("F after sync = %v, want 0", got)
	}
}

func TestRateLearned(t *testing.T) {
	var counted RateObservation
	counted.Observe(2, true, 3, true)
	counted.Observe(4, true, 3, true)
	if got := counted.Rate(9, 0); got != 1 {
		t.Errorf("counted λ̂ = %v, want 6 updates / 6 units = 1", got)
	}
	if got := counted.Rate(4, 2); got != (6+4*2)/8.0 {
		t.Errorf("counted λ̂ with a prior of 4 over 2 units = %v, want 14/8", got)
	}
	var changed RateObservation
	if got := changed.Rate(0.5, 10); got != 0.5 {
		t.Errorf("λ̂ without observations = %v, want the prior 0.5", got)
	}
	for range 4 {
		changed.Observe(1, true, 0, false)
	}
	want := -math.Log(0.5 / 4.5)
	if got := changed.Rate(0, 0); math.Abs(got-want) > 1e-6 {
		t.Errorf("changed λ̂ = %v, want %v", got, want)
	}
	var unchanged RateObservation
	unchanged.Observe(3, false, 0, false)
	if got := unchanged.Rate(0.1, 3); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("λ̂ after one unchanged sync = %v, want the prior halved (0.05), not 0", got)
	}
}
