package ranking

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func urlsOf(items []Scored) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func item(url string, rel, pop float64) Scored {
	return Scored{Candidate: Candidate{URL: url, Relevance: rel}, Popularity: pop}
}

func TestPopularityOrderIsTheThesisOrder(t *testing.T) {
	items := []Scored{
		item("a", 9, 0.1),
		item("b", 1, 0.5),
		item("c", 5, 0.1),
		item("d", 5, 0.1),
		item("e", 7, 0),
	}
	Order(items, OrderPopularity, 0.5)
	want := []string{"b", "a", "c", "d", "e"} // popularity, then relevance, then URL
	if got := urlsOf(items); !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

func TestBlendFollowsItsFormula(t *testing.T) {
	items := []Scored{
		item("a", 10, 0.3), // most popular: pop term 1
		item("b", 5, 0.2),  // one above: 1 − ln 2/ln 6
		item("c", 8, 0.2),  // tie with b
		item("d", 2, 0.1),  // three above: 1 − ln 4/ln 6
		item("e", 4, 0),    // zero popularity: 0
	}
	w := 0.4
	got := Blend(items, w)
	ln6 := math.Log(6) // ln(1+N), N = 5
	want := []float64{
		0.6*1 + 0.4*1,
		0.6*0.5 + 0.4*(1-math.Log(2)/ln6),
		0.6*0.8 + 0.4*(1-math.Log(2)/ln6),
		0.6*0.2 + 0.4*(1-math.Log(4)/ln6),
		0.6 * 0.4,
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("Blend[%s] = %v, want %v", items[i].URL, got[i], want[i])
		}
	}
	Order(items, OrderBlend, w)
	if got, want := urlsOf(items), []string{"a", "c", "b", "e", "d"}; !slices.Equal(got, want) {
		t.Fatalf("blend order = %v, want %v", got, want)
	}
}

// TestBlendCountsTheMorePopular checks Blend's popularity term against
// ρ(p) counted pair by pair, on lists with many equal popularities, and
// with popularities a few units in the last place apart, zero, negative
// and NaN.
func TestBlendCountsTheMorePopular(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		n := trial
		if trial >= 80 {
			n = 80 + rng.IntN(1200)
		}
		items := make([]Scored, n)
		for i := range items {
			pop := float64(rng.IntN(6)) / 8
			if trial%2 == 1 { // near ties
				pop = 1e-4 * float64(1+rng.IntN(3))
				for range rng.IntN(4) {
					pop = math.Nextafter(pop, math.Inf(2*rng.IntN(2)-1))
				}
				switch rng.IntN(40) {
				case 0:
					pop = math.NaN()
				case 1:
					pop = math.Copysign(0, -1)
				case 2:
					pop = -pop
				}
			}
			items[i] = item(fmt.Sprint(i), float64(rng.IntN(5)), pop)
		}
		got := Blend(items, 1) // the popularity term alone
		for i, it := range items {
			above := 0
			for _, other := range items {
				if other.Popularity > it.Popularity {
					above++
				}
			}
			want := 0.0
			if it.Popularity > 0 {
				want = 1 - math.Log(1+float64(above))/math.Log(1+float64(n))
			}
			if got[i] != want {
				t.Fatalf("trial %d, n = %d, item %d (popularity %v, %d above): %v, want %v", trial, n, i, it.Popularity, above, got[i], want)
			}
		}
	}
}

func TestBlendWeightsAtTheEndsGiveOneSignal(t *testing.T) {
	base := []Scored{item("a", 1, 0.9), item("b", 3, 0.1), item("c", 2, 0.5)}
	for _, c := range []struct {
		name string
		w    float64
		want []string
	}{
		{"weight zero orders by relevance", 0, []string{"b", "c", "a"}},
		{"weight one orders by popularity", 1, []string{"a", "c", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := slices.Clone(base)
			Order(items, OrderBlend, c.w)
			if got := urlsOf(items); !slices.Equal(got, c.want) {
				t.Fatalf("order = %v, want %v", got, c.want)
			}
		})
	}
}

func TestPopularityOfPicksTheConfiguredSource(t *testing.T) {
	st := PageStats{PageRank: 0.25, InLinks: 7, Clicks: 3, Aware: 2}
	for src, want := range map[string]float64{SourcePageRank: 0.25, SourceInLinks: 7, SourceClicks: 3} {
		if got := PopularityOf(st, src); got != want {
			t.Errorf("PopularityOf(%s) = %v, want %v", src, got, want)
		}
	}
}

// TestBlendOrderSortsByScoreThenRelevancePopularityURL checks Order
// against a stable sort of copies by the documented keys, on lists with
// many ties, some of them complete.
func TestBlendOrderSortsByScoreThenRelevancePopularityURL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 60 {
		items := make([]Scored, n)
		for i := range items {
			// Few URLs, so equal keys occur; the title tells such items apart.
			items[i] = Scored{Candidate: Candidate{URL: fmt.Sprintf("http://p%02d.test/", rng.IntN(8)), Title: fmt.Sprint(i), Relevance: float64(rng.IntN(4))}, Popularity: float64(rng.IntN(3))}
		}
		score := Blend(items, 0.3)
		type pair struct {
			s  float64
			it Scored
		}
		want := make([]pair, n)
		for i := range items {
			want[i] = pair{score[i], items[i]}
		}
		slices.SortStableFunc(want, func(a, b pair) int {
			return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(b.it.Relevance, a.it.Relevance),
				cmp.Compare(b.it.Popularity, a.it.Popularity), cmp.Compare(a.it.URL, b.it.URL))
		})
		Order(items, OrderBlend, 0.3)
		for i := range items {
			if items[i] != want[i].it {
				t.Fatalf("n = %d: position %d holds %+v, want %+v", n, i, items[i], want[i].it)
			}
		}
	}
}

// TestSelectKeyIsTheSortedKey checks selection against a sort for every
// position of random key lists, ties broken by the items' URLs and
// positions as the blend order breaks them.
func TestSelectKeyIsTheSortedKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		items := make([]Scored, n)
		keys := make([]orderKey, n)
		for i := range keys {
			items[i].URL = fmt.Sprintf("http://s%d.test/", rng.IntN(4))
			keys[i] = orderKey{float64(rng.IntN(3)), float64(rng.IntN(2)), float64(rng.IntN(2)), i}
		}
		compare := compareKeys(items)
		sorted := slices.Clone(keys)
		slices.SortFunc(sorted, compare)
		for k := range n {
			got := slices.Clone(keys)
			selectKey(got, k, compare)
			if got[k] != sorted[k] {
				t.Fatalf("trial %d: position %d of %d holds %+v, want %+v", trial, k, n, got[k], sorted[k])
			}
			for i := range got {
				if c := compare(got[i], got[k]); i < k && c >= 0 || i > k && c <= 0 {
					t.Fatalf("trial %d: position %d of %d: key %d is on the wrong side", trial, k, n, i)
				}
			}
		}
	}
}
