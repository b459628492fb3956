// Package paired compares two systems measured on the same units (the
// weeks of a replay, the topics of a judged collection): the mean of the
// per-unit differences, its standard error and how many units each side
// wins. Pairing removes what the units share (an easy topic is easy for
// both), so the standard error of the differences is the one that says
// whether a difference of means is more than the units' noise. Over
// independent units (topics), SignFlipP also gives a randomization test's
// p-value.
//
//	d := paired.Compare(deltaqQ, baselineQ) // same length, unit by unit
//	fmt.Printf("%+.4f ± %.4f (%.1f s.e.), ahead in %d of %d", d.Mean, d.StdErr, d.Ratio(), d.Ahead, d.N)
//	p := paired.SignFlipP(x, y, 10000, rand.New(rand.NewPCG(1, 1)))
package paired

import (
	"math"
	"math/rand/v2"
)

// Diff is a − b over n paired units.
type Diff struct {
	N      int
	Mean   float64 // mean of a[i] − b[i]
	StdErr float64 // the differences' standard deviation / √N; 0 when N < 2
	Ahead  int     // units where a > b
	Behind int     // units where a < b
}

// differences is a[i] − b[i] for every unit. a and b must be of one
// length: lists that do not pair are a caller's mistake, not data.
func differences(a, b []float64) []float64 {
	if len(a) != len(b) {
		panic("paired: a and b differ in length")
	}
	diffs := make([]float64, len(a))
	for i := range a {
		diffs[i] = a[i] - b[i]
	}
	return diffs
}

// Compare returns a − b unit by unit. a and b must be of one length.
func Compare(a, b []float64) Diff {
	diffs := differences(a, b)
	d := Diff{N: len(diffs)}
	if d.N == 0 {
		return d
	}
	for _, x := range diffs {
		d.Mean += x
		switch {
		case x > 0:
			d.Ahead++
		case x < 0:
			d.Behind++
		}
	}
	d.Mean /= float64(d.N)
	if d.N < 2 {
		return d
	}
	var ss float64
	for _, x := range diffs {
		ss += (x - d.Mean) * (x - d.Mean)
	}
	d.StdErr = math.Sqrt(ss/float64(d.N-1)) / math.Sqrt(float64(d.N))
	return d
}

// Ratio is Mean in standard errors: how far the difference stands out
// from the units' noise (0 when StdErr is 0 and Mean is too; ±Inf when
// only StdErr is).
func (d Diff) Ratio() float64 {
	if d.StdErr == 0 {
		switch {
		case d.Mean > 0:
			return math.Inf(1)
		case d.Mean < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return d.Mean / d.StdErr
}

// SignFlipP is the two-sided p-value of a − b by a paired randomization
// test (Fisher's; Smucker, Allan and Carterette 2007 recommend it for
// comparing retrieval systems over topics): under the hypothesis that the
// two systems do not differ, each unit's difference is as likely to have
// either sign, so the observed |mean difference| is set among those of
// rounds random sign assignments. The p-value counts the observed one
// among them ((more extreme + 1) / (rounds + 1)), so it is never 0. Units
// must be independent of each other (topics are; a replay's weeks, which
// carry the same pages over, are not).
func SignFlipP(a, b []float64, rounds int, rng *rand.Rand) float64 {
	diffs := differences(a, b)
	observed := 0.0
	for _, x := range diffs {
		observed += x
	}
	observed = math.Abs(observed)
	// Sums are compared, not means: the same order for the same n. The
	// slack keeps an assignment equal to the observed one, up to the
	// rounding of a different order of additions, counted as extreme.
	threshold := observed * (1 - 1e-12)
	extreme := 0
	for range rounds {
		s := 0.0
		for _, x := range diffs {
			if rng.IntN(2) == 0 {
				s += x
			} else {
				s -= x
			}
		}
		if math.Abs(s) >= threshold {
			extreme++
		}
	}
	return float64(extreme+1) / float64(rounds+1)
}
