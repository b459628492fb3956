package frontier

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Arrival is the quality a page's first indexing added to the workload's
// results, in the units of ΔQ_A (index.Index.ArrivalFunc); 0 for a page
// the index does not hold.
type Arrival func(url string) float64

// sideGain is what one side of the split (re-crawl or discovery) gained
// in a period: the quality its fetches added, its fetches, and the
// fetches its share allotted.
type sideGain struct {
	value             float64
	fetches, allotted int
}

// periodGain is one period's gain on both sides.
type periodGain struct{ recrawl, discovery sideGain }

// splitState is the adaptive split's memory (frontier.split.adaptive):
// the discovery share of the next plan, the fetches of the period being
// gathered, and the gains of the last frontier.split.window periods. It
// holds at most one URL per fetch of one period (frontier.budget.fetches)
// and window gains.
type splitState struct {
	// share is the discovery share of the budget; the re-crawl share is
	// the pool (split.recrawl + split.discovery) less share.
	share float64
	// period is the start of the period whose fetches are gathered;
	// allotted its planned fetches per side.
	period             time.Time
	allotRe, allotDisc int
	fetched            [repo.NumClasses][]string
	recent             []periodGain
}

// noteLocked records a finished fetch of the period being gathered.
func (s *splitState) noteLocked(job Job) {
	if job.Class != repo.ClassMonitor && job.period.Equal(s.period) {
		s.fetched[job.Class] = append(s.fetched[job.Class], job.URL)
	}
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
	prev, fetched, allotRe, allotDisc := s.period, s.fetched, s.allotRe, s.allotDisc
	s.period, s.fetched = f.mu.budget.start, [repo.NumClasses][]string{}
	f.mu.Unlock()

	var g periodGain
	if !prev.IsZero() {
		end := prev.Add(f.cfg.Budget.Period)
		if g.recrawl.value, err = f.refetchGain(ctx, fetched[repo.ClassRecrawl], prev, end); err != nil {
			return 0, 0, err
		}
		disc, err := f.refetchGain(ctx, fetched[repo.ClassDiscovery], prev, end)
		if err != nil {
			return 0, 0, err
		}
		for _, u := range fetched[repo.ClassNew] {
			disc += max(0, f.arrival(u))
		}
		g.discovery.value = disc
		g.recrawl.fetches, g.recrawl.allotted = len(fetched[repo.ClassRecrawl]), allotRe
		g.discovery.fetches, g.discovery.allotted = len(fetched[repo.ClassDiscovery])+len(fetched[repo.ClassNew]), allotDisc
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if !prev.IsZero() {
		s.recent = append(s.recent, g)
		if len(s.recent) > f.cfg.Split.Window {
			s.recent = s.recent[len(s.recent)-f.cfg.Split.Window:]
		}
		s.share = nextShare(s.share, perFetch(s.recent), f.cfg.Split)
	}
	s.allotRe, s.allotDisc = f.cfg.Split.fetches(budget, s.share)
	return s.allotRe, s.allotDisc, nil
}

// refetchGain is Σ max(0, ΔQ_A) the index measured on the re-fetches of
// urls in [start, end) (a measurement's At is its copy's fetch time).
// A re-fetch that found no change has no measurement and gained 0;
// negative measurements count 0, as in the impact model (impact.go).
func (f *Frontier) refetchGain(ctx context.Context, urls []string, start, end time.Time) (float64, error) {
	var sum float64
	seen := make(map[string]bool, len(urls))
	for _, u := range urls {
		if seen[u] {
			continue // a URL's measurements in the period are read once
		}
		seen[u] = true
		ms, err := f.db.DeltaQs(ctx, u)
		if err != nil {
			return 0, fmt.Errorf("frontier: ΔQ_A of %s: %w", u, err)
		}
		for _, m := range ms {
			if !m.At.Before(start) && m.At.Before(end) {
				sum += max(0, m.Value)
			}
		}
	}
	return sum, nil
}

// gainRates are the two sides' marginal gains per fetch over the recent
// periods; ok is false when a side was allotted no fetch there.
type gainRates struct {
	recrawl, discovery float64
	ok                 bool
}

// perFetch estimates each side's marginal gain per fetch over the recent
// periods. A side that spent less than its shares allotted there gets 0:
// one more fetch for it would have gone unspent (what the discovery plan
// leaves goes to new URLs only, and none were waiting). Otherwise it is
// the side's mean gain per fetch.
func perFetch(recent []periodGain) gainRates {
	var re, disc sideGain
	for _, g := range recent {
		re.value += g.recrawl.value
		re.fetches += g.recrawl.fetches
		re.allotted += g.recrawl.allotted
		disc.value += g.discovery.value
		disc.fetches += g.discovery.fetches
		disc.allotted += g.discovery.allotted
	}
	if re.allotted == 0 || disc.allotted == 0 {
		return gainRates{}
	}
	return gainRates{recrawl: re.marginal(), discovery: disc.marginal(), ok: true}
}

func (s sideGain) marginal() float64 {
	if s.fetches < s.allotted || s.fetches == 0 {
		return 0
	}
	return s.value / float64(s.fetches)
}

// nextShare moves the discovery share toward the side of higher gain per
// fetch by at most split.step of the budget, in proportion to how far
// apart the two gains are, (g_d − g_r)/(g_d + g_r) ∈ [−1, 1], and keeps
// each side at least split.floor of the budget. With no measurement on a
// side, or no gain on either, the share stays.
func nextShare(share float64, g gainRates, c SplitConfig) float64 {
	pool := c.Recrawl + c.Discovery
	if g.ok && g.recrawl+g.discovery > 0 {
		share += c.Step * (g.discovery - g.recrawl) / (g.discovery + g.recrawl)
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
