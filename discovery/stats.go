package discovery

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Stats is OD-WIN (§3.6.4) for the live crawler. The crawler records what
// each re-fetch of an old page x led to (repo.DiscoveryYield: N(x) as
// observed); Stats turns those into p_x, the α-weighted fraction of the
// site's new pages that x yields, and picks the old pages to re-fetch per
// site and period.
//
// The live crawler does not see full re-crawls all at once, so the
// estimate is kept per page: p_x^t = |N_t(x)|/N_t, where N_t is the number
// of distinct new URLs the site's re-fetches found in period t, and
//
//	p_x = Σ_{t'} α^{t−t'}·p_x^{t'} / Σ_{t'} α^{t−t'}
//
// over the periods t' in which x was re-fetched, plus, as zeros, the
// site's full re-crawls (FullRecrawlDone) before x first yielded anything.
// Fed only full re-crawls this is the thesis's estimate (exactly, for
// pages that exist at every re-crawl) and Stats ranks as OD-WIN does; the re-fetches the crawler makes between full
// re-crawls (the pages Select chose) refine it further.
//
// A period's yields are folded in when a record or a Select from a later
// period arrives for the site; records of one site must come in time order
// (a late one counts in the period being gathered).
//
// Memory per site is bounded by Config.TrackedPerSite page estimates plus
// at most as many per-page yields of the period being gathered and an
// 8 KiB distinct-URL sketch for N_t. When a site tracks more pages, those
// with the lowest p_x (then the least recently re-fetched, then the larger
// URL) are forgotten; a forgotten page that yields again starts over as a
// page yielding for the first time.
// The number of sites is that of the hosts whose old pages were re-fetched.
type Stats struct {
	cfg    Config
	period time.Duration
	logger *slog.Logger

	mu struct {
		sync.Mutex
		sites map[string]*siteStats
	}
}

type siteStats struct {
	open   int64          // the period being gathered
	opened bool           // open is set
	found  distinctCount  // distinct new URLs found in period open: N_t
	yields map[string]int // |N(x)| per page re-fetched in period open
	pages  map[string]*pageStats
	// full is Σ α^{t−t'} over the periods t' of full re-crawls, and
	// lastFull the latest of them: a page first seen yielding in period
	// t was re-fetched, and yielded nothing, in each earlier full
	// re-crawl, so its denominator starts there (§3.6.4 counts those
	// re-crawls for every page).
	full     decayed
	lastFull int64
	fullDone bool
	ranked   []scored // nil when stale
	late     int      // records older than the period being gathered
	dropped  int      // per-page yields not kept for the bound
}

// pageStats is the numerator and denominator of p_x, updated together.
type pageStats struct {
	num, den decayed
}

func (p *pageStats) value() float64 {
	if p.den.sum == 0 {
		return 0
	}
	return p.num.sum / p.den.sum // both as of the same period
}

// NewStats returns empty statistics. period is the crawler's scheduling
// period (the thesis's week), the unit of α's decay and of Δ.
func NewStats(cfg Config, period time.Duration, logger *slog.Logger) (*Stats, error) {
	var errs []error
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	if period <= 0 {
		errs = append(errs, fmt.Errorf("discovery: period = %v: must be > 0", period))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Stats{cfg: cfg, period: period, logger: logger.With("component", "discovery")}
	s.mu.sites = map[string]*siteStats{}
	return s, nil
}

// periodOf returns the index of the period holding t (periods start at the
// Unix epoch).
func (s *Stats) periodOf(t time.Time) int64 {
	ns, p := t.UnixNano(), s.period.Nanoseconds()
	q := ns / p
	if ns%p < 0 {
		q--
	}
	return q
}

// Record adds what one re-fetch of old page x (an absolute normalized URL)
// led to. An empty y.New is an observation too: x yielded nothing.
func (s *Stats) Record(x string, y repo.DiscoveryYield) error {
	site := urlnorm.Host(x)
	if site == "" {
		return fmt.Errorf("discovery: record %q: not an absolute normalized URL", x)
	}
	t := s.periodOf(y.At)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteLocked(site)
	switch {
	case !st.opened:
		st.open, st.opened = t, true
	case t > st.open:
		s.closeLocked(site, st)
		st.open = t
	case t < st.open:
		st.late++
	}
	for _, u := range y.New {
		st.found.add(u)
	}
	n := len(y.New)
	if _, ok := st.yields[x]; ok {
		// Re-fetched again this period: its new pages are new since the
		// previous fetch, so they add up.
		st.yields[x] += n
		return nil
	}
	if n == 0 && st.pages[x] == nil {
		return nil // an untracked page yielding nothing stays at p_x = 0
	}
	if len(st.yields) >= s.cfg.TrackedPerSite {
		// Keep the largest yields: replace the smallest if x beats it.
		minURL, minN := "", -1
		for u, m := range st.yields {
			if minN < 0 || m < minN || m == minN && u > minURL {
				minURL, minN = u, m
			}
		}
		if n <= minN {
			st.dropped++
			return nil
		}
		delete(st.yields, minURL)
		st.dropped++
	}
	st.yields[x] = n
	return nil
}

// siteLocked returns the state of site, creating it.
func (s *Stats) siteLocked(site string) *siteStats {
	st := s.mu.sites[site]
	if st == nil {
		st = &siteStats{yields: map[string]int{}, pages: map[string]*pageStats{}}
		s.mu.sites[site] = st
	}
	return st
}

// closeLocked folds the yields of the period being gathered into the
// estimates and enforces the bound on tracked pages.
func (s *Stats) closeLocked(site string, st *siteStats) {
	t := int(st.open)
	total := st.found.count()
	for x, n := range st.yields {
		p := 0.0
		if total > 0 {
			p = min(1, float64(n)/total)
		}
		ps := st.pages[x]
		if ps == nil {
			ps = &pageStats{num: decayed{at: t}, den: decayed{at: t, sum: s.fullBeforeLocked(st, t)}}
			st.pages[x] = ps
		}
		ps.num.add(s.cfg.Alpha, t, p)
		ps.den.add(s.cfg.Alpha, t, 1)
	}
	s.logger.Debug("discovery period closed", "host", site, "n", len(st.yields),
		slog.Int64("period", st.open), slog.Float64("found", total), slog.Int("late", st.late), slog.Int("dropped", st.dropped))
	clear(st.yields)
	st.found.reset()
	st.ranked = nil
	if over := len(st.pages) - s.cfg.TrackedPerSite; over > 0 {
		s.evictLocked(st, over)
	}
}

// fullBeforeLocked returns the weight of the site's full re-crawls before
// period t, as of t.
func (s *Stats) fullBeforeLocked(st *siteStats, t int) float64 {
	if !st.fullDone {
		return 0
	}
	w := st.full.valueAt(s.cfg.Alpha, t)
	if st.lastFull == int64(t) {
		w-- // period t's own re-crawl is the observation being added
	}
	return max(0, w)
}

// evictLocked forgets the n pages with the lowest estimates.
func (s *Stats) evictLocked(st *siteStats, n int) {
	type cand struct {
		url  string
		p    float64
		last int
	}
	cands := make([]cand, 0, len(st.pages))
	for x, ps := range st.pages {
		cands = append(cands, cand{x, ps.value(), ps.den.at})
	}
	// Worst first: lowest p, then least recently re-fetched, then larger URL.
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.p != b.p:
			if a.p < b.p {
				return -1
			}
			return 1
		case a.last != b.last:
			return a.last - b.last
		}
		return -strings.Compare(a.url, b.url)
	})
	for _, c := range cands[:n] {
		delete(st.pages, c.url)
	}
}

// advanceLocked closes the gathered period of a site if now is past it.
func (s *Stats) advanceLocked(site string, st *siteStats, now time.Time) {
	if st.opened && s.periodOf(now) > st.open && (len(st.yields) > 0 || len(st.found.mins) > 0) {
		s.closeLocked(site, st)
	}
}

// Select returns up to Config.PerSite old pages of site to re-fetch for
// discovery in the period holding now: those with the largest p_x > 0,
// the smaller URL first on ties.
func (s *Stats) Select(site string, now time.Time) []string {
	return s.Top(site, s.cfg.PerSite, now)
}

// Top is Select with an explicit k.
func (s *Stats) Top(site string, k int, now time.Time) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.mu.sites[site]
	if st == nil {
		return nil
	}
	s.advanceLocked(site, st, now)
	if st.ranked == nil {
		st.ranked = make([]scored, 0, len(st.pages))
		for x, ps := range st.pages {
			if v := ps.value(); v > 0 {
				st.ranked = append(st.ranked, scored{x, v})
			}
		}
		rank(st.ranked)
	}
	return topURLs(st.ranked, k)
}

// Estimate returns p_x for old page x as of the last closed period (0 if
// x is not tracked).
func (s *Stats) Estimate(x string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.mu.sites[urlnorm.Host(x)]
	if st == nil || st.pages[x] == nil {
		return 0
	}
	return st.pages[x].value()
}

// Tracked returns how many old pages of site have an estimate.
func (s *Stats) Tracked(site string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.mu.sites[site]; st != nil {
		return len(st.pages)
	}
	return 0
}

// FullRecrawlDue reports whether site should be fully re-crawled in the
// period holding now: it never was, or the last time was Δ =
// Config.FullRecrawlEvery periods ago or more (§3.6.4).
func (s *Stats) FullRecrawlDue(site string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.mu.sites[site]
	return st == nil || !st.fullDone || s.periodOf(now)-st.lastFull >= int64(s.cfg.FullRecrawlEvery)
}

// FullRecrawlDone records that every known page of site was re-fetched in
// the period holding at (its yields recorded, empty ones included, with
// Record). Call it once the re-crawl's yields are in: pages whose first
// yield comes later count this re-crawl as one that found nothing, as
// §3.6.4 does, which makes Stats fed only full re-crawls agree with
// OD-WIN.
func (s *Stats) FullRecrawlDone(site string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteLocked(site)
	t := s.periodOf(at)
	if st.opened && t > st.open {
		s.closeLocked(site, st)
		st.open = t
	}
	if st.fullDone && t <= st.lastFull {
		return // once per period; periods do not go back
	}
	st.full.add(s.cfg.Alpha, int(t), 1)
	st.lastFull, st.fullDone = t, true
}
