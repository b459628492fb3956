package shingle

// Difference estimates the fraction of shingles that differ between the
// texts of a and b, 1 − |A ∩ B| / |A ∪ B|, in [0, 1]. Identical texts give
// 0 and texts without a shared shingle give 1. The estimate is exact when
// both texts have at most K shingles. Two texts without words differ by 0;
// a text without words and one with words differ by 1, as do signatures of
// different Width (unless their texts are identical).
func Difference(a, b Signature) float64 {
	if a.Exact == b.Exact {
		return 0
	}
	switch {
	case a.Count == 0 && b.Count == 0:
		return 0
	case a.Count == 0 || b.Count == 0, a.Width != b.Width:
		return 1
	}
	k := max(min(a.K, b.K), 1)
	sa := a.Sketch[:min(len(a.Sketch), k)]
	sb := b.Sketch[:min(len(b.Sketch), k)]
	if a.Count <= len(sa) && b.Count <= len(sb) {
		k = len(sa) + len(sb) // both sketches are the whole sets: exact
	}
	// Walk the k smallest hashes of A ∪ B, counting those in both.
	var i, j, union, both int
	for union < k && (i < len(sa) || j < len(sb)) {
		switch {
		case j == len(sb) || i < len(sa) && sa[i] < sb[j]:
			i++
		case i == len(sa) || sb[j] < sa[i]:
			j++
		default:
			i++
			j++
			both++
		}
		union++
	}
	if union == 0 {
		return 1
	}
	return 1 - float64(both)/float64(union)
}
