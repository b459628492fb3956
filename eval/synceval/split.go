package synceval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

// The split sweep (eval.sync.splits): one budget B a week for
// re-downloads chosen by the policy and OD-WIN discovery (thesis ch. 3:
// old pages re-fetched for the new links they reveal, discovery.Stats,
// with its full re-crawls every discovery.full_recrawl_every weeks paid
// from the same share), as frontier.split gives it. A fixed split d
// reserves d·B for discovery and (1 − d)·B for the policy; what discovery
// does not plan goes to first fetches of the new URLs any re-fetch found.
// "adaptive" starts at d = adaptiveStart and moves d each week by the
// gains the index measured (frontier.split.adaptive, frontier/split.go).
// A run with a split crawls in rounds (crawler.RunOptions.Rounds), so its
// results do not depend on eval.sync.crawl_parallel. Each run at a split is
// compared, week by week, with the best fixed split of its policy and
// budget.

// splitAdaptive names the adaptive split in eval.sync.splits.
const splitAdaptive = "adaptive"

// validateSplits checks eval.sync.splits.
func validateSplits(splits []string, pages string) error {
	var errs []error
	for _, s := range splits {
		if s == splitAdaptive {
			continue
		}
		d, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(d) || d < 0 || d > 1 {
			errs = append(errs, fmt.Errorf("eval.sync.splits = %q: each must be a discovery share in [0, 1] or %q", s, splitAdaptive))
		}
	}
	if len(splits) > 0 && pages != "all" {
		errs = append(errs, fmt.Errorf("eval.sync.splits = %v: needs eval.sync.pages = all (%q replays no new page for discovery to find)", splits, pages))
	}
	return errors.Join(errs...)
}

// adaptiveStart is the adaptive split's first discovery share: half the
// budget, as nothing measured yet favours either side; a side that cannot
// spend it is held to what it spends from the next week (frontier/split.go).
const adaptiveStart = 0.5

// adaptiveSplit is frontier.split.adaptive over the whole budget, starting
// from adaptiveStart, with base's step, floor and window.
func adaptiveSplit(base frontier.SplitConfig) frontier.SplitConfig {
	return frontier.SplitConfig{Recrawl: 1 - adaptiveStart, Discovery: adaptiveStart, Adaptive: true,
		Step: base.Step, Floor: base.Floor, Window: base.Window}
}

// frontierSplit is the frontier's split for a run: re-crawl only without
// a split (the thesis's setting), d·B for discovery at a fixed split, or
// the adaptive rule.
func (h *harness) frontierSplit(split string) frontier.SplitConfig {
	switch split {
	case "":
		return frontier.SplitConfig{Recrawl: 1}
	case splitAdaptive:
		return adaptiveSplit(h.cfg.Frontier.Split)
	}
	d, _ := strconv.ParseFloat(split, 64) // validated
	return frontier.SplitConfig{Recrawl: 1 - d, Discovery: d}
}

// splits lists the sweep's splits: "" alone when none is configured.
func (h *harness) splits() []string {
	if len(h.cfg.Splits) == 0 {
		return []string{""}
	}
	return h.cfg.Splits
}

// discoveryWiring gives a run with a split OD-WIN's statistics, rebuilt
// from the yields in its repository (discovery.Load) and fed by the
// crawler's re-fetches, and the index's measure of new pages for the
// adaptive rule (index.Index.ArrivalFunc; the index is opened after the
// frontier, so arrival reads e.ix when called).
//
// Week 0 crawled the whole site: it is the site's full re-crawl (§3.6.4),
// and none follows within the replay (discovery.full_recrawl_every is
// raised to the archive's weeks). A full re-crawl costs every known page,
// which no swept share of B affords every Δ weeks: spread over the share
// it would take all of it for months, leaving OD-WIN's picks and the new
// pages nothing.
func (e *env) discoveryWiring(ctx context.Context, copts *crawler.Options, fopts *frontier.Options) error {
	if e.spec.Split == "" {
		return nil
	}
	dcfg := e.h.cfg.Discovery
	dcfg.FullRecrawlEvery = max(dcfg.FullRecrawlEvery, e.h.c.weeks())
	stats, err := discovery.Load(ctx, e.db, dcfg, week, nil)
	if err != nil {
		return err
	}
	stats.FullRecrawlDone(e.h.c.host, e.h.c.dates[0])
	copts.OnYield = func(x string, y repo.DiscoveryYield) {
		if err := stats.Record(x, y); err != nil && e.yieldErr == nil {
			e.yieldErr = fmt.Errorf("synceval: discovery statistics of %s: %w", x, err)
		}
	}
	fopts.Discoverer = stats
	var arrival func(string) float64
	fopts.Arrival = func(url string) float64 {
		if arrival == nil {
			arrival = e.ix.ArrivalFunc(nil)
		}
		return arrival(url)
	}
	return nil
}

// splitLabel is a split as tables name it.
func splitLabel(split string) string {
	if split == splitAdaptive {
		return "adaptive"
	}
	return "d=" + split
}

// MeanShare is the mean discovery share of B the run's plans used over
// weeks 1..W−1.
func (r RunSummary) MeanShare() float64 {
	if len(r.Shares) < 2 {
		return 0
	}
	var s float64
	for _, x := range r.Shares[1:] {
		s += x
	}
	return s / float64(len(r.Shares)-1)
}

// weeklyMean is the mean of xs over weeks 1..W−1.
func weeklyMean(xs []int) float64 {
	if len(xs) < 2 {
		return 0
	}
	var s int
	for _, x := range xs[1:] {
		s += x
	}
	return float64(s) / float64(len(xs)-1)
}

// SplitMargin is one run of the split sweep against the best fixed split
// of its policy and budget, week by week.
type SplitMargin struct {
	Policy string
	Budget int
	Split  string
	MeanQ  float64
	// BestFixed is the fixed split with the highest mean Q at the policy
	// and budget; Margin is this run against it (zero for itself).
	BestFixed string
	Margin    Margin
	// MeanShare, NewPerWeek and DiscPerWeek are the mean discovery share
	// of B planned, first fetches and discovery re-fetches per week.
	MeanShare, NewPerWeek, DiscPerWeek float64
}

// splitMargins pairs every run of the split sweep with the best fixed
// split of its policy and budget; nil without a split sweep.
func splitMargins(best []RunSummary) []SplitMargin {
	var out []SplitMargin
	for _, r := range best {
		if r.Split == "" {
			continue
		}
		var base *RunSummary
		for i, o := range best {
			if o.Policy == r.Policy && o.Budget == r.Budget && o.Split != "" && o.Split != splitAdaptive &&
				(base == nil || o.MeanQ > base.MeanQ) {
				base = &best[i]
			}
		}
		m := SplitMargin{Policy: r.Policy, Budget: r.Budget, Split: r.Split, MeanQ: r.MeanQ,
			MeanShare: r.MeanShare(), NewPerWeek: weeklyMean(r.NewFetched) / float64(r.runs()), DiscPerWeek: weeklyMean(r.DiscFetched) / float64(r.runs())}
		if base != nil {
			m.BestFixed = splitLabel(base.Split)
			m.Margin, _ = weekByWeek(r, *base)
		}
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b SplitMargin) int {
		if c := strings.Compare(a.Policy, b.Policy); c != 0 {
			return c
		}
		return a.Budget - b.Budget
	})
	return out
}

// splitTable renders the split sweep: per policy and budget, every split's
// mean Q and its paired margin over the best fixed split.
func (h *harness) splitTable(sum *Summary) *report.Table {
	t := report.NewTable("Re-crawl vs discovery: one budget B split between the policy and OD-WIN discovery",
		"policy", "B", "split", "mean Q", "vs best fixed", "mean ΔQ", "s.e.", "ΔQ / s.e.", "weeks ahead",
		"discovery share", "first fetches/week", "discovery re-fetches/week")
	for _, m := range sum.SplitMargins {
		vs, diff, se, z, ahead := "", "—", "—", "—", "—"
		switch {
		case m.BestFixed == "":
			vs = "no fixed split swept"
		case m.BestFixed == splitLabel(m.Split):
			vs = "(best fixed)"
		default:
			vs = m.BestFixed
			diff, se = fmt.Sprintf("%+.6f", m.Margin.Diff), fmt.Sprintf("%.6f", m.Margin.StdErr)
			if m.Margin.StdErr > 0 {
				z = fmt.Sprintf("%+.1f", m.Margin.Diff/m.Margin.StdErr)
			}
			ahead = fmt.Sprintf("%d of %d", m.Margin.Ahead, m.Margin.Weeks)
		}
		t.Add(m.Policy, m.Budget, splitLabel(m.Split), q(m.MeanQ), vs, diff, se, z, ahead,
			fmt.Sprintf("%.3f", m.MeanShare), fmt.Sprintf("%.1f", m.NewPerWeek), fmt.Sprintf("%.1f", m.DiscPerWeek))
	}
	fs := h.cfg.Frontier.Split
	t.Note("d = the share of B reserved each week for OD-WIN discovery re-fetches (at most discovery.per_site = %d picks a week; "+
		"week 0's complete crawl is the site's full re-crawl, and none follows: one every %d weeks would cost the whole site, more than B); the policy re-crawls (1 − d)·B; what "+
		"discovery does not plan goes to first fetches of the new URLs the re-fetches found. adaptive: frontier.split.adaptive, "+
		"starting at d = %g, moving d by at most %g a week toward the side whose last fetches (the later half in plan order) gained more per fetch over the last %d weeks "+
		"(ΔQ_A of re-fetches; what new pages' first indexing added), a side that left its share unspent held to the most it spent in those weeks, d in [%g, %g]. "+
		"ΔQ: the run's Q minus the best fixed split's, "+
		"paired week by week over weeks 1–%d; s.e.: the weekly differences' standard deviation over √weeks, "+
		"for a policy run with several seeds combined with their spread as in the margins table.",
		h.cfg.Discovery.PerSite, h.cfg.Discovery.FullRecrawlEvery, adaptiveStart, fs.Step, fs.Window, fs.Floor, 1-fs.Floor, h.c.weeks()-1)
	return t
}
