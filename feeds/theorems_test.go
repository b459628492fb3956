package feeds

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func hourGrid(t *testing.T) Grid {
	g, err := NewGrid(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomModel has a rate of one posting an hour and a random weekly shape
// with a strong daily rhythm.
func randomModel(rng *rand.Rand) Model {
	m := Model{Rate: 1.0 / 3600}
	peak := rng.IntN(24)
	sum := 0.0
	for b := range m.Shape {
		d := math.Abs(float64(b%24 - peak))
		m.Shape[b] = 0.05 + math.Exp(-d*d/8)*rng.Float64()*4
		sum += m.Shape[b]
	}
	for b := range m.Shape {
		m.Shape[b] *= Bins / sum
	}
	return m
}

func TestSqrtAllocation(t *testing.T) {
	// Thm. 1: with no bounds in the way, m_i ∝ √(w_i λ_i), and no other
	// integer allocation of the same total has a lower Σ w_i λ_i / m_i (the
	// total delay under uniform spacing, up to T²/2).
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		n := 2 + rng.IntN(4)
		w, lam := make([]float64, n), make([]float64, n)
		bounds := make([]Bounds, n)
		for i := range n {
			w[i], lam[i] = 0.1+rng.Float64(), math.Pow(10, -1+3*rng.Float64())
			bounds[i] = Bounds{Min: 1, Max: 1000}
		}
		total := n + rng.IntN(20)
		got, err := SqrtAllocation(total, w, lam, bounds)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, m := range got {
			sum += m
		}
		if sum != total {
			t.Fatalf("allocation %v sums to %d, want %d", got, sum, total)
		}
		cost := func(m []int) float64 {
			c := 0.0
			for i := range m {
				c += w[i] * lam[i] / float64(m[i])
			}
			return c
		}
		best := math.Inf(1)
		var rec func(i, left int, m []int)
		rec = func(i, left int, m []int) {
			if i == n-1 {
				if left >= 1 {
					best = min(best, cost(append(m, left)))
				}
				return
			}
			for k := 1; k <= left-(n-1-i); k++ {
				rec(i+1, left-k, append(m, k))
			}
		}
		rec(0, total, nil)
		if c := cost(got); c > best*1.01 {
			t.Fatalf("w %v λ %v total %d: allocation %v costs %g, the best integer allocation %g", w, lam, total, got, c, best)
		}
	}
}

func TestSqrtAllocationKeepsTheBounds(t *testing.T) {
	got, err := SqrtAllocation(30, []float64{1, 1, 1}, []float64{1000, 1, 0}, []Bounds{{1, 10}, {1, 100}, {2, 100}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 10 || got[2] < 2 || got[0]+got[1]+got[2] != 30 {
		t.Fatalf("allocation %v: want the fast feed capped at 10, the silent feed at its floor 2, total 30", got)
	}
	if _, err := SqrtAllocation(2, []float64{1, 1}, []float64{1, 1}, []Bounds{{2, 5}, {2, 5}}); err == nil {
		t.Fatal("a budget below the floors was accepted")
	}
}

func TestSingleRetrievalCrossing(t *testing.T) {
	// Thm. 2: one poll a period is best where λ(τ) equals the period's mean
	// rate, on the way down. Place must match brute force over every slot.
	rng := rand.New(rand.NewPCG(1, 2))
	g := hourGrid(t)
	for range 50 {
		m := randomModel(rng)
		got := Place(m, g, 1, 1)
		best, bestD := -1, time.Duration(math.MaxInt64)
		for s := range g.Slots() {
			if d := ExpectedDelay(m, g, []int{s}); d < bestD {
				best, bestD = s, d
			}
		}
		if d := ExpectedDelay(m, g, got); float64(d) > float64(bestD)*1.0001 {
			t.Fatalf("Place put the poll at %v (delay %s), brute force at %d (%s)", got, d, best, bestD)
		}
		// The crossing: the hour before the poll is at or above the mean
		// rate (shape 1) and the hour at the poll at or below it.
		s := got[0]
		before, after := m.Shape[(s+Bins-1)%Bins], m.Shape[s]
		if before < 1 || after > 1 {
			t.Errorf("poll at slot %d: λ before %.3g, after %.3g; Thm. 2 wants a downward crossing of 1", s, before, after)
		}
	}
}

func TestMultiRetrievalFixedPoint(t *testing.T) {
	// Thm. 3: for m ≤ 3 the refined plan is within 1 % of brute force, and
	// each point satisfies λ(τ_j)(τ_{j+1} − τ_j) ≈ ∫_{τ_{j−1}}^{τ_j} λ
	// (on a grid, the two sides bracket each other within one slot).
	rng := rand.New(rand.NewPCG(1, 3))
	g := hourGrid(t)
	n := g.Slots()
	for trial := range 6 {
		m := randomModel(rng)
		for polls := 2; polls <= 3; polls++ {
			got := Place(m, g, polls, 8)
			c := newCurve(m, g)
			gotD := c.planCost(got)
			bestD := math.Inf(1)
			for a := 0; a < n; a++ {
				for b := a + 1; b < n; b++ {
					if polls == 2 {
						bestD = min(bestD, c.cost(b-n, a)+c.cost(a, b))
						continue
					}
					for d := b + 1; d < n; d++ {
						bestD = min(bestD, c.cost(d-n, a)+c.cost(a, b)+c.cost(b, d))
					}
				}
			}
			if gotD > bestD*1.01 {
				t.Fatalf("trial %d, %d polls: plan %v delay %g, brute force %g", trial, polls, got, gotD, bestD)
			}
			if want := ExpectedDelay(m, g, got); math.Abs(gotD/c.lam[n]*float64(time.Hour)-float64(want)) > float64(time.Second) {
				t.Fatalf("ExpectedDelay %s disagrees with the plan's cost %g slot·postings", want, gotD)
			}
			for j := range got {
				prev, next := got[(j+polls-1)%polls], got[(j+1)%polls]
				if j == 0 {
					prev -= n
				}
				if j == polls-1 {
					next += n
				}
				light := c.lam[got[j]+n] - c.lam[prev+n]
				// λ just before and just after τ_j: the slot ending at τ_j and the one starting there.
				lamBefore := c.lam[got[j]+n] - c.lam[got[j]+n-1]
				lamAfter := c.lam[got[j]+n+1] - c.lam[got[j]+n]
				gap := float64(next - got[j])
				lo, hi := min(lamBefore, lamAfter)*gap, max(lamBefore, lamAfter)*gap
				if light < lo*0.999-1e-9 || light > hi*1.001+1e-9 {
					t.Errorf("trial %d, τ_%d = %d: ∫λ since τ_%d = %.4g, λ(τ_j)·gap in [%.4g, %.4g]", trial, j, got[j], j-1, light, lo, hi)
				}
			}
		}
	}
}

func TestLemma1AgainstSimulation(t *testing.T) {
	// The expected delay of a plan (Lemma 1) against the mean delay of
	// postings drawn from the same periodic Poisson process.
	rng := rand.New(rand.NewPCG(1, 4))
	g := hourGrid(t)
	m := randomModel(rng)
	plan := []int{9, 30, 77, 140}
	want := ExpectedDelay(m, g, plan)
	// Draw postings by thinning: uniform times accepted with λ(t)/λmax.
	maxShape := 0.0
	for _, v := range m.Shape {
		maxShape = max(maxShape, v)
	}
	total, n := 0.0, 0
	for n < 200000 {
		x := rng.Float64() * float64(Bins)
		if rng.Float64()*maxShape > m.Shape[int(x)] {
			continue
		}
		next := -1.0
		for _, s := range plan {
			if float64(s) >= x {
				next = float64(s)
				break
			}
		}
		if next < 0 {
			next = float64(plan[0] + Bins)
		}
		total += next - x
		n++
	}
	got := time.Duration(total / float64(n) * float64(time.Hour))
	if math.Abs(float64(got-want)) > 0.01*float64(want) {
		t.Fatalf("simulated mean delay %s, Lemma 1 %s", got, want)
	}
}

func TestHighThenLowExample(t *testing.T) {
	// Sia & Cho's example: postings only in the first half of the period.
	// Polling at the end of the busy half (where λ falls to its mean, Thm. 2)
	// against polling just before it: delays T/4 against 3T/4, a factor 3.
	var m Model
	m.Rate = 1.0 / 3600
	for b := range m.Shape {
		if b < Bins/2 {
			m.Shape[b] = 2
		}
	}
	g := hourGrid(t)
	best := Place(m, g, 1, 1)
	if best[0] != Bins/2 {
		t.Fatalf("one poll at slot %d, want %d (the end of the busy half)", best[0], Bins/2)
	}
	good := ExpectedDelay(m, g, best)
	bad := ExpectedDelay(m, g, []int{0})
	if r := float64(bad) / float64(good); math.Abs(r-3) > 0.02 {
		t.Fatalf("worst/best delay = %.3f (%s / %s), want 3", r, bad, good)
	}
}

func TestRefineKeepsAPlacedPlanAndImprovesAnyOther(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	g := hourGrid(t)
	m := randomModel(rng)
	placed := Place(m, g, 4, 8)
	if again := Refine(m, g, placed); !slices.Equal(again, placed) {
		t.Errorf("Refine moved a refined plan: %v → %v", placed, again)
	}
	start := []int{0, 1, 2, 3}
	if d0, d1 := ExpectedDelay(m, g, start), ExpectedDelay(m, g, Refine(m, g, start)); d1 >= d0 {
		t.Errorf("Refine of a bunched plan: delay %s → %s", d0, d1)
	}
}

func TestLearnFindsTheRhythmAndShrinksSparseFeeds(t *testing.T) {
	from := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC) // a Monday
	to := from.Add(4 * Period)
	var busy, sparse []time.Time
	for d := range 28 {
		day := from.AddDate(0, 0, d)
		if day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
			continue
		}
		for k := range 5 {
			busy = append(busy, day.Add(14*time.Hour+time.Duration(k)*7*time.Minute))
		}
	}
	sparse = []time.Time{from.Add(2*24*time.Hour + 14*time.Hour + 30*time.Minute)} // one Wednesday 14:30
	cfg := testConfig()
	cfg.Clusters, cfg.ClusterMinPostings = 2, 10
	models, centroids := LearnAll(cfg, [][]time.Time{busy, sparse, nil}, from, to, rand.New(rand.NewPCG(1, 6)))
	if len(centroids) != 1 {
		t.Fatalf("%d centroids from one dense feed", len(centroids))
	}
	for i, m := range models {
		mean := 0.0
		for _, v := range m.Shape {
			mean += v / Bins
			if !(v > 0) {
				t.Fatalf("model %d has a shape value %g: every hour needs λ > 0", i, v)
			}
		}
		if math.Abs(mean-1) > 1e-9 {
			t.Errorf("model %d: shape mean %g, want 1", i, mean)
		}
	}
	peak := func(m Model) int {
		best := 0
		for b, v := range m.Shape {
			if v > m.Shape[best] {
				best = b
			}
		}
		return best
	}
	if b := peak(models[0]); b%24 != 14 || b/24 >= 5 {
		t.Errorf("busy feed peaks at bin %d (day %d, hour %d), want a weekday at 14h", b, b/24, b%24)
	}
	// The sparse feed's one posting is too little to learn from alone: it
	// leans on the cluster's 14h peak, and its rate is (1 + rate_count)/window.
	if b := peak(models[1]); b%24 != 14 {
		t.Errorf("sparse feed peaks at hour %d, want its cluster's 14h", b%24)
	}
	if want := (1 + cfg.RateCount) / to.Sub(from).Seconds(); math.Abs(models[1].Rate-want) > 1e-15 {
		t.Errorf("sparse rate %g, want %g", models[1].Rate, want)
	}
	if models[2].Rate <= 0 {
		t.Errorf("a silent feed has rate %g: it must stay positive to be polled at all", models[2].Rate)
	}
}

// Combined spends the same polls within the bounds and, on feeds with
// different rhythms, never does worse in expected delay than the square-root
// allocation placed afterwards; and does better when one feed posts in one
// hour a day and another round the clock at the same rate: the square-root
// rule gives both 20 polls a week, but past one a day the bursty feed gains
// nothing from them.
func TestCombinedNeverWorseThanSqrtThenPlace(t *testing.T) {
	g := hourGrid(t)
	totalDelay := func(models []Model, plans [][]int) float64 {
		d := 0.0
		for i, m := range models {
			d += m.Rate * float64(ExpectedDelay(m, g, plans[i]))
		}
		return d
	}
	check := func(models []Model, total int, bounds []Bounds) (seq, both float64) {
		t.Helper()
		w := make([]float64, len(models))
		rates := make([]float64, len(models))
		for i, m := range models {
			w[i], rates[i] = 1, m.Rate
		}
		alloc, err := SqrtAllocation(total, w, rates, bounds)
		if err != nil {
			t.Fatal(err)
		}
		plans := make([][]int, len(models))
		for i, m := range models {
			plans[i] = Place(m, g, alloc[i], 4)
		}
		got, placed, err := Combined(total, w, models, g, bounds, 4)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for i, k := range got {
			sum += k
			if k < bounds[i].Min || k > bounds[i].Max || len(placed[i]) != k {
				t.Fatalf("feed %d: %d polls, %d placed, bounds %v", i, k, len(placed[i]), bounds[i])
			}
		}
		if sum != total {
			t.Fatalf("Combined spent %d polls of %d", sum, total)
		}
		return totalDelay(models, plans), totalDelay(models, placed)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		n := 2 + rng.IntN(3)
		models := make([]Model, n)
		bounds := make([]Bounds, n)
		for i := range models {
			models[i] = randomModel(rng)
			models[i].Rate *= math.Pow(10, rng.Float64()*2-1)
			bounds[i] = Bounds{Min: 1, Max: 60}
		}
		if seq, both := check(models, n*(2+rng.IntN(10)), bounds); both > seq*(1+1e-9) {
			t.Fatalf("Combined %g worse than square root then place %g", both, seq)
		}
	}
	burst, flat := Model{Rate: 1.0 / 3600}, Model{Rate: 1.0 / 3600}
	for b := range burst.Shape {
		flat.Shape[b] = 1
		if b%24 == 9 {
			burst.Shape[b] = 24
		}
	}
	seq, both := check([]Model{burst, flat}, 40, []Bounds{{1, 60}, {1, 60}})
	if !(both < seq*0.8) {
		t.Errorf("burst and flat feeds: Combined %g, square root then place %g; want Combined lower", both, seq)
	}
}

// Feeds of one model share its placements in Combined (new subscriptions
// all have the pooled model); each feed must still get exactly Place's
// plan for its own polls, in a slice of its own.
func TestCombinedPlacesEveryFeedAsPlaceDoes(t *testing.T) {
	g := hourGrid(t)
	rng := rand.New(rand.NewPCG(5, 5))
	shared, other := randomModel(rng), randomModel(rng)
	faster := shared
	faster.Rate *= 3 // same shape, another rate: another plan's cost
	models := []Model{shared, shared, other, faster, shared, other}
	weights := []float64{1, 1, 1, 1, 4, 2}
	bounds := make([]Bounds, len(models))
	for i := range bounds {
		bounds[i] = Bounds{Min: 1, Max: 40}
	}
	got, placed, err := Combined(60, weights, models, g, bounds, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != got[1] {
		t.Fatalf("feeds 0 and 1 are alike but got %d and %d polls", got[0], got[1])
	}
	if got[4] == got[0] {
		t.Fatalf("feed 4 weighs 4× feed 0 but got the same %d polls: the test needs plans of different lengths", got[0])
	}
	for i, m := range models {
		if want := Place(m, g, got[i], 4); !slices.Equal(placed[i], want) {
			t.Errorf("feed %d (%d polls): placed %v, Place gives %v", i, got[i], placed[i], want)
		}
	}
	placed[0][0] = -1
	if placed[1][0] == -1 {
		t.Error("feeds 0 and 1 share one slice: changing one plan changed the other")
	}
}
