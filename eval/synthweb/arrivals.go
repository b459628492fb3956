package synthweb

import (
	"math"
	"sort"
)

// Arrivals: the new-page process of one site (§3.2, Y_t).
//
// Model time after Start is cut into buckets of bucketLen model seconds.
// Bucket b ≥ 1 covers [(b-1)·bucketLen, b·bucketLen) and holds a
// Poisson(arrivalsPerBucket) number of arrivals at uniform times, drawn from
// its own stream (seed, site, b). Independent Poisson counts on disjoint
// intervals with uniform positions are exactly a homogeneous Poisson
// process, and any bucket can be generated without the ones before it.
// Bucket 0 is the site's initial articles: PagesPerSite of them published
// NewArticleInterval apart before Start.
const (
	arrivalsPerBucket = 2.0
	maxPerBucket      = 256 // P(Poisson(2) > 256) is far below 1e-300
)

// articleID names an article: bucket 0 are the initial ones.
type articleID struct {
	bucket int64
	pos    int
}

// view is one site seen at model time m. It memoizes buckets and articles
// for the life of one request or one ground-truth call, so its memory is
// bounded by what that call touches and freed with it.
type view struct {
	w    *Web
	s    *site
	m    float64
	port string // ":8080" when the request named a port, for absolute links

	buckets map[int64][]float64
	arts    map[articleID]*article
}

func (w *Web) newView(s *site, m float64, port string) *view {
	return &view{
		w: w, s: s, m: m, port: port,
		buckets: make(map[int64][]float64),
		arts:    make(map[articleID]*article),
	}
}

// bucketOf returns the bucket holding model time m (0 before Start).
func (v *view) bucketOf(m float64) int64 {
	if m < 0 {
		return 0
	}
	return int64(m/v.w.bucketLen) + 1
}

// bucketStart is the model time where bucket b ≥ 1 begins.
func (v *view) bucketStart(b int64) float64 { return float64(b-1) * v.w.bucketLen }

// bucket returns the sorted arrival times of bucket b ≥ 1.
func (v *view) bucket(b int64) []float64 {
	if t, ok := v.buckets[b]; ok {
		return t
	}
	r := newRand(uint64(v.w.opts.Seed), tagArrivals, uint64(v.s.index), uint64(b))
	n := poisson(r, arrivalsPerBucket, maxPerBucket)
	t := make([]float64, n)
	start := v.bucketStart(b)
	for i := range t {
		t[i] = start + r.Float64()*v.w.bucketLen
	}
	sort.Float64s(t)
	v.buckets[b] = t
	return t
}

// arrival returns the publication time of id, and false if id names no
// article (its bucket has fewer arrivals).
func (v *view) arrival(id articleID) (float64, bool) {
	if id.pos < 0 || id.bucket < 0 {
		return 0, false
	}
	if id.bucket == 0 {
		p := v.w.opts.PagesPerSite
		if id.pos >= p {
			return 0, false
		}
		return -float64(p-id.pos) * v.w.arrivalGap, true
	}
	t := v.bucket(id.bucket)
	if id.pos >= len(t) {
		return 0, false
	}
	return t[id.pos], true
}

// eachDesc calls fn for every article published at or before v.m, newest
// first, until fn returns false.
func (v *view) eachDesc(fn func(id articleID) bool) {
	for b := v.bucketOf(v.m); b >= 1; b-- {
		t := v.bucket(b)
		for j := len(t) - 1; j >= 0; j-- {
			if t[j] > v.m {
				continue
			}
			if !fn(articleID{b, j}) {
				return
			}
		}
	}
	for pos := v.w.opts.PagesPerSite - 1; pos >= 0; pos-- {
		if at, _ := v.arrival(articleID{0, pos}); at > v.m {
			continue
		}
		if !fn(articleID{0, pos}) {
			return
		}
	}
}

// latestArrival is the newest publication time ≤ v.m. Every change of a
// listing (a new article, a deletion) happens at an arrival, so this is a
// listing page's Last-Modified.
func (v *view) latestArrival() float64 {
	latest := math.Inf(-1)
	v.eachDesc(func(id articleID) bool {
		latest, _ = v.arrival(id)
		return false
	})
	if math.IsInf(latest, -1) {
		return v.w.epoch
	}
	return latest
}

// next returns the arrival right after id, if it happened by limit.
func (v *view) next(id articleID, limit float64) (articleID, bool) {
	b, pos := id.bucket, id.pos+1
	if b == 0 {
		if pos < v.w.opts.PagesPerSite {
			at, _ := v.arrival(articleID{0, pos})
			return articleID{0, pos}, at <= limit
		}
		b, pos = 1, 0
	}
	for ; v.bucketStart(b) <= limit; b, pos = b+1, 0 {
		t := v.bucket(b)
		if pos < len(t) {
			return articleID{b, pos}, t[pos] <= limit
		}
	}
	return articleID{}, false
}

// prevNew returns the arrival right before id when both are after Start.
func (v *view) prevNew(id articleID) (articleID, bool) {
	if id.bucket < 1 {
		return articleID{}, false
	}
	if id.pos > 0 {
		return articleID{id.bucket, id.pos - 1}, true
	}
	for b := id.bucket - 1; b >= 1; b-- {
		if n := len(v.bucket(b)); n > 0 {
			return articleID{b, n - 1}, true
		}
	}
	return articleID{}, false
}

// firstArrivalFrom returns the first arrival in bucket ≥ b0 at or before
// limit. Deletions happen at such instants (see article.go).
func (v *view) firstArrivalFrom(b0 int64, limit float64) (float64, bool) {
	for b := max(b0, 1); v.bucketStart(b) <= limit; b++ {
		if t := v.bucket(b); len(t) > 0 {
			return t[0], t[0] <= limit
		}
	}
	return 0, false
}
