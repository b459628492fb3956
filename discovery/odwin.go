package discovery

// ODWin is OD-WIN of §3.6.4: OD with p_x estimated from the full re-crawls
// observed so far, each weighted by α^{t−t'}. Its candidates are the old
// pages with p_x^t > 0. The same type is OD-1 (α = 0: only the most recent
// re-crawl) and OD-ALL (OD-WIN fed a full re-crawl every period, Δ = 1;
// the caller decides how often Observe is called).
type ODWin struct {
	name  string
	alpha float64
	sites map[string]*odSite
}

type odSite struct {
	est    *estimate
	ranked []scored // nil when stale
}

// NewODWin returns OD-WIN with weight α ∈ [0, 1].
func NewODWin(alpha float64) *ODWin { return newOD("OD-WIN", alpha) }

// NewOD1 returns OD-1: OD with p_x from the most recent re-crawl only.
func NewOD1() *ODWin { return newOD("OD-1", 0) }

// NewODAll returns OD-ALL: OD-WIN meant to observe every period (Δ = 1).
func NewODAll(alpha float64) *ODWin { return newOD("OD-ALL", alpha) }

func newOD(name string, alpha float64) *ODWin {
	return &ODWin{name: name, alpha: alpha, sites: map[string]*odSite{}}
}

// Name implements Policy.
func (p *ODWin) Name() string { return p.name }

// Observe implements Policy.
func (p *ODWin) Observe(site string, t int, h *Bipartite) {
	s := p.sites[site]
	if s == nil {
		s = &odSite{est: newEstimate(p.alpha)}
		p.sites[site] = s
	}
	s.est.observe(t, h)
	s.ranked = nil
}

// Select implements Policy: the k old pages with the largest p_x^t > 0.
func (p *ODWin) Select(site string, k int) []string {
	s := p.sites[site]
	if s == nil {
		return nil
	}
	if s.ranked == nil {
		all := s.est.ranked()
		n := 0
		for n < len(all) && all[n].score > 0 {
			n++
		}
		s.ranked = all[:n]
	}
	return topURLs(s.ranked, k)
}

// Estimate returns p_x^t for page x of site as of the latest re-crawl.
func (p *ODWin) Estimate(site, x string) float64 {
	s := p.sites[site]
	if s == nil {
		return 0
	}
	return s.est.p(x)
}
