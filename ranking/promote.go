package ranking

import (
	"crypto/hmac"
	"crypto/sha256"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Slot is one entry of the merged result list L.
type Slot struct {
	// Index is the entry's position in the deterministic order L_d.
	Index int
	// Promoted says the entry was taken from the shuffled pool L_p.
	Promoted bool
}

// PoolFor decides the promotion pool P_p (§5.5) for the candidates in
// deterministic order: under RuleSelective the candidates with zero
// awareness (no monitored user has clicked them); under RuleUniform each
// candidate independently with probability r, drawn from rng in order;
// under RuleNone nothing.
func PoolFor(items []Scored, rule string, r float64, rng *rand.Rand) []bool {
	return poolInto(items, rule, r, rng, make([]bool, len(items)))
}

// poolInto is PoolFor writing into pool (of len(items)).
func poolInto(items []Scored, rule string, r float64, rng *rand.Rand, pool []bool) []bool {
	switch rule {
	case RuleSelective:
		for i, it := range items {
			pool[i] = it.Stats.Aware == 0
		}
	case RuleUniform:
		for i := range items {
			pool[i] = rng.Float64() < r
		}
	default:
		clear(pool)
	}
	return pool
}

// Promote merges the deterministic order L_d (entries 0..len(inPool)−1)
// with the shuffled promotion pool L_p following thesis §5.5:
//
//  1. The pool members (inPool[i]) are shuffled with rng into L_p by
//     Fisher–Yates from the front, each entry drawn when a position first
//     takes it: a list of m positions draws only the entries it shows.
//  2. The top k−1 entries of L_d are placed first, in order: they are
//     protected from promotion.
//  3. Each further position takes, with probability r (a coin from rng),
//     the next entry of L_p not yet placed, and otherwise the next entry of
//     L_d not yet placed. Once every pool entry is placed, the rest come
//     from L_d without a coin.
//
// Every entry appears exactly once; entries taken from L_p are marked
// Promoted.
//
// §5.5 removes the pool from L_d; here pool entries keep their place in L_d
// and are placed by whichever list reaches them first. When the pool sits
// at the bottom of L_d, as in the thesis's model where zero awareness means
// zero popularity, the two procedures are the same, coin for coin, up to
// the position where the last non-pool entry is placed; after it §5.5 lists
// the remaining pool entries in shuffled order, while here the coin keeps
// choosing between the shuffle and their deterministic order. They differ
// more when popularity and awareness are measured differently (PageRank
// from links, awareness from monitored clicks), and above all on a cold
// start when nothing has been clicked yet: §5.5 would then shuffle the
// whole list, while here a share 1−r of the positions still follows L_d
// and the top k−1 stay in place (the "feeling lucky" property §5.5 wants
// from k = 2). With r = 0 the result is L_d itself.
func Promote(inPool []bool, k int, r float64, rng *rand.Rand) []Slot {
	return PromoteFirst(inPool, k, r, rng, len(inPool))
}

// PromoteFirst returns the first m entries of Promote's list (m ≤
// len(inPool)), drawing from rng only what they need: the shuffle, and
// the coins of the first m positions.
func PromoteFirst(inPool []bool, k int, r float64, rng *rand.Rand, m int) []Slot {
	return promoteFirst(inPool, k, r, rng, m, new(promoteScratch))
}

// promoteScratch holds promoteFirst's buffers, reused between calls.
type promoteScratch struct {
	src    rand.ChaCha8 // the promotion's random source
	rng    *rand.Rand   // reading src
	pool   []bool       // PoolFor's answer
	lp     []int
	placed []bool
	out    []Slot
	msg    []byte // the seed's message
}

// promoteFirst is PromoteFirst in sc's buffers: the list returned is
// sc.out, valid until the next call.
func promoteFirst(inPool []bool, k int, r float64, rng *rand.Rand, m int, sc *promoteScratch) []Slot {
	n := len(inPool)
	lp := sc.lp[:0]
	for i, p := range inPool {
		if p {
			lp = append(lp, i)
		}
	}
	sc.lp = lp
	poolLeft := len(lp)

	out := slices.Grow(sc.out[:0], m)
	placed := sized(sc.placed, n)
	clear(placed)
	d, p := 0, 0 // cursors into L_d and L_p: lp[:p] is L_p's head, drawn
	place := func(i int, promoted bool) {
		placed[i] = true
		if inPool[i] {
			poolLeft--
		}
		out = append(out, Slot{Index: i, Promoted: promoted})
	}
	for len(out) < k-1 && len(out) < m {
		place(len(out), false) // nothing is placed yet, so L_d's next is its k-th
	}
	d = len(out)
	for len(out) < m {
		if poolLeft > 0 && rng.Float64() < r {
			for { // L_p's next entry, skipping those L_d placed
				j := p + rng.IntN(len(lp)-p)
				lp[p], lp[j] = lp[j], lp[p]
				if p++; !placed[lp[p-1]] {
					break
				}
			}
			place(lp[p-1], true)
			continue
		}
		for placed[d] {
			d++
		}
		place(d, false)
	}
	sc.out, sc.placed = out, placed
	return out
}

// NormalizeQuery folds a query to the form its promotion seed is derived
// from: Unicode NFKC, lower case, runs of white space collapsed to one
// space, no leading or trailing space. "Go  Pebble" and "go pebble" share
// a seed.
func NormalizeQuery(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(norm.NFKC.String(q))), " ")
}

// PromotionSeed derives the seed of one user's promotion shuffle for one
// query: HMAC-SHA256 keyed by the server secret over the user id and the
// normalized query. The same user asking the same query gets the same
// merged list, so pages 1, 2, 3 of the results are slices of one list; the
// secret keeps users from predicting or steering their shuffle.
func PromotionSeed(secret []byte, user, query string) [32]byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write(promotionMessage(user, query))
	var seed [32]byte
	mac.Sum(seed[:0])
	return seed
}

// promotionMessage is what PromotionSeed authenticates.
func promotionMessage(user, query string) []byte {
	return appendPromotionMessage(nil, user, query)
}

// appendPromotionMessage appends promotionMessage(user, query) to b.
func appendPromotionMessage(b []byte, user, query string) []byte {
	var buf [128]byte
	q := appendNormalizedQuery(buf[:0], query)
	b = appendField(b, "promote")
	b = appendField(b, user)
	return appendField(b, q)
}

// appendNormalizedQuery appends NormalizeQuery(q) to b; an ASCII query,
// which NFKC leaves as it is, is folded in one pass without the copies
// NormalizeQuery makes.
func appendNormalizedQuery(b []byte, q string) []byte {
	for i := 0; i < len(q); i++ {
		if q[i] >= utf8.RuneSelf {
			return append(b, NormalizeQuery(q)...)
		}
	}
	start, space := len(b), false // space: one is owed before the next word
	for i := 0; i < len(q); i++ {
		c := q[i]
		if asciiSpace[c] {
			space = len(b) > start
			continue
		}
		if space {
			b, space = append(b, ' '), false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// asciiSpace marks the ASCII bytes unicode.IsSpace (and so strings.Fields)
// takes for white space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// PromotionRand returns the random source of one user's promotion for one
// query, seeded by PromotionSeed.
func PromotionRand(secret []byte, user, query string) *rand.Rand {
	return rand.New(rand.NewChaCha8(PromotionSeed(secret, user, query)))
}
