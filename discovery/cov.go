package discovery

// COV is the algorithm of §3.6.3: the GREEDY k-budgeted cover of the most
// recent full re-crawl H_{t'}, reused unchanged until the next one. Since
// every greedy k-cover is a prefix of the complete greedy order, the order
// is kept once and Select takes its first k pages.
type COV struct {
	sites map[string][]string
}

// NewCOV returns COV.
func NewCOV() *COV { return &COV{sites: map[string][]string{}} }

// Name implements Policy.
func (p *COV) Name() string { return "COV" }

// Observe implements Policy.
func (p *COV) Observe(site string, _ int, h *Bipartite) {
	order, _ := GreedyOrder(h)
	p.sites[site] = order
}

// Select implements Policy.
func (p *COV) Select(site string, k int) []string {
	order := p.sites[site]
	k = max(0, min(k, len(order)))
	return append([]string(nil), order[:k]...)
}
