package monitor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// instance is a tiny WIC problem: pages, their demands, π per page and
// instant (pi[i][0] unused), and C.
type instance struct {
	demands [][]Demand
	pi      [][]float64
	n, c    int
}

func randomLife(rng *rand.Rand) Life {
	switch rng.IntN(4) {
	case 0:
		return Life{Kind: UnboundedAppend}
	case 1:
		return Life{Kind: TimeWindowAppend, Window: rng.IntN(3)}
	case 2:
		return Life{Kind: ChangeWindowAppend, Window: 1 + rng.IntN(2)}
	default:
		return Life{Kind: Overwrite}
	}
}

func randomUrgency(rng *rand.Rand) Urgency {
	switch rng.IntN(4) {
	case 0:
		return Urgency{Kind: Uniform}
	case 1:
		return Urgency{Kind: Exponential, R: rng.Float64()}
	case 2:
		return Urgency{Kind: SlidingWindow, Window: rng.IntN(3)}
	default:
		return Urgency{Kind: Linear, Window: 1 + rng.IntN(4)}
	}
}

func randomInstance(rng *rand.Rand, urgency func() Urgency) instance {
	in := instance{n: 1 + rng.IntN(8), c: 1 + rng.IntN(2)}
	pages := 1 + rng.IntN(4)
	for i := range pages {
		var ds []Demand
		for range 1 + rng.IntN(2) { // one or two demands share the page
			ds = append(ds, Demand{URL: fmt.Sprintf("u%d", i), Life: randomLife(rng), Urgency: urgency(), Weight: 0.1 + 0.9*rng.Float64()})
		}
		in.demands = append(in.demands, ds)
		pi := make([]float64, in.n+1)
		for j := 1; j <= in.n; j++ {
			if rng.IntN(3) > 0 {
				pi[j] = rng.Float64()
			}
		}
		in.pi = append(in.pi, pi)
	}
	return in
}

// g is g_i(j1, j2) by the definition, summed over page i's demands.
func (in instance) g(i, j1, j2 int) float64 {
	s := 0.0
	for _, d := range in.demands[i] {
		s += d.Weight * Utility(d.Life, d.Urgency, in.pi[i][j1+1:j2+1])
	}
	return s
}

// optimum finds the best schedule by dynamic programming over the vector
// of last-fetch instants, which is all the future utility depends on: an
// exhaustive search over every schedule, without repeating equal states.
func (in instance) optimum() float64 {
	memo := map[string]float64{}
	var best func(j int, prev []int) float64
	best = func(j int, prev []int) float64 {
		if j > in.n {
			return 0
		}
		key := fmt.Sprint(j, prev)
		if v, ok := memo[key]; ok {
			return v
		}
		v := 0.0
		pages := len(prev)
		for set := 0; set < 1<<pages; set++ {
			chosen, gain := 0, 0.0
			next := slices.Clone(prev)
			for i := range pages {
				if set&(1<<i) != 0 {
					chosen++
					gain += in.g(i, prev[i], j)
					next[i] = j
				}
			}
			if chosen > in.c {
				continue
			}
			v = max(v, gain+best(j+1, next))
		}
		memo[key] = v
		return v
	}
	return best(1, make([]int, len(in.demands)))
}

// greedy runs the Scheduler and values its schedule by the definition.
func (in instance) greedy(t *testing.T) (value, bound float64) {
	s, err := NewScheduler(64)
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, ds := range in.demands {
		for _, d := range ds {
			if _, err := s.Add(d); err != nil {
				t.Fatal(err)
			}
			index[d.URL] = i
		}
	}
	prev := make([]int, len(in.demands))
	for j := 1; j <= in.n; j++ {
		s.Advance(func(url string) float64 { return in.pi[index[url]][j] })
		for _, ch := range s.Pick(in.c, nil) {
			i := index[ch.URL]
			want := in.g(i, prev[i], j)
			if math.Abs(ch.Utility-want) > 1e-9 {
				t.Fatalf("instant %d: scheduler's utility of %s = %g, definition = %g", j, ch.URL, ch.Utility, want)
			}
			value += want
			prev[i] = j
		}
	}
	return value, s.Bound()
}

func TestWICApproximation(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	worst, worstBound := math.Inf(1), 0.0
	for n := range 2000 {
		in := randomInstance(rng, func() Urgency { return randomUrgency(rng) })
		opt := in.optimum()
		wic, bound := in.greedy(t)
		if wic > opt+1e-9 {
			t.Fatalf("instance %d: WIC %g above the optimum %g: the search is wrong", n, wic, opt)
		}
		if opt == 0 {
			continue
		}
		if wic*bound < opt-1e-9 {
			t.Fatalf("instance %d: WIC %g < OPT %g / (1+a) with 1+a = %g", n, wic, opt, bound)
		}
		if r := wic / opt; r < worst {
			worst, worstBound = r, bound
		}
	}
	t.Logf("worst WIC/OPT over 2000 instances: %.4f (its 1/(1+a) = %.4f)", worst, 1/worstBound)
	if worst == 1 {
		t.Errorf("WIC matched the optimum on every instance: the instances cannot tell the greedy from the optimum")
	}
}

func TestWICIsOptimalForWindowZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for n := range 1000 {
		in := randomInstance(rng, func() Urgency { return Urgency{Kind: SlidingWindow} })
		opt := in.optimum()
		wic, bound := in.greedy(t)
		if bound != 1 {
			t.Fatalf("1+a = %g for window(0), want 1", bound)
		}
		if math.Abs(wic-opt) > 1e-9 {
			t.Fatalf("instance %d: WIC %g ≠ OPT %g under window(0)", n, wic, opt)
		}
	}
}

func TestIncrementalFormsMatchTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	lives := []Life{{Kind: UnboundedAppend}, {Kind: TimeWindowAppend, Window: 3}, {Kind: ChangeWindowAppend, Window: 2}, {Kind: Overwrite}}
	urgencies := []Urgency{{Kind: Uniform}, {Kind: Exponential, R: 0.7}, {Kind: SlidingWindow, Window: 2}, {Kind: SlidingWindow}, {Kind: Linear, Window: 5}}
	for _, l := range lives {
		for _, u := range urgencies {
			t.Run(l.String()+"/"+u.String(), func(t *testing.T) {
				tr := newTracker(l, u, 1000)
				var since []float64
				for step := range 200 {
					if rng.IntN(25) == 0 {
						tr.reset()
						since = since[:0]
					}
					p := 0.0
					if rng.IntN(2) == 0 {
						p = rng.Float64()
					}
					tr.add(p)
					since = append(since, p)
					if want := Utility(l, u, since); math.Abs(tr.g-want) > 1e-9 {
						t.Fatalf("step %d (form %d): incremental g = %.12g, definition = %.12g", step, tr.form, tr.g, want)
					}
				}
			})
		}
	}
}

func TestChangeWindowLifeIsTheBinomialTail(t *testing.T) {
	// With a constant π the Poisson-binomial tail is Σ_{q<Z} C(n,q) π^q (1−π)^{n−q}.
	const p, z = 0.3, 3
	for n := 0; n <= 8; n++ {
		pi := make([]float64, n+1)
		for i := range pi {
			pi[i] = p
		}
		got := Life{Kind: ChangeWindowAppend, Window: z}.At(pi[1:])
		want := 0.0
		for q := 0; q < z && q <= n; q++ {
			want += binom(n, q) * math.Pow(p, float64(q)) * math.Pow(1-p, float64(n-q))
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("life over %d instants = %g, want %g", n, got, want)
		}
	}
}

func TestUtilityIsTheSumOverChanges(t *testing.T) {
	// Utility walks backwards carrying life along; the sum written out with
	// Life.At must agree.
	rng := rand.New(rand.NewPCG(15, 4))
	for range 500 {
		l, u := randomLife(rng), randomUrgency(rng)
		since := make([]float64, rng.IntN(10))
		for i := range since {
			since[i] = rng.Float64()
		}
		want := 0.0
		for k := range since {
			want += u.At(len(since)-1-k) * since[k] * l.At(since[k+1:])
		}
		if got := Utility(l, u, since); math.Abs(got-want) > 1e-12 {
			t.Fatalf("Utility(%s, %s, %v) = %g, sum = %g", l, u, since, got, want)
		}
	}
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r *= float64(n-k+i) / float64(i)
	}
	return r
}

func TestDemandsOnOneURLAddUpAndShareTheFetch(t *testing.T) {
	s, err := NewScheduler(16)
	if err != nil {
		t.Fatal(err)
	}
	a := Demand{URL: "http://a/", Life: Life{Kind: UnboundedAppend}, Urgency: Urgency{Kind: Uniform}, Weight: 0.5}
	b := Demand{URL: "http://a/", Life: Life{Kind: Overwrite}, Urgency: Urgency{Kind: Uniform}, Weight: 1}
	c := Demand{URL: "http://b/", Life: Life{Kind: UnboundedAppend}, Urgency: Urgency{Kind: Uniform}, Weight: 1}
	for _, d := range []Demand{a, b, c} {
		if _, err := s.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	s.Advance(func(string) float64 { return 0.6 })
	// a: 0.5·0.6, b: 1·0.6 → 0.9 on http://a/, 0.6 on http://b/.
	got := s.Pick(1, nil)
	if len(got) != 1 || got[0].URL != "http://a/" || math.Abs(got[0].Utility-0.9) > 1e-12 {
		t.Fatalf("Pick = %+v, want http://a/ at 0.9", got)
	}
	if u := s.Utility("http://a/"); u != 0 {
		t.Errorf("after the shared fetch http://a/ still has utility %g", u)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d URLs, want 2", s.Len())
	}
}

func TestPickSkipsHostsThatAreNotReady(t *testing.T) {
	s, _ := NewScheduler(4)
	for i, url := range []string{"http://a/", "http://b/", "http://c/"} {
		if _, err := s.Add(Demand{URL: url, Life: Life{Kind: UnboundedAppend}, Urgency: Urgency{Kind: Uniform}, Weight: float64(3 - i)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Advance(func(string) float64 { return 1 })
	got := s.Pick(2, func(url string) bool { return url != "http://a/" })
	if len(got) != 2 || got[0].URL != "http://b/" || got[1].URL != "http://c/" {
		t.Fatalf("Pick = %+v, want b then c", got)
	}
	if s.Utility("http://a/") != 3 {
		t.Errorf("the skipped URL lost its utility: %g", s.Utility("http://a/"))
	}
}

func TestBadDemandsNameTheField(t *testing.T) {
	s, _ := NewScheduler(4)
	cases := []struct {
		d    Demand
		want string
	}{
		{Demand{URL: "", Weight: 1}, "url is empty"},
		{Demand{URL: "u", Weight: 0}, "weight = 0: must be > 0"},
		{Demand{URL: "u", Weight: 1, Urgency: Urgency{Kind: Exponential, R: 1.5}}, "r = 1.5: must be in [0, 1]"},
		{Demand{URL: "u", Weight: 1, Life: Life{Kind: ChangeWindowAppend}}, "window = 0 changes: must be ≥ 1"},
		{Demand{URL: "u", Weight: 1, Urgency: Urgency{Kind: Linear}}, "horizon = 0: must be ≥ 1"},
	}
	for _, c := range cases {
		_, err := s.Add(c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%+v) = %v, want an error containing %q", c.d, err, c.want)
		}
	}
	if err := s.Remove(42); err == nil {
		t.Error("Remove of an unknown id succeeded")
	}
	if _, err := NewScheduler(0); err == nil {
		t.Error("NewScheduler(0) succeeded")
	}
}

func TestPickWithoutAFilterMatchesTheSortedChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	for range 50 {
		a, _ := NewScheduler(8)
		b, _ := NewScheduler(8)
		for i := range 40 {
			d := Demand{URL: fmt.Sprintf("u%02d", i), Life: Life{Kind: UnboundedAppend}, Urgency: Urgency{Kind: Exponential, R: 0.5}, Weight: float64(1 + rng.IntN(3))}
			a.Add(d)
			b.Add(d)
		}
		for range 10 {
			pis := map[string]float64{}
			pi := func(u string) float64 {
				if _, ok := pis[u]; !ok {
					pis[u] = float64(rng.IntN(3)) / 2 // ties on purpose
				}
				return pis[u]
			}
			a.Advance(pi)
			b.Advance(pi)
			c := 1 + rng.IntN(6)
			got, want := a.Pick(c, nil), b.Pick(c, func(string) bool { return true })
			if !slices.Equal(got, want) {
				t.Fatalf("Pick(%d, nil) = %v, sorted choice %v", c, got, want)
			}
		}
	}
}
