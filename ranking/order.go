package ranking

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"time"
)

// Candidate is one relevant page as the retriever returns it.
type Candidate struct {
	URL   string
	Title string
	// Relevance is the index's score for the query; only its ratio to the
	// best candidate's score matters.
	Relevance float64
	FetchedAt time.Time
	// Space, when not 0, numbers the page within a key space: the same
	// Key in the same Space is the same page for as long as the Searcher
	// runs (one index's snapshot and the page's document number there).
	// The searcher then keeps where the page's statistics are by number,
	// instead of finding them by URL on every query.
	Space uint64
	Key   uint32
}

// Scored is a candidate with its popularity statistics.
type Scored struct {
	Candidate
	Stats PageStats
	// Popularity is P(p,t) from the configured source (PopularityOf).
	Popularity float64
}

// PopularityOf returns the popularity of a page under source: its
// PageRank, its in-link count or its click count (thesis §5.3 lists these
// as the link-, and click-based metrics search engines use).
func PopularityOf(st PageStats, source string) float64 {
	switch source {
	case SourceInLinks:
		return float64(st.InLinks)
	case SourceClicks:
		return float64(st.Clicks)
	default:
		return st.PageRank
	}
}

// Order sorts items into the deterministic order L_d.
//
// OrderPopularity is the thesis's order: the relevant pages by popularity
// alone (§5.4: search engines rank results by popularity as a surrogate for
// quality), ties by relevance, then by URL so equal inputs give equal
// output.
//
// OrderBlend sorts by Blend's score, ties likewise. The thesis's model has
// every candidate equally relevant (§5.1.2: a query returns its community's
// pages), which a keyword index does not give; ordering real candidates by
// popularity alone puts a popular page that merely mentions a query word
// above the page that is about it.
func Order(items []Scored, order string, weight float64) {
	orderScored(items, order, weight, nil, nil)
}

// orderScored is Order with lnOnePlus(n) for n ≥ len(items), nil to
// compute it, in sc's buffers (nil: fresh ones).
func orderScored(items []Scored, order string, weight float64, logs []float64, sc *orderScratch) {
	if order == OrderPopularity {
		slices.SortStableFunc(items, func(a, b Scored) int {
			if c := cmp.Compare(b.Popularity, a.Popularity); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Relevance, a.Relevance); c != 0 {
				return c
			}
			return cmp.Compare(a.URL, b.URL)
		})
		return
	}
	if sc == nil {
		sc = new(orderScratch)
	}
	keys := blendKeys(items, weight, logs, sc)
	slices.SortFunc(keys, compareKeys(items))
	// Position k takes the item at keys[k].i: follow each cycle once.
	for start := range keys {
		if keys[start].i < 0 {
			continue
		}
		tmp, k := items[start], start
		for {
			src := keys[k].i
			keys[k].i = -1
			if src == start {
				items[k] = tmp
				break
			}
			items[k], k = items[src], src
		}
	}
}

// orderKey is what the blend order compares of the item at position i.
type orderKey struct {
	score, rel, pop float64
	i               int
}

// blendKeys returns the blend order's keys of items, in sc's buffers:
// the keys are sorted beside the items, which are then permuted in place,
// so comparisons read a compact array and no second list is made.
func blendKeys(items []Scored, weight float64, logs []float64, sc *orderScratch) []orderKey {
	sc.score = blendInto(items, weight, logs, sized(sc.score, len(items)), &sc.pops)
	keys := sized(sc.keys, len(items))
	sc.keys = keys
	for i, it := range items {
		keys[i] = orderKey{sc.score[i], it.Relevance, it.Popularity, i}
	}
	return keys
}

// compareKeys is the blend order of items' keys: score, relevance and
// popularity descending, then URL; the original position breaks the last
// ties, so an unstable sort, which compares fewer times, gives the stable
// order.
func compareKeys(items []Scored) func(a, b orderKey) int {
	return func(a, b orderKey) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.rel, a.rel); c != 0 {
			return c
		}
		if c := cmp.Compare(b.pop, a.pop); c != 0 {
			return c
		}
		if c := cmp.Compare(items[a.i].URL, items[b.i].URL); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	}
}

// sortFirst sorts the first m of keys (0 < m ≤ len(keys)) and leaves the
// others after them in no particular order: the first m are kept sorted
// while each later key that beats the m-th takes its place, moving up by
// insertion; the one it displaces goes where it was. A few hundred keys
// compare about as many times, where sorting them all compares several
// times as many.
func sortFirst(keys []orderKey, m int, compare func(a, b orderKey) int) {
	slices.SortFunc(keys[:m], compare)
	for j := m; j < len(keys); j++ {
		if compare(keys[j], keys[m-1]) >= 0 {
			continue
		}
		keys[j], keys[m-1] = keys[m-1], keys[j]
		for i := m - 1; i > 0 && compare(keys[i], keys[i-1]) < 0; i-- {
			keys[i], keys[i-1] = keys[i-1], keys[i]
		}
	}
}

// selectKey moves to keys[k] the key a sort of keys would put there, the
// keys before it all lower and those after all higher under compare (a
// total order): quickselect, about three comparisons per key where a sort
// makes log2(len(keys)).
func selectKey(keys []orderKey, k int, compare func(a, b orderKey) int) {
	lo, hi := 0, len(keys)-1
	for lo < hi {
		// The median of the first, middle and last keys, moved last, is
		// the pivot.
		mid := lo + (hi-lo)/2
		if compare(keys[mid], keys[lo]) < 0 {
			keys[mid], keys[lo] = keys[lo], keys[mid]
		}
		if compare(keys[hi], keys[lo]) < 0 {
			keys[hi], keys[lo] = keys[lo], keys[hi]
		}
		if compare(keys[mid], keys[hi]) < 0 {
			keys[mid], keys[hi] = keys[hi], keys[mid]
		}
		pivot, i := keys[hi], lo
		for j := lo; j < hi; j++ {
			if compare(keys[j], pivot) < 0 {
				keys[i], keys[j] = keys[j], keys[i]
				i++
			}
		}
		keys[i], keys[hi] = keys[hi], keys[i]
		switch {
		case k == i:
			return
		case k < i:
			hi = i - 1
		default:
			lo = i + 1
		}
	}
}

// ascendingBits maps f to an integer whose order is the floats' (−0
// below +0, NaN below all: never more popular than a page).
func ascendingBits(f float64) uint64 {
	if f != f {
		return 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// Blend returns each item's blended score
//
//	s(p) = (1−w)·rel(p)/max rel + w·pop(p),  pop(p) = 1 − ln(1+ρ(p))/ln(1+N)
//
// where w is the weight, N the number of candidates and ρ(p) the number of
// candidates strictly more popular than p; a page of zero popularity gets
// pop(p) = 0. Both terms lie in [0, 1].
//
// Why this form: relevance scores are unbounded and query-dependent, so
// they are divided by the query's best. Popularity enters by rank, not by
// value, because the sources differ in scale (PageRank sums to 1, in-link
// and click counts are unbounded) and are heavy-tailed, so raw values would
// let the single most popular page swamp every relevance difference. The
// logarithm mirrors how attention falls with rank (visits ∝ rank^(−3/2),
// §5.6.3): a step near the top of the popularity order matters more than
// the same step far down.
func Blend(items []Scored, weight float64) []float64 {
	return blend(items, weight, nil)
}

// lnOnePlus returns ln(1+k) for k = 0..n.
func lnOnePlus(n int) []float64 {
	logs := make([]float64, n+1)
	for k := range logs {
		logs[k] = math.Log(1 + float64(k))
	}
	return logs
}

// blend is Blend with lnOnePlus(n) for n ≥ len(items), nil to compute it.
func blend(items []Scored, weight float64, logs []float64) []float64 {
	var pops []uint64
	return blendInto(items, weight, logs, make([]float64, len(items)), &pops)
}

// blendInto is blend writing the scores into score (of len(items)), with
// *pops as the buffer of the sorted popularities.
func blendInto(items []Scored, weight float64, logs []float64, score []float64, pops *[]uint64) []float64 {
	n := len(items)
	if n == 0 {
		return score
	}
	if len(logs) <= n {
		logs = lnOnePlus(n)
	}
	denom := logs[n]
	maxRel := 0.0
	for _, it := range items {
		maxRel = max(maxRel, it.Relevance)
	}
	// ρ(p) from one sort of the popularities, as integers of the same
	// order whose lowest bits are replaced by the item's index, so the
	// sort (without a comparison function) also says where each item
	// went. Read from the top, a run of equal high bits is a run of equal
	// popularities, unless the lost bits tell them apart (rare: a few
	// units in the last place), when the run is ordered by them.
	idxBits := bits.Len(uint(n - 1))
	low := uint64(1)<<idxBits - 1
	sorted := sized(*pops, n)
	*pops = sorted
	for i := range items {
		sorted[i] = ascendingBits(items[i].Popularity)&^low | uint64(i)
	}
	slices.Sort(sorted)
	full := func(e uint64) uint64 { return ascendingBits(items[e&low].Popularity) }
	set := func(i, rho int) { // rho: the candidates strictly more popular than item i
		it := &items[i]
		pop := 0.0
		if it.Popularity > 0 {
			pop = 1 - logs[rho]/denom
		}
		rel := 0.0
		if maxRel > 0 && it.Relevance > 0 {
			rel = it.Relevance / maxRel
		}
		score[i] = (1-weight)*rel + weight*pop
	}
	for hi := n; hi > 0; {
		lo := hi - 1
		for lo > 0 && (sorted[lo-1]^sorted[hi-1])&^low == 0 {
			lo--
		}
		run, above := sorted[lo:hi], n-hi // every candidate above the run is more popular
		same := true
		for _, e := range run[1:] {
			if full(e) != full(run[0]) {
				same = false
				slices.SortFunc(run, func(a, b uint64) int { return cmp.Compare(full(b), full(a)) })
				break
			}
		}
		first := 0 // the run's first position holding run[k]'s popularity
		for k, e := range run {
			if !same && k > 0 && full(e) != full(run[k-1]) {
				first = k
			}
			set(int(e&low), above+first)
		}
		hi = lo
	}
	return score
}

// sized returns buf's storage, grown if need be, at length n; what it
// holds is unspecified. The search's pooled scratch reuses its buffers so.
func sized[T any](buf []T, n int) []T { return slices.Grow(buf[:0], n)[:n] }
