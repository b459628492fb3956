package index

import (
	"math"
	"slices"
	"testing"
)

func TestHistogramBuckets(t *testing.T) {
	cases := []struct {
		name    string
		scores  []float64
		buckets int
		want    []float64
	}{
		{"ranks 1, 2–3, 4–7 and the rest", []float64{9, 8, 6, 5, 4, 3, 2, 1, 1, 0.5}, 4,
			[]float64{9, 7, 3.5, (1 + 1 + 0.5) / 3}},
		{"the last bucket extends to the end of the list", []float64{9, 8, 6, 5, 4, 3, 2, 1, 1, 0.5}, 3,
			[]float64{9, 7, (5 + 4 + 3 + 2 + 1 + 1 + 0.5) / 7}},
		{"a short list fills fewer buckets", []float64{4, 2, 1}, 8, []float64{4, 1.5}},
		{"one bucket averages everything", []float64{4, 2, 1}, 1, []float64{7.0 / 3}},
		{"an empty list has none", nil, 3, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistogram(tc.scores, tc.buckets)
			if got := h.Buckets(); !slices.Equal(got, tc.want) {
				t.Fatalf("buckets = %v, want %v", got, tc.want)
			}
			if h.Len() != len(tc.scores) {
				t.Fatalf("len = %d", h.Len())
			}
		})
	}
}

// On a list whose scores fall linearly with rank, the even-spacing model
// of §4.6.1 is exact: Ŝ(r) is the score at r and R̂ gives back r.
func TestHistogramIsExactOnLinearScores(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 8, 100, 1000, 4097} {
		for _, buckets := range []int{1, 2, 3, 8, 20} {
			scores := make([]float64, n)
			for r := 1; r <= n; r++ {
				scores[r-1] = 50 - 0.01*float64(r)
			}
			h := NewHistogram(scores, buckets)
			for r := 1; r <= n; r++ {
				if s := h.Score(float64(r)); !approx(s, scores[r-1], 1e-9) {
					t.Fatalf("n=%d buckets=%d: Ŝ(%d) = %g, want %g", n, buckets, r, s, scores[r-1])
				}
				if got := h.Rank(scores[r-1]); got != r {
					t.Fatalf("n=%d buckets=%d: R̂(score of rank %d) = %d", n, buckets, r, got)
				}
			}
		}
	}
}

func TestHistogramRankAtTheEdges(t *testing.T) {
	h := NewHistogram([]float64{10, 8, 6, 5, 4, 3, 2}, 3)
	cases := []struct {
		name string
		s    float64
		want int
	}{
		{"a score above the top ranks first", 11, 1},
		{"the top score ranks first", 10, 1},
		{"a score between ranks 1 and 2 ranks second", 9, 2},
		{"the lowest score ranks last", 2, 7},
		{"a score below the lowest ranks after the list", 1, 8},
		{"zero ranks after the list", 0, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.Rank(tc.s); got != tc.want {
				t.Fatalf("R̂(%g) = %d, want %d", tc.s, got, tc.want)
			}
		})
	}
	var empty Histogram
	if empty.Rank(3) != 1 || empty.Score(1) != 0 {
		t.Fatal("an empty list: R̂ must be 1 and Ŝ 0")
	}
}

// On a skewed real-looking list (BM25-like, a few high scores and a long
// flat tail) R̂ stays within the rank range of the bucket holding the exact
// rank, or its neighbours.
func TestHistogramRankAgainstExactRanksOnASkewedList(t *testing.T) {
	n := 3000
	scores := make([]float64, n)
	for r := 1; r <= n; r++ {
		scores[r-1] = 1 + 8/math.Sqrt(float64(r))
	}
	h := NewHistogram(scores, 8)
	for r := 1; r <= n; r++ {
		got := h.Rank(scores[r-1])
		lo := 1 << max(0, bucketOf(r)-1)
		hi := 1<<(bucketOf(r)+2) - 1
		if got < lo || got > max(hi, n+1) {
			t.Fatalf("exact rank %d: R̂ = %d, outside [%d, %d]", r, got, lo, hi)
		}
	}
}

func bucketOf(r int) int {
	b := 0
	for 1<<(b+1) <= r {
		b++
	}
	return b
}
