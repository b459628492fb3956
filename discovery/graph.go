package discovery

import (
	"slices"
	"strings"
)

// Graph is one snapshot G_t = (V_t, E_t) of a site (§3.2): its pages and
// the links between them. Every node is a page of the snapshot; a link to
// a URL that is not a page that week cannot lead anywhere and is not added.
// The zero Graph is empty and ready to use.
type Graph struct {
	urls []string
	ids  map[string]int
	out  [][]int
}

// NewGraph returns an empty graph with room for n pages.
func NewGraph(n int) *Graph {
	return &Graph{urls: make([]string, 0, n), ids: make(map[string]int, n), out: make([][]int, 0, n)}
}

// AddPage adds url to V_t (if it is not there yet) and returns its node id.
// Ids are dense, in order of first addition.
func (g *Graph) AddPage(url string) int {
	if id, ok := g.ids[url]; ok {
		return id
	}
	if g.ids == nil {
		g.ids = make(map[string]int)
	}
	id := len(g.urls)
	g.urls = append(g.urls, url)
	g.ids[url] = id
	g.out = append(g.out, nil)
	return id
}

// AddLink adds the link from → to between two pages added with AddPage.
// Self-links and ids out of range are ignored; a repeated link is kept
// once when the cover is built.
func (g *Graph) AddLink(from, to int) {
	if from == to || from < 0 || to < 0 || from >= len(g.urls) || to >= len(g.urls) {
		return
	}
	g.out[from] = append(g.out[from], to)
}

// Len returns |V_t|.
func (g *Graph) Len() int { return len(g.urls) }

// URL returns the URL of node id.
func (g *Graph) URL(id int) string { return g.urls[id] }

// ID returns the node id of url.
func (g *Graph) ID(url string) (int, bool) {
	id, ok := g.ids[url]
	return id, ok
}

// Out returns the out-links of node id (possibly with repeats). The slice
// must not be modified.
func (g *Graph) Out(id int) []int { return g.out[id] }

// Edges returns |E_t|, counting each distinct link once.
func (g *Graph) Edges() int {
	n := 0
	var seen []int
	for _, out := range g.out {
		seen = append(seen[:0], out...)
		slices.Sort(seen)
		n += len(slices.Compact(seen))
	}
	return n
}

// Bipartite is H_t = (X_t, Y_t, Z_t) of §3.2: for every old page x the set
// N(x) of new pages efficiently discoverable from it, that is reachable
// from x through a path whose nodes after x are all new.
//
// Only old pages with a non-empty N(x) are listed; every other old page
// has N(x) = ∅. Orphans (new pages in no N(x)) are kept in New but
// excluded from Coverable, the total that coverage and p_x are measured
// against (§3.5.1).
type Bipartite struct {
	// Old lists the old pages x with N(x) ≠ ∅, sorted.
	Old []string
	// New lists Y_t, every new page of the snapshot, sorted.
	New []string
	// Neighbors[i] is N(Old[i]) as ascending indices into New. Pages with
	// the same entry into Y_t share one slice: it must not be modified.
	Neighbors [][]int32
	// Orphans lists the indices into New of the pages no old page covers.
	Orphans []int32
	// Coverable is |Y_t| minus the orphans: |N(X_t)|.
	Coverable int

	oldIndex map[string]int
}

// OldIndex returns the index in Old of page x, or false if N(x) = ∅.
func (h *Bipartite) OldIndex(x string) (int, bool) {
	i, ok := h.oldIndex[x]
	return i, ok
}

// Yield returns N(x) as URLs (nil if x covers nothing).
func (h *Bipartite) Yield(x string) []string {
	i, ok := h.oldIndex[x]
	if !ok {
		return nil
	}
	ys := make([]string, len(h.Neighbors[i]))
	for j, y := range h.Neighbors[i] {
		ys[j] = h.New[y]
	}
	return ys
}

// Fraction returns p_x = |N(x)|/N for Old[i], N being the coverable new
// pages (Table 3.1); 0 when there are none.
func (h *Bipartite) Fraction(i int) float64 {
	if h.Coverable == 0 {
		return 0
	}
	return float64(len(h.Neighbors[i])) / float64(h.Coverable)
}

// Covered returns |N(S)| for a set S of old pages given by URL. Pages of S
// that cover nothing (or are not old) add nothing; repeats count once.
func (h *Bipartite) Covered(s []string) int {
	seen := newBitset(len(h.New))
	n := 0
	for _, x := range s {
		i, ok := h.oldIndex[x]
		if !ok {
			continue
		}
		for _, y := range h.Neighbors[i] {
			if !seen.has(int(y)) {
				seen.set(int(y))
				n++
			}
		}
	}
	return n
}

// Cover builds H_t from snapshot g: a page of g is old when old reports
// true for its URL (it was seen in an earlier snapshot, x ∈ X_t) and new
// otherwise (y ∈ Y_t).
//
// N(x) is the union, over x's new out-neighbours y, of R(y): the new pages
// reachable from y through new pages only, found by breadth-first search
// over the subgraph induced by Y_t and memoized per y. The cost is one
// search per distinct entry page y (O(e·|E_Y|) time for e entry pages and
// the links E_Y among new pages) plus the size of the result; old pages
// with a single entry page share its memoized set, so a new page linked
// from every page of the site (a new menu entry) costs one search.
func Cover(g *Graph, old func(url string) bool) *Bipartite {
	// Number the new pages in URL order.
	var newIDs []int
	isOld := make([]bool, g.Len())
	for id, u := range g.urls {
		if old(u) {
			isOld[id] = true
		} else {
			newIDs = append(newIDs, id)
		}
	}
	slices.SortFunc(newIDs, func(a, b int) int { return strings.Compare(g.urls[a], g.urls[b]) })
	newIndex := make([]int32, g.Len())
	for i := range newIndex {
		newIndex[i] = -1
	}
	h := &Bipartite{New: make([]string, len(newIDs)), oldIndex: map[string]int{}}
	for i, id := range newIDs {
		newIndex[id] = int32(i)
		h.New[i] = g.urls[id]
	}
	r := newReacher(g, newIDs, newIndex)

	// N(x) for every old page that links into Y_t.
	type oldPage struct {
		url string
		n   []int32
	}
	var olds []oldPage
	covered := make([]bool, len(newIDs))
	var entries []int32
	for id, out := range g.out {
		if !isOld[id] {
			continue
		}
		entries = entries[:0]
		for _, to := range out {
			if y := newIndex[to]; y >= 0 {
				entries = append(entries, y)
			}
		}
		if len(entries) == 0 {
			continue
		}
		slices.Sort(entries)
		n := r.union(slices.Compact(entries))
		for _, y := range n {
			covered[y] = true
		}
		olds = append(olds, oldPage{g.urls[id], n})
	}
	slices.SortFunc(olds, func(a, b oldPage) int { return strings.Compare(a.url, b.url) })
	h.Old = make([]string, len(olds))
	h.Neighbors = make([][]int32, len(olds))
	for i, o := range olds {
		h.Old[i] = o.url
		h.Neighbors[i] = o.n
		h.oldIndex[o.url] = i
	}
	for y := range newIDs {
		if !covered[y] {
			h.Orphans = append(h.Orphans, int32(y))
		}
	}
	h.Coverable = len(newIDs) - len(h.Orphans)
	return h
}
