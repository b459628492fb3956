package synthweb

import (
	"math"
	"math/rand/v2"
)

// Stream tags keep the random streams of different purposes apart, so adding
// a draw to one never shifts another (and never changes old pages).
const (
	tagSite uint64 = iota + 1
	tagArrivals
	tagArticle
	tagEvents
	tagParagraph
	tagExtras
	tagTopics
	tagQueries
	tagTrap
)

// splitmix is the SplitMix64 finalizer, a cheap bijective mixer.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// mix hashes a seed and a path of integers (stream tag, site, bucket, …)
// into one key.
func mix(seed uint64, parts ...uint64) uint64 {
	h := splitmix(seed)
	for _, p := range parts {
		h = splitmix(h ^ p)
	}
	return h
}

// newRand returns the generator for one (seed, parts…) stream. Every random
// fact of the web comes from such a stream, which is what makes the content
// at time t computable without replaying history.
func newRand(seed uint64, parts ...uint64) *rand.Rand {
	h := mix(seed, parts...)
	return rand.New(rand.NewPCG(h, splitmix(h^0x5851f42d4c957f2d)))
}

// poisson draws a Poisson(mean) count (Knuth's product method, fine for the
// small means used here) capped at limit.
func poisson(r *rand.Rand, mean float64, limit int) int {
	l := math.Exp(-mean)
	n, p := 0, r.Float64()
	for p > l && n < limit {
		n++
		p *= r.Float64()
	}
	return n
}

// unitOpen draws from (0, 1].
func unitOpen(r *rand.Rand) float64 { return 1 - r.Float64() }
