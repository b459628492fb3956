package discovery

// OD is the outdegree algorithm of §3.6.1 with exact knowledge of H_t:
// the k old pages with the largest p_x = |N(x)|/N. Lemma 1 bounds how far
// it can fall behind the optimum when p_x is right.
func OD(h *Bipartite, k int) []string {
	pages := make([]scored, len(h.Old))
	for i, x := range h.Old {
		pages[i] = scored{x, h.Fraction(i)}
	}
	rank(pages)
	return topURLs(pages, k)
}
