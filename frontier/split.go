package frontier

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Arrival is the quality a page's first indexing added to the workload's
// results, in the units of ΔQ_A (index.Index.ArrivalFunc); 0 for a page
// the index does not hold.
type Arrival func(url string) float64

// marginalTail is the part of a side's fetches, the last in its plan's
// order, whose gain per fetch stands for the side's marginal gain: the
// later half. Each side spends its best fetches first, so the gain of its
// last ones is what one fetch more or less would change; a smaller tail
// would rest a week's estimate on a handful of fetches, most of which
// find no change.
const marginalTail = 0.5

// sideGain is what one side of the split (re-crawl or discovery) gained
// in a period: the summed gain of its last fetches (marginalTail) and
// their number, its fetches, and the fetches its share allotted.
type sideGain struct {
	tail                           float64
	tailFetches, fetches, allotted int
}

// measureSide is a side's gain from the gains of its fetches in plan
// order.
func measureSide(gains []float64, allotted int) sideGain {
	n := len(gains)
	k := int(math.Ceil(marginalTail * float64(n)))
	var tail float64
	for _, g := range gains[n-k:] {
		tail += g
	}
	return sideGain{tail: tail, tailFetches: k, fetches: n, allotted: allotted}
}

// periodGain is one period's gain on both sides.
type periodGain struct{ recrawl, discovery sideGain }

// splitState is the adaptive split's memory (frontier.split.adaptive):
// the discovery share of the next plan, the fetches of the period being
// gathered and their places in its plan, and the gains of the last
// frontier.split.window periods. It holds at most one URL per fetch of
// one period (frontier.budget.fetches) and window gains.
type splitState struct {
	// share is the discovery share of the budget; the re-crawl share is
	// the pool (split.recrawl + split.discovery) less share.
	share float64
	// period is the start of the period whose fetches are gathered;
	// allotted its planned fetches per side.
	period             time.Time
	allotRe, allotDisc int
	fetched            [repo.NumClasses][]string
	// rank is each planned re-fetch's place in its side's plan (the
	// policy's or OD-WIN's order, best first).
	rank   map[string]int
	recent []periodGain
}

// noteLocked records a finished fetch of the period being gathered.
func (s *splitState) noteLocked(job Job) {
	if job.Class != repo.ClassMonitor && job.period.Equal(s.period) {
		s.fetched[job.Class] = append(s.fetched[job.Class], job.URL)
	}
}

// plannedLocked records the places of a plan's re-fetches, after those of
// an earlier plan of the same period.
func (s *splitState) plannedLocked(urls []string) {
	if s.rank == nil {
		s.rank = map[string]int{}
	}
	for _, u := range urls {
		if _, ok := s.rank[u]; !ok {
			s.rank[u] = len(s.rank)
		}
	}
}

// inPlanOrder sorts a side's re-fetches by their places in the plan; one
// an earlier period planned comes last.
func inPlanOrder(urls []string, rank map[string]int) []string {
	place := func(u string) int {
		if r, ok := rank[u]; ok {
			return r
		}
		return len(rank)
	}
	out := slices.Clone(urls)
	slices.SortStableFunc(out, func(a, b string) int { return place(a) - place(b) })
	return out
}

// fetches returns the adaptive split's re-crawl and discovery fetches
// for a period's budget: discovery's current share of their pool, each
// side at least one fetch. (The fixed split is QuotaOf's.)
func (c SplitConfig) fetches(budget int, discovery float64) (nRecrawl, nDiscovery int) {
	b := float64(budget)
	pool := c.Recrawl + c.Discovery
	// Rounded: the share moves by float steps, and 0.7999… of 20 fetches
	// is 16, not 15.
	nDiscovery = max(1, int(math.Round(discovery*b)))
	nRecrawl = max(1, int(math.Round(pool*b))-nDiscovery)
	return nRecrawl, nDiscovery
}

// adaptSplit, at the start of a new period, measures what the last
// period's fetches gained on each side and moves the discovery share
// (nextShare). It returns the re-crawl and discovery fetches of the new
// period's plan, its discovery share of budget (the period's).
func (f *Frontier) adaptSplit(ctx context.Context, budget int) (nRecrawl, nDiscovery int, err error) {
	f.mu.Lock()
	s := &f.mu.split
	if s.period.Equal(f.mu.budget.start) {
		nRecrawl, nDiscovery := s.allotRe, s.allotDisc
		f.mu.Unlock()
		return nRecrawl, nDiscovery, nil // planned again within the period
	}
	prev, fetched, rank, allotRe, allotDisc := s.period, s.fetched, s.rank, s.allotRe, s.allotDisc
	s.period, s.fetched, s.rank = f.mu.budget.start, [repo.NumClasses][]string{}, nil
	f.mu.Unlock()

	var g periodGain
	if !prev.IsZero() {
		end := prev.Add(f.cfg.Budget.Period)
		re, err := f.refetchGains(ctx, inPlanOrder(fetched[repo.ClassRecrawl], rank), prev, end)
		if err != nil {
			return 0, 0, err
		}
		// Discovery's plan order: OD-WIN's picks, then the new pages in
		// the order they were fetched (what the share left went to them).
		disc, err := f.refetchGains(ctx, inPlanOrder(fetched[repo.ClassDiscovery], rank), prev, end)
		if err != nil {
			return 0, 0, err
		}
		for _, u := range fetched[repo.ClassNew] {
			disc = append(disc, max(0, f.arrival(u)))
		}
		g = periodGain{recrawl: measureSide(re, allotRe), discovery: measureSide(disc, allotDisc)}
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if !prev.IsZero() {
		s.recent = append(s.recent, g)
		if len(s.recent) > f.cfg.Split.Window {
			s.recent = s.recent[len(s.recent)-f.cfg.Split.Window:]
		}
		s.share = nextShare(s.share, marginalRates(s.recent, budget), f.cfg.Split)
	}
	s.allotRe, s.allotDisc = f.cfg.Split.fetches(budget, s.share)
	return s.allotRe, s.allotDisc, nil
}

// refetchGains is, per URL of urls, Σ max(0, ΔQ_A) the index measured on
// its re-fetches in [start, end) (a measurement's At is its copy's fetch
// time). A re-fetch that found no change has no measurement and gained 0;
// negative measurements count 0, as in the impact model (impact.go). A
// URL's measurements of the period count at its first place in urls.
func (f *Frontier) refetchGains(ctx context.Context, urls []string, start, end time.Time) ([]float64, error) {
	gains := make([]float64, len(urls))
	seen := make(map[string]bool, len(urls))
	for i, u := range urls {
		if seen[u] {
			continue
		}
		seen[u] = true
		ms, err := f.db.DeltaQs(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("frontier: ΔQ_A of %s: %w", u, err)
		}
		for _, m := range ms {
			if !m.At.Before(start) && m.At.Before(end) {
				gains[i] += max(0, m.Value)
			}
		}
	}
	return gains, nil
}

// gainRates are the two sides' marginal gains per fetch over the recent
// periods (ok is false when a side was allotted no fetch there), and,
// for a side that left part of its latest share unspent, the share of
// the budget it could use (capped), else −1.
type gainRates struct {
	recrawl, discovery       float64
	ok                       bool
	recrawlCap, discoveryCap float64
}

// marginalRates estimates each side's marginal gain per fetch over the
// recent periods: the gain per fetch of its last fetches (marginalTail),
// pooled over the window. A side that left part of its latest share
// unspent is saturated: one fetch more for it would have gone unused, so
// its share is capped at the most it spent in a period of the window, as
// a share of budget (the largest recent need, so a week that finds more
// new pages than the last still has room for them). Below that cap its
// fetches are judged by their gain like any others.
func marginalRates(recent []periodGain, budget int) gainRates {
	g := gainRates{recrawlCap: -1, discoveryCap: -1}
	if len(recent) == 0 || budget <= 0 {
		return g
	}
	var re, disc sideGain
	usedRe, usedDisc := 0, 0
	for _, p := range recent {
		re.tail += p.recrawl.tail
		re.tailFetches += p.recrawl.tailFetches
		re.allotted += p.recrawl.allotted
		disc.tail += p.discovery.tail
		disc.tailFetches += p.discovery.tailFetches
		disc.allotted += p.discovery.allotted
		usedRe, usedDisc = max(usedRe, p.recrawl.fetches), max(usedDisc, p.discovery.fetches)
	}
	last := recent[len(recent)-1]
	if last.recrawl.fetches < last.recrawl.allotted {
		g.recrawlCap = float64(usedRe) / float64(budget)
	}
	if last.discovery.fetches < last.discovery.allotted {
		g.discoveryCap = float64(usedDisc) / float64(budget)
	}
	if re.allotted == 0 || disc.allotted == 0 {
		return g
	}
	g.recrawl, g.discovery, g.ok = re.perTailFetch(), disc.perTailFetch(), true
	return g
}

func (s sideGain) perTailFetch() float64 {
	if s.tailFetches == 0 {
		return 0
	}
	return s.tail / float64(s.tailFetches)
}

// nextShare moves the discovery share toward the side of higher marginal
// gain per fetch by at most split.step of the budget, in proportion to
// how far apart the two gains are, (g_d − g_r)/(g_d + g_r) ∈ [−1, 1];
// then holds a saturated side to the share it could use, the rest going
// to the other side; and keeps each side at least split.floor of the
// budget. With no measurement on a side, or no gain on either, only the
// caps and floors move it.
func nextShare(share float64, g gainRates, c SplitConfig) float64 {
	pool := c.Recrawl + c.Discovery
	if g.ok && g.recrawl+g.discovery > 0 {
		share += c.Step * (g.discovery - g.recrawl) / (g.discovery + g.recrawl)
	}
	if g.discoveryCap >= 0 {
		share = math.Min(share, g.discoveryCap)
	}
	if g.recrawlCap >= 0 {
		share = math.Max(share, pool-g.recrawlCap)
	}
	return math.Min(math.Max(share, c.Floor), pool-c.Floor)
}

// SplitShare is the discovery share of the budget the latest plan used
// under frontier.split.adaptive (frontier.split.discovery otherwise).
func (f *Frontier) SplitShare() float64 {
	if !f.cfg.Split.Adaptive {
		return f.cfg.Split.Discovery
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mu.split.share
}
