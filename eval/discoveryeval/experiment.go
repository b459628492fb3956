package discoveryeval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/repo"
)

// firstScoredWeek is the first week the history-based algorithms are
// scored in: H_1 is the first full re-crawl there is, so week 2 is the
// first with any history. Optimal is scored on the same weeks so the
// coverage of every algorithm has the same denominator.
const firstScoredWeek = 2

// Unlimited is the budget of §3.6.5's upper bound: every candidate.
const Unlimited = math.MaxInt32

// measure accumulates covers over weeks (§3.6.6): the cover sizes |O_t|,
// the new pages they cover |N_t(O_t)|, and the coverable new pages N_t.
type measure struct {
	weeks, size, covered, coverable int
}

func (m *measure) add(size, covered int, h *discovery.Bipartite) {
	m.weeks++
	m.size += size
	m.covered += covered
	m.coverable += h.Coverable
}

func (m *measure) merge(o measure) {
	m.weeks += o.weeks
	m.size += o.size
	m.covered += o.covered
	m.coverable += o.coverable
}

// depth is the average cover size ("average depth").
func (m measure) depth() float64 { return ratio(m.size, m.weeks) }

// overhead is |O|/|N(O)| of §3.2.1 in percent, over all weeks at once:
// total re-fetches over total new pages they revealed.
func (m measure) overhead() float64 {
	if m.covered == 0 {
		if m.size == 0 {
			return math.NaN()
		}
		return math.Inf(1)
	}
	return 100 * float64(m.size) / float64(m.covered)
}

// coverage is the covered fraction of all coverable new pages, percent.
func (m measure) coverage() float64 { return 100 * ratio(m.covered, m.coverable) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// algorithm is a history-based policy of §3.6 to evaluate.
type algorithm struct {
	name string
	make func(s *site, delta int) (discovery.Policy, error)
	// perBudget marks a policy that learns from its own re-fetches, so
	// its state depends on k and each budget needs a run of its own.
	perBudget bool
}

func historyAlgorithms(cfg Config) []algorithm {
	return []algorithm{
		{name: "CLIQ-WIN", make: func(*site, int) (discovery.Policy, error) { return discovery.NewCLIQWin(cfg.Alpha, cfg.EpsilonB), nil }},
		{name: "COV", make: func(*site, int) (discovery.Policy, error) { return discovery.NewCOV(), nil }},
		{name: "OD-WIN", make: func(*site, int) (discovery.Policy, error) { return discovery.NewODWin(cfg.Alpha), nil }},
		{name: "OD-1", make: func(*site, int) (discovery.Policy, error) { return discovery.NewOD1(), nil }},
		{name: statsName, make: func(s *site, delta int) (discovery.Policy, error) { return newStatsPolicy(cfg, s, delta, false) }},
		{name: statsLearnName, perBudget: true,
			make: func(s *site, delta int) (discovery.Policy, error) { return newStatsPolicy(cfg, s, delta, true) }},
	}
}

// learner is a policy that also learns from the re-fetches it chose, as
// the live crawler records a yield for every re-fetch.
type learner interface {
	learn(t int, selected []string, h *discovery.Bipartite)
}

// replay runs policy over the weeks of s: in every scored week it selects
// a cover for each budget, scored against H_t, and it observes H_t in the
// weeks of a full re-crawl: 1, 1+Δ, 1+2Δ, ….
func replay(s *site, p discovery.Policy, delta int, budgets []int) []measure {
	ms := make([]measure, len(budgets))
	for t := 1; t < len(s.cover); t++ {
		h := s.cover[t]
		if sp, ok := p.(*statsPolicy); ok {
			sp.week = t
		}
		recrawl := (t-1)%delta == 0
		if t >= firstScoredWeek {
			for i, k := range budgets {
				sel := p.Select(s.host, k)
				ms[i].add(len(sel), h.Covered(sel), h)
				if l, ok := p.(learner); ok && !recrawl && len(budgets) == 1 {
					l.learn(t, sel, h) // a full re-crawl week re-fetches them anyway
				}
			}
		}
		if recrawl {
			p.Observe(s.host, t, h)
		}
	}
	return ms
}

// greedyGains returns, for every week t ≥ 1, the new pages each page of
// GREEDY's complete order adds (discovery.GreedyOrder); gains[0] is nil.
// Every GREEDY measurement is a prefix sum of these.
func greedyGains(s *site) [][]int {
	gains := make([][]int, len(s.cover))
	for t := 1; t < len(s.cover); t++ {
		_, gains[t] = discovery.GreedyOrder(s.cover[t])
	}
	return gains
}

// optimal scores GREEDY's k-budgeted cover of every scored week, given
// the weeks' greedyGains.
func optimal(s *site, gains [][]int, budgets []int) []measure {
	ms := make([]measure, len(budgets))
	for t := firstScoredWeek; t < len(s.cover); t++ {
		for i, k := range budgets {
			n := min(k, len(gains[t]))
			covered := 0
			for _, g := range gains[t][:n] {
				covered += g
			}
			ms[i].add(n, covered, s.cover[t])
		}
	}
	return ms
}

// partialCover is GREEDY's ρ-partial cover over every week t ≥ 1
// (§3.5.3.3): the total overhead, and the mean of the weekly overheads.
type partialCover struct {
	rho        float64
	m          measure
	meanWeekly float64 // mean over weeks with new pages of |C_t|/|N(C_t)|, percent
}

func partialCovers(s *site, rhos []float64) []partialCover {
	out := make([]partialCover, len(rhos))
	for i, rho := range rhos {
		pc := partialCover{rho: rho}
		sum, n := 0.0, 0
		for t := 1; t < len(s.cover); t++ {
			h := s.cover[t]
			c := discovery.PartialCover(h, rho)
			covered := h.Covered(c)
			pc.m.add(len(c), covered, h)
			if covered > 0 {
				sum += 100 * float64(len(c)) / float64(covered)
				n++
			}
		}
		pc.meanWeekly = sum / float64(max(n, 1))
		out[i] = pc
	}
	return out
}

// greedyCurve is fig. 3.2(b): how many of all coverable new pages (weeks
// t ≥ 1, total of them) are covered when every week's greedy cover is cut
// at k, for k = 1 up to the largest full cover (covered[k−1]).
func greedyCurve(s *site, gains [][]int) (covered []int, total int) {
	longest := 0
	for t := 1; t < len(s.cover); t++ {
		total += s.cover[t].Coverable
		longest = max(longest, len(gains[t]))
	}
	covered = make([]int, longest)
	for _, g := range gains[1:] {
		acc := 0
		for k := range longest {
			if k < len(g) {
				acc += g[k]
			}
			covered[k] += acc
		}
	}
	return covered, total
}

// topCoverer is an old page by the new pages it covered over all weeks.
type topCoverer struct {
	url     string
	covered int // Σ_t |N_t(x)|
	weeks   int // weeks with N_t(x) ≠ ∅
}

// yielders describes the old pages that ever led to a new page: how many,
// how many did so in one week only, how many are paginated list pages (a
// path with a "page/N/" segment), and how they spread over sections.
type yielders struct {
	pages, oneWeek, paginated int
	sections                  []sectionCount
}

func yieldingPages(s *site) yielders {
	var y yielders
	by := map[string]int{}
	for _, c := range topCoverers(s, math.MaxInt) {
		y.pages++
		if c.weeks == 1 {
			y.oneWeek++
		}
		path := strings.TrimPrefix(c.url, "http://"+s.host)
		if paginated(path) {
			y.paginated++
		}
		by[section(path)]++
	}
	y.sections = sortSections(by)
	return y
}

// paginated reports whether path is page N ≥ 2 of a list: ".../page/N/".
func paginated(path string) bool {
	i := strings.LastIndex(path, "/page/")
	if i < 0 {
		return false
	}
	n := strings.TrimSuffix(path[i+len("/page/"):], "/")
	if n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func topCoverers(s *site, n int) []topCoverer {
	by := map[string]*topCoverer{}
	for t := 1; t < len(s.cover); t++ {
		h := s.cover[t]
		for i, x := range h.Old {
			c := by[x]
			if c == nil {
				c = &topCoverer{url: x}
				by[x] = c
			}
			c.covered += len(h.Neighbors[i])
			c.weeks++
		}
	}
	all := make([]topCoverer, 0, len(by))
	for _, c := range by {
		all = append(all, *c)
	}
	slices.SortFunc(all, func(a, b topCoverer) int {
		if a.covered != b.covered {
			return b.covered - a.covered
		}
		return strings.Compare(a.url, b.url)
	})
	return all[:min(n, len(all))]
}

// The rows that run the live crawler's discovery.Stats: fed the full
// re-crawls only (it must agree with OD-WIN), and fed as well the yields
// of the pages it chose itself in the weeks between.
const (
	statsName      = "OD-WIN (Stats)"
	statsLearnName = "OD-WIN (Stats, own re-fetches)"
)

// statsPolicy drives discovery.Stats the way the live crawler does: a
// full re-crawl re-fetches every old page that exists, each re-fetch
// recorded as a repo.DiscoveryYield at the week's date; with learning on,
// so are the re-fetches of the pages it selected.
type statsPolicy struct {
	s        *site
	st       *discovery.Stats
	week     int
	learning bool
	err      error
}

func newStatsPolicy(cfg Config, s *site, delta int, learn bool) (*statsPolicy, error) {
	st, err := discovery.NewStats(discovery.Config{
		Alpha: cfg.Alpha, EpsilonB: cfg.EpsilonB, FullRecrawlEvery: delta,
		PerSite: 1, TrackedPerSite: cfg.TrackedPerSite,
	}, 7*24*time.Hour, nil)
	if err != nil {
		return nil, fmt.Errorf("discoveryeval: %w", err)
	}
	return &statsPolicy{s: s, st: st, learning: learn}, nil
}

func (p *statsPolicy) Name() string {
	if p.learning {
		return statsLearnName
	}
	return statsName
}

func (p *statsPolicy) Observe(site string, t int, h *discovery.Bipartite) {
	p.record(t, p.s.oldPresent[t], h)
	p.st.FullRecrawlDone(site, p.s.dates[t])
}

func (p *statsPolicy) Select(site string, k int) []string {
	return p.st.Top(site, k, p.s.dates[p.week])
}

// learn implements learner: the pages re-fetched in week t report their
// yields (empty for one that covers nothing or no longer exists).
func (p *statsPolicy) learn(t int, selected []string, h *discovery.Bipartite) {
	if p.learning {
		p.record(t, selected, h)
	}
}

// record reports the yields in H_t of re-fetching pages in week t, keeping
// the first error.
func (p *statsPolicy) record(t int, pages []string, h *discovery.Bipartite) {
	at := p.s.dates[t]
	for _, x := range pages {
		if err := p.st.Record(x, repo.DiscoveryYield{At: at, New: h.Yield(x)}); err != nil && p.err == nil {
			p.err = err
		}
	}
}

// sectionCount counts new pages under one top-level path section.
type sectionCount struct {
	section string
	pages   int
}

// historyMisses returns the coverable new pages of the scored weeks that
// no page covers which had linked to a new page in an earlier week (the
// pages §3.6.5's upper bound misses with weekly re-crawls), in total and
// by the first path segment of the new page, largest first.
func historyMisses(s *site) (int, []sectionCount) {
	ever := map[string]bool{}
	by := map[string]int{}
	total := 0
	for t := 1; t < len(s.cover); t++ {
		h := s.cover[t]
		if t >= firstScoredWeek {
			reached := make([]bool, len(h.New))
			for i, x := range h.Old {
				if ever[x] {
					for _, y := range h.Neighbors[i] {
						reached[y] = true
					}
				}
			}
			orphan := make([]bool, len(h.New))
			for _, y := range h.Orphans {
				orphan[y] = true
			}
			for y, u := range h.New {
				if !reached[y] && !orphan[y] {
					total++
					by[section(strings.TrimPrefix(u, "http://"+s.host))]++
				}
			}
		}
		for _, x := range h.Old {
			ever[x] = true
		}
	}
	return total, sortSections(by)
}

// sortSections lists section counts, largest first.
func sortSections(by map[string]int) []sectionCount {
	out := make([]sectionCount, 0, len(by))
	for sec, n := range by {
		out = append(out, sectionCount{sec, n})
	}
	slices.SortFunc(out, func(a, b sectionCount) int {
		if a.pages != b.pages {
			return b.pages - a.pages
		}
		return strings.Compare(a.section, b.section)
	})
	return out
}

// section returns "/first/" for a path "/first/...", or the path itself.
func section(path string) string {
	rest := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return "/" + rest[:i+1]
	}
	return path
}
