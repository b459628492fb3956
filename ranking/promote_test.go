package ranking

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"
)

// thesisMerge is §5.5 written out literally: L_d holds only the non-pool
// entries, and once either list is empty the rest come from the other.
// L_p is shuffled as Promote shuffles it, by Fisher–Yates from the front:
// its next entry, when a position takes one, is drawn uniformly from those
// not yet taken.
func thesisMerge(inPool []bool, k int, r float64, rng *rand.Rand) []Slot {
	var ld, lp []int
	for i, p := range inPool {
		if p {
			lp = append(lp, i)
		} else {
			ld = append(ld, i)
		}
	}
	taken := 0 // lp[:taken] is L_p's head, in order
	nextOfLp := func() int {
		j := taken + rng.IntN(len(lp)-taken)
		lp[taken], lp[j] = lp[j], lp[taken]
		taken++
		return lp[taken-1]
	}
	var out []Slot
	for len(out) < k-1 && len(ld) > 0 {
		out, ld = append(out, Slot{Index: ld[0]}), ld[1:]
	}
	for len(ld) > 0 || taken < len(lp) {
		if len(ld) == 0 || (taken < len(lp) && rng.Float64() < r) {
			out = append(out, Slot{Index: nextOfLp(), Promoted: true})
		} else {
			out, ld = append(out, Slot{Index: ld[0]}), ld[1:]
		}
	}
	return out
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// randomPool marks each of n entries as a pool member with probability p.
func randomPool(rng *rand.Rand, n int, p float64) []bool {
	pool := make([]bool, n)
	for i := range pool {
		pool[i] = rng.Float64() < p
	}
	return pool
}

func TestPromoteIsThesisMergeWhenThePoolIsTheBottom(t *testing.T) {
	for seed := range uint64(3000) {
		g := seeded(seed)
		n := g.IntN(60)
		pool := make([]bool, n)
		nonPool := g.IntN(n + 1)
		for i := nonPool; i < n; i++ {
			pool[i] = true
		}
		k := 1 + g.IntN(5)
		r := []float64{0, 0.1, 0.5, 1}[g.IntN(4)]
		got := Promote(pool, k, r, seeded(seed+1e6))
		want := thesisMerge(pool, k, r, seeded(seed+1e6))
		// Identical through the slot of the last non-pool entry; after it
		// both hold the remaining pool entries.
		last := -1
		for i, s := range want {
			if !pool[s.Index] {
				last = i
			}
		}
		if !slices.Equal(got[:last+1], want[:last+1]) {
			t.Fatalf("seed %d (n=%d, non-pool=%d, k=%d, r=%v): prefix differs\n got %v\nwant %v", seed, n, nonPool, k, r, got[:last+1], want[:last+1])
		}
		if !slices.Equal(indexSet(got[last+1:]), indexSet(want[last+1:])) {
			t.Fatalf("seed %d: tails hold different entries", seed)
		}
	}
}

func indexSet(s []Slot) []int {
	var out []int
	for _, x := range s {
		out = append(out, x.Index)
	}
	slices.Sort(out)
	return out
}

func TestPromotePlacesEveryEntryOnceAndProtectsTheTop(t *testing.T) {
	for seed := range uint64(5000) {
		g := seeded(seed)
		n := g.IntN(200)
		pool := randomPool(g, n, g.Float64())
		k := 1 + g.IntN(6)
		r := g.Float64()
		got := Promote(pool, k, r, seeded(seed))
		if len(got) != n {
			t.Fatalf("seed %d: %d slots for %d entries", seed, len(got), n)
		}
		seen := make([]bool, n)
		for i, s := range got {
			if s.Index < 0 || s.Index >= n || seen[s.Index] {
				t.Fatalf("seed %d: entry %d placed twice or out of range", seed, s.Index)
			}
			seen[s.Index] = true
			if s.Promoted && !pool[s.Index] {
				t.Fatalf("seed %d: non-pool entry %d marked promoted", seed, s.Index)
			}
			if i < k-1 && (s.Index != i || s.Promoted) {
				t.Fatalf("seed %d: protected slot %d holds %+v", seed, i, s)
			}
		}
	}
}

func TestPromotedShareOfSlotsIsR(t *testing.T) {
	// 1000 entries, every other one pooled: neither list can run out in the
	// 100 slots after the protected one, so each is a fair coin with
	// probability r. 2000 fixed seeds give 200,000 coins; the bound is
	// 7.5 standard deviations (sd = sqrt(r(1−r)/200000) ≈ 0.00067).
	const (
		n, k, r = 1000, 2, 0.1
		seeds   = 2000
		slots   = 100
	)
	pool := make([]bool, n)
	for i := 1; i < n; i += 2 {
		pool[i] = true
	}
	promoted := 0
	for seed := range uint64(seeds) {
		got := Promote(pool, k, r, seeded(seed))
		for _, s := range got[k-1 : k-1+slots] {
			if s.Promoted {
				promoted++
			}
		}
	}
	if share := float64(promoted) / (seeds * slots); share < r-0.005 || share > r+0.005 {
		t.Fatalf("promoted share %.4f, want %.3f ± 0.005", share, r)
	}
}

// TestPromotedPagesAreUniformOverThePool checks the shuffle: each pool
// entry is as likely as any other to be the first, second or third
// promoted, also when L_d has already placed some of the pool (entries 0
// and 1 are pooled and protected, so the shuffle skips them when drawn).
// With r = 1 every position after the protected ones is promoted while
// the pool lasts. 20,000 fixed seeds; the bound is 5 standard deviations
// of a share of 1/6 (sd ≈ 0.0026).
func TestPromotedPagesAreUniformOverThePool(t *testing.T) {
	const (
		n, k, r = 12, 3, 1
		seeds   = 20000
	)
	pool := make([]bool, n)
	for i := range n {
		pool[i] = i < 2 || i >= 6 // 6..11 may be promoted
	}
	var counts [3][n]int
	for seed := range uint64(seeds) {
		rank := 0
		for _, s := range Promote(pool, k, r, seeded(seed)) {
			if s.Promoted && rank < 3 {
				counts[rank][s.Index]++
				rank++
			}
		}
		if rank < 3 {
			t.Fatalf("seed %d: only %d promoted", seed, rank)
		}
	}
	for rank, c := range counts {
		for i, m := range c {
			share, want := float64(m)/seeds, 0.0
			if i >= 6 {
				want = 1.0 / 6
			}
			if share < want-0.013 || share > want+0.013 {
				t.Errorf("promoted #%d is entry %d in %.4f of the lists, want %.4f", rank+1, i, share, want)
			}
		}
	}
}

func TestPromoteEdgeCases(t *testing.T) {
	identity := func(n int) []Slot {
		out := make([]Slot, n)
		for i := range out {
			out[i] = Slot{Index: i}
		}
		return out
	}
	bottomPool := func(n, pooled int) []bool {
		p := make([]bool, n)
		for i := n - pooled; i < n; i++ {
			p[i] = true
		}
		return p
	}
	t.Run("an empty pool leaves L_d as it is", func(t *testing.T) {
		if got := Promote(make([]bool, 20), 1, 0.5, seeded(1)); !slices.Equal(got, identity(20)) {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("r = 0 leaves L_d as it is", func(t *testing.T) {
		if got := Promote(bottomPool(20, 8), 1, 0, seeded(1)); !slices.Equal(got, identity(20)) {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("r = 1 puts the whole pool right after the protected top", func(t *testing.T) {
		got := Promote(bottomPool(20, 8), 3, 1, seeded(1))
		if !slices.Equal(got[:2], identity(2)) {
			t.Fatalf("protected top changed: %v", got[:2])
		}
		for i, s := range got[2:10] {
			if !s.Promoted || s.Index < 12 {
				t.Fatalf("slot %d = %+v, want a promoted pool entry", i+2, s)
			}
		}
		if !slices.Equal(got[10:], identity(12)[2:]) {
			t.Fatalf("rest of L_d = %v", got[10:])
		}
	})
	t.Run("k = 1 protects nothing", func(t *testing.T) {
		firstPromoted := false
		for seed := range uint64(200) {
			if Promote(bottomPool(10, 5), 1, 0.5, seeded(seed))[0].Promoted {
				firstPromoted = true
			}
		}
		if !firstPromoted {
			t.Fatal("with k = 1 the top slot was never promoted in 200 draws at r = 0.5")
		}
	})
	t.Run("a cold start keeps the top and follows L_d", func(t *testing.T) {
		all := make([]bool, 50)
		for i := range all {
			all[i] = true
		}
		got := Promote(all, 2, 0.1, seeded(7))
		if got[0] != (Slot{Index: 0}) {
			t.Fatalf("top slot %+v, want entry 0 unpromoted", got[0])
		}
		inOrder := 0
		for _, s := range got {
			if !s.Promoted {
				inOrder++
			}
		}
		if inOrder < 30 {
			t.Fatalf("only %d of 50 slots follow L_d at r = 0.1", inOrder)
		}
	})
	t.Run("more protection than entries places them all in order", func(t *testing.T) {
		if got := Promote(bottomPool(3, 2), 10, 1, seeded(1)); !slices.Equal(got, identity(3)) {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("no entries give no slots", func(t *testing.T) {
		if got := Promote(nil, 2, 0.1, seeded(1)); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
}

func TestPromotionSeedIsPerUserAndQuery(t *testing.T) {
	secret := testSecret
	pool := make([]bool, 100)
	for i := 50; i < 100; i++ {
		pool[i] = true
	}
	merge := func(user, query string) []Slot {
		return Promote(pool, 2, 0.3, PromotionRand(secret, user, query))
	}
	a := merge("user-a", "go pebble")
	if !slices.Equal(a, merge("user-a", "go pebble")) {
		t.Fatal("same user and query gave different lists")
	}
	if !slices.Equal(a, merge("user-a", "  Go   PEBBLE ")) {
		t.Fatal("the query is not normalized before seeding")
	}
	if slices.Equal(a, merge("user-b", "go pebble")) {
		t.Fatal("two users got the same shuffle")
	}
	if slices.Equal(a, merge("user-a", "go bleve")) {
		t.Fatal("two queries got the same shuffle")
	}
	if PromotionSeed(secret, "ab", "c") == PromotionSeed(secret, "a", "bc") {
		t.Fatal("field boundaries are not part of the seed")
	}
	if PromotionSeed(secret, "a", "q") == PromotionSeed([]byte("another secret of thirty-two bytes"), "a", "q") {
		t.Fatal("the seed does not depend on the secret")
	}
	// The searcher seeds from its pooled MAC: the same seeds, reused.
	seeds := newKeyedMAC(secret)
	for range 2 {
		for _, uq := range [][2]string{{"user-a", "go pebble"}, {"ab", "c"}, {"anonymous", " Ünïcödé  Query "}} {
			if got, want := seeds.sum(promotionMessage(uq[0], uq[1])), PromotionSeed(secret, uq[0], uq[1]); got != want {
				t.Fatalf("searcher's seed of %q differs from PromotionSeed", uq)
			}
		}
	}
}

func TestPoolRules(t *testing.T) {
	items := []Scored{{Stats: PageStats{Aware: 0}}, {Stats: PageStats{Aware: 3}}, {Stats: PageStats{Aware: 0, Clicks: 5}}}
	if got := PoolFor(items, RuleSelective, 0.1, seeded(1)); !slices.Equal(got, []bool{true, false, true}) {
		t.Fatalf("selective pool = %v: want the zero-awareness candidates", got)
	}
	if got := PoolFor(items, RuleNone, 0.1, seeded(1)); slices.Contains(got, true) {
		t.Fatalf("pool under rule none = %v", got)
	}
	many := make([]Scored, 20000)
	n := 0
	for _, in := range PoolFor(many, RuleUniform, 0.25, seeded(2)) {
		if in {
			n++
		}
	}
	if share := float64(n) / 20000; share < 0.23 || share > 0.27 { // sd ≈ 0.003
		t.Fatalf("uniform pool share %.3f, want 0.25", share)
	}
}

func TestPromoteFirstIsPromotesPrefix(t *testing.T) {
	for seed := range uint64(2000) {
		g := seeded(seed)
		n := g.IntN(60)
		pool := randomPool(g, n, []float64{0, 0.3, 1}[g.IntN(3)])
		k, r, m := 1+g.IntN(5), []float64{0, 0.1, 0.5, 1}[g.IntN(4)], g.IntN(n+1)
		want := Promote(pool, k, r, seeded(seed+1e6))
		if got := PromoteFirst(pool, k, r, seeded(seed+1e6), m); !slices.Equal(got, want[:m]) {
			t.Fatalf("seed %d: n %d, k %d, r %v, m %d: %v, want %v", seed, n, k, r, m, got, want[:m])
		}
	}
}

// TestAppendNormalizedQueryIsNormalizeQuery checks the promotion seed's
// one-pass folding of ASCII queries against NormalizeQuery: every ASCII
// byte, runs and edges of white space, and non-ASCII queries (which take
// NormalizeQuery's path) with Unicode spaces, compatibility forms and
// invalid UTF-8.
func TestAppendNormalizedQueryIsNormalizeQuery(t *testing.T) {
	var all []byte
	for c := range utf8.RuneSelf {
		all = append(all, byte(c))
	}
	for _, q := range []string{
		"", " ", "\t\n\v\f\r ", "Go", "  GO  Pebble ", "go\tpebble\nDB", "a\x00b\x1fc\x7fd", string(all),
		"  x  ", "A-Z_@[`{~", "\u00a0Go\u0085Pebble\u2003", "ＧＯ　ｐｅｂｂｌｅ", "ﬁle Straße", "\xff\xfe go", "İstanbul",
	} {
		if got, want := string(appendNormalizedQuery([]byte("x"), q)), "x"+NormalizeQuery(q); got != want {
			t.Errorf("appendNormalizedQuery(%q) = %q, want %q", q, got, want)
		}
	}
}
