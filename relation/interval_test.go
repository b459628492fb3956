package relation

import (
	"errors"
	"math"
	"testing"
)

func TestFrequencySearch(t *testing.T) {
	tuples, probes := table3()
	g := FrequencyG(tuples, probes)
	// g is linear in I (§4.4), so the largest I with g ≤ α is α/g(1).
	exact := func(alpha float64) float64 { return alpha / g(1) }
	for _, c := range []struct {
		name      string
		alpha, i0 float64
	}{
		{"doubling from below", 3, 1},
		{"halving from above", 0.01, 1},
		{"starting at the answer's order", 0.1, 0.5},
		{"far above", 1e4, 1e-3},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SearchInterval(g, c.alpha, c.i0, 0.001)
			if err != nil {
				t.Fatal(err)
			}
			want := exact(c.alpha)
			if math.Abs(got-want)/want > 0.01 {
				t.Errorf("I = %v, want %v within 1%%", got, want)
			}
			if g(got) > c.alpha {
				t.Errorf("g(%v) = %v > alpha %v", got, g(got), c.alpha)
			}
		})
	}
	t.Run("the Table 3 plan's g at I = 1", func(t *testing.T) {
		// E[F(L;kI)] = 0.375 at k = 2, I = 1, |L| = 4: g = 0.375/(2·1·4).
		if got := g(1); math.Abs(got-0.375/8) > 1e-12 {
			t.Errorf("g(1) = %v, want %v", got, 0.375/8)
		}
	})
}

func TestSearchIntervalNonLinear(t *testing.T) {
	g := func(i float64) float64 { return i * i * i } // monotone, not linear
	got, err := SearchInterval(g, 8, 0.1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-2)/2 > 0.01 || g(got) > 8 {
		t.Errorf("I = %v, want the largest I with I³ ≤ 8, 2", got)
	}
}

func TestSearchIntervalRejects(t *testing.T) {
	flat := func(float64) float64 { return 1 }
	for _, c := range []struct {
		name           string
		alpha, i0, tol float64
		is             error
	}{
		{"alpha zero", 0, 1, 0.01, nil},
		{"alpha NaN", math.NaN(), 1, 0.01, nil},
		{"negative I0", 1, -1, 0.01, nil},
		{"tolerance 1", 1, 1, 1, nil},
		{"g never reaches alpha", 2, 1, 0.01, ErrNoInterval},
		{"g never falls below alpha", 0.5, 1, 0.01, ErrNoInterval},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := SearchInterval(flat, c.alpha, c.i0, c.tol)
			if err == nil {
				t.Fatal("no error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
		})
	}
}
