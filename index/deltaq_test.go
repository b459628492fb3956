package index

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// fixtureHistogram is H_q of a 7-result list with 3 buckets: ranks {1},
// {2,3}, {4..7} with averages 10, 7 and 3.5 and lowest score 2, so the
// knots of Ŝ are (1, 10), (2.5, 7), (5.5, 3.5), (7, 2) and
//
//	Ŝ(1..7) = 10, 8, 6.41667, 5.25, 4.08333, 3, 2.
func fixtureHistogram() Histogram {
	return NewHistogram([]float64{10, 8, 6, 5, 4, 3, 2}, 3)
}

// I(r) = r^(−3/2) with c = 1: I(1..7) = 1, .353553, .192450, .125, .0894427, .0680414, .0539949.
func TestTermDeltaHandComputed(t *testing.T) {
	h := fixtureHistogram()
	cases := []struct {
		name           string
		s1             float64
		had            bool
		s2             float64
		has            bool
		r1, r2         int
		want           float64
		derivationNote string
	}{
		{
			name: "a rank falling within one bucket", s1: 5.25, had: true, s2: 3, has: true, r1: 4, r2: 5,
			// R̂(5.25) = 4; R̂(3) = 6, minus the old copy = 5.
			// (I(5) − I(4))·3 + (I(4) − I(5))·Ŝ(5) = (I(4) − I(5))·(4.08333 − 3)
			want: 0.0385203876416758,
		},
		{
			name: "a rank rising within one bucket", s1: 3, had: true, s2: 5.25, has: true, r1: 6, r2: 4,
			// (I(4) − I(6))·5.25 − (I(4) − I(5))·Ŝ(4) − (I(5) − I(6))·Ŝ(5) = (I(5) − I(6))·(5.25 − 4.08333)
			want: 0.024968226915350167,
		},
		{
			name: "a rank falling across buckets", s1: 10, had: true, s2: 4.083333333333334, has: true, r1: 1, r2: 4,
			// (I(4) − I(1))·Ŝ(5) + Σ_{r=2}^{4} (I(r−1) − I(r))·Ŝ(r)
			want: 2.986515360209129,
		},
		{
			name: "a rank rising across buckets", s1: 2, had: true, s2: 8, has: true, r1: 7, r2: 2,
			// (I(2) − I(7))·8 − Σ_{r=2}^{6} (I(r) − I(r+1))·Ŝ(r)
			want: 0.35863268766691503,
		},
		{
			name: "a term appearing in the page", s1: 0, had: false, s2: 6.416666666666667, has: true, r1: 8, r2: 3,
			// I(3)·Ŝ(3) − Σ_{r=3}^{7} (I(r) − I(r+1))·Ŝ(r): every result from rank 3 moves down
			want: 0.46627794153655433,
		},
		{
			name: "a term disappearing from the page", s1: 8, had: true, s2: 0, has: false, r1: 2, r2: 8,
			// (0 − I(2))·0 + Σ_{r=3}^{7} (I(r−1) − I(r))·Ŝ(r): every result below rank 2 moves up
			want: 1.6253483080884765,
		},
		{
			name: "an unchanged score changes nothing", s1: 5.25, had: true, s2: 5.25, has: true, r1: 4, r2: 4,
			want: 0,
		},
	}
	for _, tc := range cases {
		for _, e := range []Estimator{{C: 1, Cutoff: 1000}, {C: 1, Cutoff: 0}} {
			name := tc.name + " (exact sum)"
			if e.Cutoff == 0 {
				name = tc.name + " (closed form)"
			}
			t.Run(name, func(t *testing.T) {
				r1, r2 := e.Ranks(h, tc.s1, tc.had, tc.s2, tc.has)
				if r1 != tc.r1 || r2 != tc.r2 {
					t.Errorf("ranks = %d, %d; want %d, %d", r1, r2, tc.r1, tc.r2)
				}
				got := e.TermDelta(h, tc.s1, tc.had, tc.s2, tc.has)
				if !approx(got, tc.want, 1e-12) {
					t.Errorf("TermDelta = %.15g, want %.15g", got, tc.want)
				}
			})
		}
	}
}

func TestTermDeltaScalesWithC(t *testing.T) {
	h := fixtureHistogram()
	a := Estimator{C: 1, Cutoff: 10}.TermDelta(h, 5.25, true, 3, true)
	b := Estimator{C: 2.5, Cutoff: 10}.TermDelta(h, 5.25, true, 3, true)
	if !approx(b, 2.5*a, 1e-15) {
		t.Fatalf("c = 2.5 gives %g, want %g", b, 2.5*a)
	}
}

// randomHistogram builds a histogram over n random decreasing scores.
func randomHistogram(rng *rand.Rand, n, buckets int) Histogram {
	scores := make([]float64, n)
	for i := range scores {
		scores[i] = rng.ExpFloat64() * 3
	}
	slices.Sort(scores)
	slices.Reverse(scores)
	return NewHistogram(scores, buckets)
}

// Replacing a copy by one that ranks where its live score belongs never
// lowers quality: ΔQ_A ≥ 0 for any old and new score (§4.2.1, eq. 4.4).
func TestTermDeltaIsNeverNegative(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		n := 1 + rng.IntN(5000)
		h := randomHistogram(rng, n, 1+rng.IntN(10))
		e := Estimator{C: 1, Cutoff: rng.IntN(200)}
		s1, s2 := rng.Float64()*12, rng.Float64()*12
		had, has := rng.IntN(4) != 0, rng.IntN(4) != 0
		if d := e.TermDelta(h, s1, had, s2, has); d < -1e-9 {
			t.Fatalf("case %d: n=%d s1=%g had=%v s2=%g has=%v: ΔQ = %g < 0", i, n, s1, had, s2, has, d)
		}
	}
}

// The closed form for long rank shifts agrees with the term-by-term sum.
func TestClosedFormMatchesExactSumForLongShifts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		n := 100 + rng.IntN(20000)
		h := randomHistogram(rng, n, 1+rng.IntN(12))
		s1, s2 := rng.Float64()*10, rng.Float64()*10
		had, has := rng.IntN(5) != 0, rng.IntN(5) != 0
		exact := Estimator{C: 1, Cutoff: math.MaxInt32}.TermDelta(h, s1, had, s2, has)
		closed := Estimator{C: 1, Cutoff: 0}.TermDelta(h, s1, had, s2, has)
		if !approx(exact, closed, 1e-9*max(1, math.Abs(exact))) {
			t.Fatalf("case %d (n=%d, s1=%g %v, s2=%g %v): exact %.15g, closed form %.15g", i, n, s1, had, s2, has, exact, closed)
		}
	}
}

func TestPowerSum(t *testing.T) {
	exact := func(i, j int) float64 {
		var s float64
		for k := j; k >= i; k-- { // small terms first
			x := float64(k)
			s += 1 / (x * math.Sqrt(x))
		}
		return s
	}
	thesis := func(i, j int) float64 { return 2 * (1/math.Sqrt(float64(i)) - 1/math.Sqrt(float64(j-1))) }
	cases := [][2]int{{1, 1}, {1, 7}, {1, 8}, {1, 9}, {2, 10}, {1, 65}, {2, 1000}, {5, 70}, {64, 129},
		{100, 100000}, {1, 1000000}, {999, 1001}, {50000, 2000000}}
	for _, c := range cases {
		i, j := c[0], c[1]
		want := exact(i, j)
		got := powerSum(i, j)
		if rel := math.Abs(got-want) / want; rel > 1e-8 {
			t.Errorf("powerSum(%d, %d) = %.15g, exact %.15g: relative error %.2g > 1e-8", i, j, got, want, rel)
		}
	}
	// The form printed in §4.6.1 is far off for a range starting near the top.
	if rel := (exact(2, 1000) - thesis(2, 1000)) / exact(2, 1000); rel < 0.1 {
		t.Errorf("thesis form error %.3f; expected it to be over 10%% low", rel)
	}
	if powerSum(5, 4) != 0 {
		t.Error("empty range is not 0")
	}
}

func TestCursorWalksTheSameCurveAsScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200 {
		n := 1 + rng.IntN(3000)
		h := randomHistogram(rng, n, 1+rng.IntN(10))
		var c cursor
		for r := 1 + rng.IntN(3); r <= n+3; r += 1 + rng.IntN(3) {
			if got, want := c.score(h, float64(r)), h.Score(float64(r)); !approx(got, want, 1e-12*max(1, want)) {
				t.Fatalf("n=%d r=%d: cursor %g, Score %g", n, r, got, want)
			}
		}
	}
}
