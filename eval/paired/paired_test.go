package paired

import (
	"math"
	"testing"
)

func TestCompareByHand(t *testing.T) {
	// Differences 2, 0, −1, 2: mean 0.75; deviations 1.25, −0.75, −1.75,
	// 1.25, squares summing to 6.75; sd √(6.75/3) = 1.5; s.e. 1.5/√4.
	d := Compare([]float64{3, 5, 4, 4}, []float64{1, 5, 5, 2})
	want := Diff{N: 4, Mean: 0.75, StdErr: 0.75, Ahead: 2, Behind: 1}
	if math.Abs(d.Mean-want.Mean) > 1e-12 || math.Abs(d.StdErr-want.StdErr) > 1e-12 || d.N != want.N || d.Ahead != want.Ahead || d.Behind != want.Behind {
		t.Fatalf("Compare = %+v, want %+v", d, want)
	}
	if r := d.Ratio(); math.Abs(r-1) > 1e-12 {
		t.Errorf("Ratio = %v, want 1", r)
	}
}

func TestCompareWithoutSpread(t *testing.T) {
	for _, c := range []struct {
		a, b  []float64
		ratio float64
	}{
		{nil, nil, 0},
		{[]float64{2}, []float64{1}, math.Inf(1)},        // one unit: no standard error
		{[]float64{1, 1}, []float64{2, 2}, math.Inf(-1)}, // every difference the same
		{[]float64{1, 2}, []float64{1, 2}, 0},
	} {
		d := Compare(c.a, c.b)
		if d.StdErr != 0 || d.Ratio() != c.ratio {
			t.Errorf("Compare(%v, %v) = %+v, ratio %v; want s.e. 0, ratio %v", c.a, c.b, d, d.Ratio(), c.ratio)
		}
	}
}

func TestCompareRefusesUnpairedLists(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("lists of different lengths were compared")
		}
	}()
	Compare([]float64{1, 2}, []float64{1})
}
