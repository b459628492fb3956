package discovery

// CLIQWin is CLIQ-WIN of §3.6.4: CLIQ run on the clusters of the most
// recent full re-crawl (each with its q_i = max p_j there) together with
// one singleton cluster for every old page that ever linked to new content
// in an observed re-crawl, whose q is the α-weighted estimate p_x^t. The
// representatives are taken in descending q (the smaller URL on ties), a
// page at most once. With α = 0 it is CLIQ-1.
type CLIQWin struct {
	name     string
	alpha    float64
	epsilonB float64
	sites    map[string]*cliqSite
}

type cliqSite struct {
	est    *estimate
	recent []Cluster
	ranked []scored // nil when stale
}

// NewCLIQWin returns CLIQ-WIN with weight α and cluster threshold ε_b.
func NewCLIQWin(alpha, epsilonB float64) *CLIQWin {
	return &CLIQWin{name: "CLIQ-WIN", alpha: alpha, epsilonB: epsilonB, sites: map[string]*cliqSite{}}
}

// NewCLIQ1 returns CLIQ-1: CLIQ-WIN with statistics from the most recent
// re-crawl only.
func NewCLIQ1(epsilonB float64) *CLIQWin {
	p := NewCLIQWin(0, epsilonB)
	p.name = "CLIQ-1"
	return p
}

// Name implements Policy.
func (p *CLIQWin) Name() string { return p.name }

// Observe implements Policy.
func (p *CLIQWin) Observe(site string, t int, h *Bipartite) {
	s := p.sites[site]
	if s == nil {
		s = &cliqSite{est: newEstimate(p.alpha)}
		p.sites[site] = s
	}
	s.est.observe(t, h)
	s.recent = Clusters(h, p.epsilonB)
	s.ranked = nil
}

// Select implements Policy.
func (p *CLIQWin) Select(site string, k int) []string {
	s := p.sites[site]
	if s == nil {
		return nil
	}
	if s.ranked == nil {
		cands := s.est.ranked() // the singletons
		for _, c := range s.recent {
			cands = append(cands, scored{c.Rep, c.Q})
		}
		rank(cands)
		seen := make(map[string]bool, len(cands))
		s.ranked = cands[:0:0]
		for _, c := range cands {
			if !seen[c.url] {
				seen[c.url] = true
				s.ranked = append(s.ranked, c)
			}
		}
	}
	return topURLs(s.ranked, k)
}
