package ads

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCTREstimate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		c      Candidate
		want   float64
		wantOK bool
	}{
		{"is clicks over impressions without a prior", Candidate{Shown: 40, Clicks: 3}, 3.0 / 40, true},
		{"is undefined for an ad never shown without a prior", Candidate{}, 0, false},
		{"is the prior mean α/(α+β) before any impression", Candidate{Prior: Prior{Alpha: 2, Beta: 38}}, 0.05, true},
		{"is the posterior mean (α+s)/(α+β+n) after impressions", Candidate{Shown: 60, Clicks: 1, Prior: Prior{Alpha: 2, Beta: 38}}, 3.0 / 100, true},
		{"ignores a prior with a zero parameter", Candidate{Shown: 4, Clicks: 1, Prior: Prior{Alpha: 0, Beta: 5}}, 0.25, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.c.CTR()
			if ok != tc.wantOK {
				t.Fatalf("CTR ok = %v, want %v", ok, tc.wantOK)
			}
			near(t, "ĉ", got, tc.want)
		})
	}
}

func TestBetaPosteriorUpdatesWithEachObservation(t *testing.T) {
	c := Candidate{Prior: Prior{Alpha: 1, Beta: 9}}
	// Beta(1,9) → click → Beta(2,9) → no click → Beta(2,10).
	steps := []struct {
		click bool
		want  float64
	}{{true, 2.0 / 11}, {false, 2.0 / 12}, {false, 2.0 / 13}, {true, 3.0 / 14}}
	for i, s := range steps {
		c.Shown++
		if s.click {
			c.Clicks++
		}
		got, _ := c.CTR()
		near(t, "ĉ after step "+string(rune('1'+i)), got, s.want)
	}
}

func TestSelect(t *testing.T) {
	t.Run("shows never-shown ads first, then by priority", func(t *testing.T) {
		cands := []Candidate{
			{ID: 1, Bid: 1, Shown: 10, Clicks: 1},
			{ID: 2, Bid: 1},
			{ID: 3, Bid: 2, Shown: 10, Clicks: 1},
		}
		if got := Select(Greedy{}, cands, 50, 3, nil); !slices.Equal(got, []int{1, 2, 0}) {
			t.Fatalf("Select = %v, want [1 2 0]", got)
		}
	})
	t.Run("breaks ties by higher bid, then lower id", func(t *testing.T) {
		cands := []Candidate{
			{ID: 7, Bid: 1, Shown: 5},
			{ID: 3, Bid: 1, Shown: 5},
			{ID: 9, Bid: 2, Shown: 5},
			{ID: 1, Bid: 1},
			{ID: 0, Bid: 1},
		}
		// Greedy: ids 1 and 0 are ∞ (tie, equal bids: id 0 first); the
		// rest are all 0 (id 9 has the higher bid, then id 3 before 7).
		if got := Select(Greedy{}, cands, 50, 5, nil); !slices.Equal(got, []int{4, 3, 2, 1, 0}) {
			t.Fatalf("Select = %v, want [4 3 2 1 0]", got)
		}
	})
	t.Run("returns fewer than C when fewer are eligible", func(t *testing.T) {
		cands := []Candidate{{ID: 1, Bid: 1}, {ID: 2, Bid: 1, Budgeted: true, Budget: 1, Remaining: 0}}
		if got := Select(BMIXE{}, cands, 3, 3, nil); !slices.Equal(got, []int{0}) {
			t.Fatalf("Select = %v, want [0]", got)
		}
	})
	t.Run("appends to dst", func(t *testing.T) {
		dst := []int{42}
		got := Select(Greedy{}, []Candidate{{ID: 1, Bid: 1}}, 1, 1, dst)
		if !slices.Equal(got, []int{42, 0}) {
			t.Fatalf("Select = %v, want [42 0]", got)
		}
	})
	t.Run("shows nothing for C = 0", func(t *testing.T) {
		if got := Select(Greedy{}, []Candidate{{ID: 1, Bid: 1}}, 1, 0, nil); len(got) != 0 {
			t.Fatalf("Select = %v, want none", got)
		}
	})
}

// TestSelectMatchesSorting checks Select against sorting all eligible
// candidates, on random inputs for every policy.
func TestSelectMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range Policies() {
		for trial := range 300 {
			cands := make([]Candidate, 1+rng.IntN(40))
			for i := range cands {
				c := &cands[i]
				c.ID = uint64(rng.IntN(1000))
				c.Bid = float64(1 + rng.IntN(4))
				if rng.IntN(5) > 0 {
					c.Shown = int64(rng.IntN(50))
					c.Clicks = int64(rng.IntN(int(c.Shown) + 1))
				}
				if rng.IntN(4) == 0 {
					c.Prior = Prior{Alpha: 1 + rng.Float64(), Beta: 10 * rng.Float64()}
				}
				if rng.IntN(2) == 0 {
					c.Budgeted, c.Budget = true, 10
					c.Remaining = float64(rng.IntN(12) - 2)
				}
			}
			n := int64(1 + rng.IntN(500))
			k := 1 + rng.IntN(8)
			var ref []int
			for i := range cands {
				if cands[i].Eligible() {
					ref = append(ref, i)
				}
			}
			slices.SortStableFunc(ref, func(a, b int) int {
				pa, pb := p.Priority(&cands[a], QueryOf(n)), p.Priority(&cands[b], QueryOf(n))
				switch {
				case better(pa, &cands[a], pb, &cands[b]):
					return -1
				case better(pb, &cands[b], pa, &cands[a]):
					return 1
				}
				return 0
			})
			ref = ref[:min(k, len(ref))]
			got := Select(p, cands, n, k, nil)
			// Candidates equal in priority, bid and id are interchangeable.
			for i := range got {
				a, b := &cands[got[i]], &cands[ref[i]]
				if got[i] != ref[i] && (a.ID != b.ID || a.Bid != b.Bid || p.Priority(a, QueryOf(n)) != p.Priority(b, QueryOf(n))) {
					t.Fatalf("%s trial %d: Select = %v, sorting gives %v", p.Name(), trial, got, ref)
				}
			}
			if len(got) != len(ref) {
				t.Fatalf("%s trial %d: Select returned %d, want %d", p.Name(), trial, len(got), len(ref))
			}
		}
	}
}

func TestSelectAllocatesNothingWithRoomInDst(t *testing.T) {
	cands := make([]Candidate, 100)
	for i := range cands {
		cands[i] = Candidate{ID: uint64(i), Bid: float64(i%7 + 1), Shown: int64(i), Clicks: int64(i / 10)}
	}
	dst := make([]int, 0, 4)
	if a := testing.AllocsPerRun(100, func() { dst = Select(BMIXE{}, cands, 1000, 4, dst[:0]) }); a != 0 {
		t.Fatalf("Select allocated %v times per call, want 0", a)
	}
}

func TestPolicyByName(t *testing.T) {
	for _, p := range Policies() {
		got, err := PolicyByName(p.Name())
		if err != nil || got.Name() != p.Name() {
			t.Errorf("PolicyByName(%q) = %v, %v", p.Name(), got, err)
		}
	}
	if _, err := PolicyByName("ucb"); err == nil {
		t.Error(`PolicyByName("ucb") succeeded, want an error`)
	}
}

func TestNaNPriorityRanksLast(t *testing.T) {
	cands := []Candidate{{ID: 1, Bid: math.NaN(), Shown: 1}, {ID: 2, Bid: 1, Shown: 1}}
	if got := Select(Greedy{}, cands, 2, 1, nil); !slices.Equal(got, []int{1}) {
		t.Fatalf("Select = %v, want [1]", got)
	}
}
