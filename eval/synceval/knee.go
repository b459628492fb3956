package synceval

import (
	"cmp"
	"math"
	"slices"
)

// knee finds the relevance cutoff of §4.7 ("a knee in the distribution
// that we felt would serve as a natural cutoff point for query
// relevance") in a set of positive summed scores, and returns the
// threshold: queries scoring at least it are kept.
//
// The rule: sort the scores in descending order, s_1 ≥ … ≥ s_n; draw them
// as the curve (x_i, y_i) with x_i = (i−1)/(n−1) and y_i = (ln s_i −
// ln s_n)/(ln s_1 − ln s_n), both in [0, 1] (the score axis log-scaled, as
// summed scores span orders of magnitude); the knee is the point farthest
// from the chord joining the first point to the last, |x_i + y_i − 1|/√2,
// the first one on ties. With fewer than three scores, or all equal, every
// score is kept (the threshold is the smallest).
func knee(scores []float64) (threshold float64, rank int) {
	s := slices.Clone(scores)
	sortDescending(s)
	n := len(s)
	if n == 0 {
		return 0, 0
	}
	if n < 3 || s[0] == s[n-1] {
		return s[n-1], n
	}
	top, bottom := math.Log(s[0]), math.Log(s[n-1])
	best, at := -1.0, 0
	for i, v := range s {
		x := float64(i) / float64(n-1)
		y := (math.Log(v) - bottom) / (top - bottom)
		if d := math.Abs(x+y-1) / math.Sqrt2; d > best {
			best, at = d, i
		}
	}
	return s[at], at + 1
}

// sortDescending sorts scores from the highest down (report.go's plots
// and the ideal answers rank them so).
func sortDescending(s []float64) {
	slices.SortFunc(s, func(a, b float64) int { return cmp.Compare(b, a) })
}

// topDescending returns the k highest of s (all of them if k >= len(s))
// from the highest down, reordering s: a selection, then a sort of the k
// alone, which is what the ideal answer cut to a user's depth needs of
// answers thousands of pages long.
func topDescending(s []float64, k int) []float64 {
	if k < len(s) {
		selectFirst(s, k, func(a, b float64) int { return cmp.Compare(b, a) })
		s = s[:k]
	}
	sortDescending(s)
	return s
}

// selectFirst reorders s so that s[:k] hold its first k elements in the
// order of compare, in no order among themselves (Hoare's selection,
// pivot the middle element; 0 < k < len(s)).
func selectFirst[T any](s []T, k int, compare func(a, b T) int) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		pivot := s[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for compare(s[i], pivot) < 0 {
				i++
			}
			for compare(s[j], pivot) > 0 {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}
