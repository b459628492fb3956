package paired

import (
	"math"
	"math/rand/v2"
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

func TestSignFlipP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ones := make([]float64, 20)
	for i := range ones {
		ones[i] = 1
	}
	zeros := make([]float64, 20)
	for _, c := range []struct {
		name     string
		a, b     []float64
		rounds   int
		want, by float64
	}{
		// No difference at all: every assignment is as extreme.
		{"equal", []float64{1, 2, 3}, []float64{1, 2, 3}, 1000, 1, 0},
		// Differences that cancel: observed 0, so p = 1.
		{"cancelling", []float64{1, 0, 1, 0}, []float64{0, 1, 0, 1}, 1000, 1, 0},
		// Differences 1, 2, 3: of the 8 sign patterns only all + and all
		// − reach |6|, so p is 1/4.
		{"small", []float64{1, 2, 3}, []float64{0, 0, 0}, 100000, 0.25, 0.01},
		// Twenty topics all one ahead: 2 patterns in 2^20 are as extreme,
		// so none of 10,000 rounds is, and p is its floor 1/10,001.
		{"consistent", ones, zeros, 10000, 1.0 / 10001, 1e-9},
	} {
		if p := SignFlipP(c.a, c.b, c.rounds, rng); math.Abs(p-c.want) > c.by {
			t.Errorf("%s: p = %v, want %v ± %v", c.name, p, c.want, c.by)
		}
	}
}
