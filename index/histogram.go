package index

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	bindex "github.com/blevesearch/bleve_index_api"
)

// Histogram is H_q of §4.6.1: the average score of the result list of the
// single-term query q over rank ranges that grow exponentially — bucket i
// holds ranks 2^i … 2^(i+1)−1 (1, 2–3, 4–7, …), and the last bucket extends
// to the end of the list — plus the list's length n and its lowest score.
//
// Within the list scores are modelled as evenly spaced inside each bucket
// (§4.6.1): Ŝ is the piecewise-linear curve through the points (center of
// bucket i, average of bucket i) and (n, lowest score), so rank 1 maps to
// the top score exactly. R̂ inverts it. On a list whose scores fall
// linearly with rank both are exact.
//
// A Histogram is a read-only view; the zero value is an empty list.
type Histogram struct {
	n   int
	min float64
	avg []float64 // non-empty buckets only
}

// NewHistogram builds a histogram with at most buckets buckets from scores
// sorted in decreasing order (a result list).
func NewHistogram(scores []float64, buckets int) Histogram {
	n := len(scores)
	if n == 0 || buckets < 1 {
		return Histogram{}
	}
	k := min(buckets, bits.Len(uint(n)))
	h := Histogram{n: n, min: scores[n-1], avg: make([]float64, k)}
	for i := range k {
		lo, hi := bucketRange(i, k, n)
		var sum float64
		for _, s := range scores[lo-1 : hi] {
			sum += s
		}
		h.avg[i] = sum / float64(hi-lo+1)
	}
	return h
}

// bucketRange returns the ranks [lo, hi] of bucket i of k non-empty buckets
// over a list of n results.
func bucketRange(i, k, n int) (lo, hi int) {
	lo = 1 << i
	hi = 1<<(i+1) - 1
	if i == k-1 || hi > n {
		hi = n
	}
	return lo, hi
}

// Len is n, the length of the result list.
func (h Histogram) Len() int { return h.n }

// Buckets returns the average score of each non-empty bucket, best first.
func (h Histogram) Buckets() []float64 { return slices.Clone(h.avg) }

// knot returns the j-th point of the piecewise-linear curve Ŝ: the bucket
// centers, then (n, lowest score) if it lies beyond the last center. The
// first knot is always at rank 1: with two or more buckets the first
// bucket is rank 1 alone; with one bucket the line through its center and
// (n, lowest score) is extended back to rank 1.
func (h Histogram) knot(j int) (x, y float64) {
	k := len(h.avg)
	if k == 1 && h.n > 1 {
		c := float64(1+h.n) / 2
		switch j {
		case 0:
			return 1, h.avg[0] + (h.avg[0]-h.min)*(c-1)/(float64(h.n)-c)
		case 1:
			return c, h.avg[0]
		default:
			return float64(h.n), h.min
		}
	}
	if j < k {
		lo, hi := bucketRange(j, k, h.n)
		return float64(lo+hi) / 2, h.avg[j]
	}
	return float64(h.n), h.min
}

func (h Histogram) knots() int {
	k := len(h.avg)
	switch {
	case k == 0:
		return 0
	case k == 1 && h.n > 1:
		return 3
	}
	if x, _ := h.knot(k - 1); x < float64(h.n) {
		return k + 1
	}
	return k
}

// Score is Ŝ(r, H_q): the estimated score at rank r (r may be fractional).
// Above rank 1 it is the top score; below rank n the lowest.
func (h Histogram) Score(r float64) float64 {
	m := h.knots()
	if m == 0 {
		return 0
	}
	x0, y0 := h.knot(0)
	if r <= x0 {
		return y0
	}
	for j := 1; j < m; j++ {
		x1, y1 := h.knot(j)
		if r <= x1 {
			return y0 + (y1-y0)*(r-x0)/(x1-x0)
		}
		x0, y0 = x1, y1
	}
	return y0
}

// rankEpsilon absorbs rounding when a score maps back onto an integer rank.
const rankEpsilon = 1e-9

// Rank is R̂(s, H_q): the estimated rank of a page with score s in the list,
// 1 + the estimated number of results scoring more than s. It is 1 for a
// score at or above the top and n+1 for a score below the lowest; for a
// score between two ranks it is the lower-numbered rank below it.
func (h Histogram) Rank(s float64) int {
	m := h.knots()
	if m == 0 {
		return 1
	}
	x0, y0 := h.knot(0)
	if s >= y0 {
		return 1
	}
	for j := 1; j < m; j++ {
		x1, y1 := h.knot(j)
		if s >= y1 {
			// y0 > s >= y1: the curve crosses s on this segment.
			x := x0 + (y0-s)/(y0-y1)*(x1-x0)
			return int(math.Ceil(x - rankEpsilon))
		}
		x0, y0 = x1, y1
	}
	return h.n + 1
}

// histogramSet holds H_q for every term of Q′ that has results, in one
// arena: per term n, the lowest score and the bucket averages, stride
// buckets+2 float64s. Memory: 8·(buckets+2) bytes per term plus the map
// entry (about 50 bytes and the term's bytes); with 8 buckets about 130
// bytes per term, so 100,000 terms take about 13 MB.
type histogramSet struct {
	buckets  int
	workload uint64 // fingerprint of the workload the set was built for
	slot     map[string]int32
	data     []float64
	built    time.Time
	took     time.Duration
}

func (hs *histogramSet) get(term string) Histogram {
	if hs == nil {
		return Histogram{}
	}
	i, ok := hs.slot[term]
	if !ok {
		return Histogram{}
	}
	stride := hs.buckets + 2
	rec := hs.data[int(i)*stride : int(i+1)*stride]
	n := int(rec[0])
	k := min(hs.buckets, bits.Len(uint(n)))
	return Histogram{n: n, min: rec[1], avg: rec[2 : 2+k : 2+k]}
}

// bytes is the memory the set holds, approximately.
func (hs *histogramSet) bytes() int {
	if hs == nil {
		return 0
	}
	b := 8 * len(hs.data)
	for t := range hs.slot {
		b += len(t) + 48
	}
	return b
}

// buildHistograms computes H_q for every term of the workload from the
// term's postings on reader r (termScores).
// It also returns every workload term's document frequency on r.
func buildHistograms(ctx context.Context, r bindex.IndexReader, st CorpusStats, w *Workload, buckets int) (*histogramSet, docFreqs, error) {
	df := docFreqs{workload: w.Fingerprint(), df: make([]int64, w.Len())}
	hs := &histogramSet{buckets: buckets, workload: w.Fingerprint(), slot: map[string]int32{}}
	stride := buckets + 2
	var scores []float64
	var err error
	for i, term := range w.terms {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, df, err
			}
		}
		if scores, err = termScores(ctx, r, st, term, scores[:0]); err != nil {
			return nil, df, err
		}
		df.df[i] = int64(len(scores))
		if len(scores) == 0 {
			continue
		}
		h := NewHistogram(scores, buckets)
		hs.slot[term] = int32(len(hs.data) / stride)
		hs.data = append(hs.data, float64(h.n), h.min)
		hs.data = append(hs.data, h.avg...)
		for range buckets - len(h.avg) {
			hs.data = append(hs.data, 0)
		}
	}
	hs.data = slices.Clip(hs.data)
	return hs, df, nil
}

// termScores appends to dst the scores of every document containing term,
// computed by the scorer from the term's postings (freq, norm) under the
// statistics st, and sorts them in decreasing order: the scores of Bleve's
// result list for the term query on FieldText.
func termScores(ctx context.Context, r bindex.IndexReader, st CorpusStats, term string, dst []float64) ([]float64, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), FieldText, true, true, false)
	if err != nil {
		return dst, fmt.Errorf("index: postings of %q: %w", term, err)
	}
	df := tfr.Count()
	var tfd bindex.TermFieldDoc
	for {
		p, err := tfr.Next(tfd.Reset())
		if err != nil {
			tfr.Close()
			return dst, fmt.Errorf("index: postings of %q: %w", term, err)
		}
		if p == nil {
			break
		}
		dst = append(dst, scoreWithNorm(p.Freq, p.Norm, st, df))
	}
	if err := tfr.Close(); err != nil {
		return dst, fmt.Errorf("index: postings of %q: %w", term, err)
	}
	slices.Sort(dst)
	slices.Reverse(dst)
	return dst, nil
}
