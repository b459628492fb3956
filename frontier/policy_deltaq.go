package frontier

import (
	"context"
	"hash/fnv"
	"iter"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// DeltaQ re-fetches the pages whose re-download is expected to change
// what users see the most (thesis §4.5–4.7), estimated online from the
// crawler's own observations (doc.go derives the estimate).
//
// Each period it scores every candidate p by
//
//	E[ΔQ_A(p, t)] = P(p changed since LR(p, t)) · E[ΔQ_A | a change]
//
// with both factors posteriors pooled over alike pages (changemodel.go,
// impact.go), and ranks them by that gain times the periods since LR
// (priority). With Exploration "thompson" the change rate is one draw
// from its posterior (Thompson sampling: Thompson, Biometrika 1933; Russo
// et al., "A tutorial on Thompson sampling", 2018), so pages whose rate is
// uncertain are revisited; with "mean", its posterior mean (no
// exploration, the setting when the estimates do not depend on the
// policy's own re-downloads); with "untried", a draw for the pages no
// re-fetch has tested yet and the posterior mean for the rest. Only the
// rate is drawn (doc.go says why).
// A page not re-fetched for MaxInterval goes first, oldest first,
// whatever its score (thesis §7.2: a page never re-fetched never changes
// its estimate); the bound holds whenever C/N periods fit in it, C the
// candidates.
//
// Changes says how the changes since LR add up. With "overwrite" a copy
// replaced after several changes gains what the last one is worth:
// E[ΔQ_A] = P(N ≥ 1)·m, N the changes since LR and m the impact of one.
// With "accumulate" each change moves a different part of the page and
// the stale copy drifts further with each: E[ΔQ_A] = E[N]·m = E[λ]·(t −
// LR)·m, the thesis's δQ_A(p)·(t − LR) with δQ_A = λ·m (§4.7.1), and a
// change known from a sitemap counts E[N | N ≥ 1] = λa/(1 − e^(−λa)).
// Under overwrite, pages that change every period all gain m, and only
// their wait (priority) orders them.
//
// With SitemapLastMod, the sitemaps (and feeds: every XML candidate) are
// re-fetched each period, oldest first, with at most a quarter of the
// picks, and a page's <lastmod> is evidence: a date after LR(p, t) means
// the page changed (P = 1), and a sitemap read after LR(p, t) that does
// not list a newer date means it did not change until then.
type DeltaQ struct {
	Window         int           // changes whose ΔQ_A the impact posterior uses (the latest)
	SitemapLastMod bool          // read sitemaps' <lastmod> (re-fetching them each period)
	Exploration    string        // "thompson", "untried" or "mean"
	Changes        string        // "accumulate" or "overwrite"
	MaxInterval    time.Duration // longest time between re-fetches; 0: none
	Seed           uint64        // Thompson draws: a function of Seed, URL and period
	Importance     Importance    // a page's stake in the workload; nil: every page 1
}

// ChangeModels lists the values of frontier.changes.
func ChangeModels() []string { return []string{"accumulate", "overwrite"} }

// Explorations lists the values of frontier.exploration.
func Explorations() []string { return []string{"thompson", "untried", "mean"} }

// draws reports whether a page of evidence ev is ranked by a draw of its
// change rate rather than by its posterior mean.
func (d *DeltaQ) draws(ev evidence) bool {
	return d.Exploration == "thompson" || d.Exploration == "untried" && ev.empty()
}

// Name implements Policy.
func (*DeltaQ) Name() string { return "deltaq" }

// isFeed reports whether a page is a sitemap or feed (an XML document the
// crawler reads entries from) rather than a page users search.
func isFeed(p repo.Page) bool { return strings.Contains(p.ContentType, "xml") }

// sitemapEvidence adds what the sitemaps say about p since its last fetch
// to ev and returns the part of its age they leave open and whether they
// show a change. seen is when its host's sitemaps were last read.
func sitemapEvidence(p repo.Page, seen time.Time, now time.Time, period time.Duration, ev *evidence) (open float64, changed bool) {
	periods := func(d time.Duration) float64 { return d.Seconds() / period.Seconds() }
	lm, lr := p.SitemapLastMod, p.LastFetch
	open = periods(now.Sub(lr))
	switch {
	case lm.IsZero() || !seen.After(lr):
	case lm.After(lr):
		ev.changed = append(ev.changed, periods(lm.Sub(lr)))
		if seen.After(lm) {
			ev.quiet += periods(seen.Sub(lm))
		}
		return open, true
	default:
		ev.quiet += periods(seen.Sub(lr))
		open = periods(now.Sub(seen))
	}
	return open, false
}

// pageView is what a plan reads about one candidate.
type pageView struct {
	page repo.Page
	ev   evidence
	obs  impactObservations
	// open is the part of the time since LR no sitemap has spoken for;
	// changed says a sitemap's <lastmod> shows a change since LR.
	open    float64
	changed bool
}

// view reads a candidate's fetch log and ΔQ_A measurements.
func (d *DeltaQ) view(ctx context.Context, plan Plan, pages Pages, p repo.Page, seen map[string]time.Time) (pageView, error) {
	log, err := pages.FetchLog(ctx, p.URL)
	if err != nil {
		return pageView{}, err
	}
	ms, err := pages.DeltaQs(ctx, p.URL)
	if err != nil {
		return pageView{}, err
	}
	lastMod, _ := http.ParseTime(p.LastModified)
	v := pageView{page: p}
	v.ev, v.obs = observe(log, ms, lastMod, d.Window, plan.Period)
	v.obs.stake = importanceOf(d.Importance, p.URL)
	v.open = plan.periods(p.LastFetch)
	if d.SitemapLastMod {
		v.open, v.changed = sitemapEvidence(p, seen[urlnorm.Host(p.URL)], plan.Now, plan.Period, &v.ev)
	}
	return v, nil
}

// views yields the view of every candidate but the feeds.
func (d *DeltaQ) views(ctx context.Context, plan Plan, pages Pages, seen map[string]time.Time) iter.Seq2[pageView, error] {
	return func(yield func(pageView, error) bool) {
		for p, err := range pages.Candidates(ctx) {
			if err != nil {
				yield(pageView{}, err)
				return
			}
			if isFeed(p) {
				continue
			}
			v, err := d.view(ctx, plan, pages, p, seen)
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// deltaqFit is what a plan learns from every candidate before it scores
// any: when each host's sitemaps were last read, the stake classes, the
// period's sitemap re-reads, the pooled change-rate priors and the impact
// prior.
type deltaqFit struct {
	seen   map[string]time.Time
	stakes stakeClasses
	feeds  []string
	grid   rateGrid
	pool   *ratePool
	impact impactPrior
}

// fit reads the candidates twice, streaming: the sitemaps and stakes,
// then every page's evidence, pooled.
func (d *DeltaQ) fit(ctx context.Context, plan Plan, pages Pages) (*deltaqFit, error) {
	f := &deltaqFit{seen: map[string]time.Time{}, grid: newRateGrid()}
	feeds := newTopN(0)
	if d.SitemapLastMod {
		feeds = newTopN(plan.N / 4)
	}
	for p, err := range pages.Candidates(ctx) {
		if err != nil {
			return nil, err
		}
		if !isFeed(p) {
			f.stakes.add(importanceOf(d.Importance, p.URL))
			continue
		}
		h := urlnorm.Host(p.URL)
		f.seen[h] = clock.Later(f.seen[h], p.LastFetch)
		feeds.offer(p.URL, plan.periods(p.LastFetch), 0)
	}
	f.feeds = feeds.urls()
	f.pool = newRatePool(f.grid)
	var impacts impactFit
	for v, err := range d.views(ctx, plan, pages, f.seen) {
		if err != nil {
			return nil, err
		}
		f.pool.add(v.page.URL, f.stakes.class(v.obs.stake), v.ev)
		impacts.add(v.obs)
	}
	f.impact = impacts.prior()
	return f, nil
}

// posterior writes the change-rate posterior of a viewed page into post
// and returns its impact posterior.
func (f *deltaqFit) posterior(v pageView, post []float64) impactPosterior {
	prior := f.pool.prior(v.page.URL, f.stakes.class(v.obs.stake))
	if id := f.pool.liks.add(v.ev); id >= 0 {
		posterior(prior, f.pool.liks.vecs[id], post)
	} else {
		copy(post, prior)
	}
	return f.impact.posterior(v.obs)
}

// meanChanges is what the changes since LR count for at the posterior
// mean: P(N ≥ 1) under overwrite unless a change is known, else E[N].
func (d *DeltaQ) meanChanges(g rateGrid, post []float64, v pageView) float64 {
	if d.Changes == "overwrite" && !v.changed {
		return g.changeProbability(post, v.open)
	}
	return d.changes(g.meanRate(post), v.open, v.changed)
}

// Select implements Policy. It reads the candidates three times (fit,
// then every page's score), streaming, so its memory is the pooled fits
// and the N picks, not the candidates (BenchmarkPlanDeltaQ).
func (d *DeltaQ) Select(ctx context.Context, plan Plan, pages Pages) ([]string, error) {
	f, err := d.fit(ctx, plan, pages)
	if err != nil {
		return nil, err
	}
	bound := d.bound(plan)
	post := make([]float64, gridSize)
	top := newTopN(plan.N - len(f.feeds))
	src := rand.NewPCG(0, 0)
	rng := rand.New(src)
	period := uint64(plan.Now.UnixNano())
	for v, err := range d.views(ctx, plan, pages, f.seen) {
		if err != nil {
			return nil, err
		}
		p := v.page
		impact := f.posterior(v, post).mean()
		age := plan.periods(p.LastFetch)
		var changes float64
		switch {
		case age >= bound:
			top.offer(p.URL, math.Inf(1), age)
			continue
		case d.draws(v.ev):
			src.Seed(d.Seed^urlHash(p.URL), period)
			lambda := f.grid.sample(post, rng.Float64(), rng.Float64())
			changes = d.changes(lambda, v.open, v.changed)
		default:
			changes = d.meanChanges(f.grid, post, v)
		}
		top.offer(p.URL, priority(changes*impact, v.open), age)
	}
	return append(f.feeds, top.urls()...), nil
}

// priority is what a plan ranks a page by: its expected gain from a
// re-fetch now times the periods its copy has been open to change, so
// that a page comes back at intervals ∝ 1/√(λ·m) (doc.go says why).
func priority(gain, open float64) float64 { return gain * open }

// bound is MaxInterval in periods (+Inf without one).
func (d *DeltaQ) bound(plan Plan) float64 {
	if d.MaxInterval <= 0 {
		return math.Inf(1)
	}
	return d.MaxInterval.Seconds() / plan.Period.Seconds()
}

// Posterior is what the deltaq policy believes of one page at a plan: the
// posterior means its score is made of (doc.go).
type Posterior struct {
	Rate        float64 // E[λ_p], changes per period
	Open        float64 // periods since LR that no sitemap speaks for
	KnownChange bool    // a sitemap's <lastmod> shows a change since LR
	// Changes is E[N] under frontier.changes accumulate, P(N ≥ 1) under
	// overwrite (1 when a change is known).
	Changes float64
	Stake   float64 // the page's stake in the workload (Importance)
	Impact  float64 // E[m], the expected ΔQ_A of one change
	// Score is Changes·Impact, the page's expected ΔQ_A from a re-fetch
	// now.
	Score float64
	// Priority is Score·Open, what the plan ranks by at the posterior
	// means (Thompson sampling draws the change rate around its mean).
	Priority float64
	// Overdue: not re-fetched for frontier.max_interval, so it goes first.
	Overdue bool
	// Drawn: the plan ranks the page by a draw of its change rate
	// (exploration thompson, or untried and never re-fetched).
	Drawn bool
}

// Explain fits the plan's priors over pages and returns the posterior of
// the candidate url; ok is false when url is not a candidate (never
// fetched, a sitemap or feed, or queued already).
func (d *DeltaQ) Explain(ctx context.Context, plan Plan, pages Pages, url string) (post Posterior, ok bool, err error) {
	f, err := d.fit(ctx, plan, pages)
	if err != nil {
		return Posterior{}, false, err
	}
	for p, err := range pages.Candidates(ctx) {
		if err != nil {
			return Posterior{}, false, err
		}
		if p.URL != url || isFeed(p) {
			continue
		}
		v, err := d.view(ctx, plan, pages, p, f.seen)
		if err != nil {
			return Posterior{}, false, err
		}
		rates := make([]float64, gridSize)
		imp := f.posterior(v, rates)
		post = Posterior{Rate: f.grid.meanRate(rates), Open: v.open, KnownChange: v.changed,
			Changes: d.meanChanges(f.grid, rates, v), Stake: v.obs.stake, Impact: imp.mean(),
			Overdue: plan.periods(p.LastFetch) >= d.bound(plan), Drawn: d.draws(v.ev)}
		post.Score = post.Changes * post.Impact
		post.Priority = priority(post.Score, post.Open)
		return post, true, nil
	}
	return Posterior{}, false, nil
}

// changes is what the changes since LR count for at rate lambda over
// open periods (known tells a change is known): P(N ≥ 1) under
// overwrite, E[N] under accumulate, each given N ≥ 1 when known.
func (d *DeltaQ) changes(lambda, open float64, known bool) float64 {
	x := lambda * open
	switch {
	case d.Changes == "overwrite" && known:
		return 1
	case d.Changes == "overwrite":
		return -math.Expm1(-x)
	case known && x > 1e-9:
		return x / -math.Expm1(-x)
	case known:
		return 1
	}
	return x
}

// urlHash is FNV-1a of a URL: the per-page Thompson streams depend on the
// URL alone, the same in every process and in any candidate order.
func urlHash(u string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(u))
	return h.Sum64()
}

// Estimate is a page's thesis estimate δQ_A(p) (§4.7.1) and how it was
// obtained, for `page explain` and fig. 4.3's forecastability check.
type Estimate struct {
	Rate      float64 // δQ_A(p), ΔQ_A per period
	Measured  bool    // from the page's own re-downloads (else a prior)
	Samples   int     // |R(p)|
	LastFetch time.Time
}

// Priority is P(p, t) = δQ_A(p)·(t − LR(p, t)) at plan.Now.
func (e Estimate) Priority(plan Plan) float64 { return e.Rate * plan.periods(e.LastFetch) }

// EstimateOf computes δQ_A(p) from a page's fetch log and ΔQ_A
// measurements (measurement At equals the fetch time of the copy it
// measured). ok is false when the page has no re-download in the window.
func EstimateOf(log []repo.FetchRecord, ms []repo.DeltaQ, window int, period time.Duration) (Estimate, bool) {
	byFetch := make(map[int64]float64, len(ms))
	for _, m := range ms {
		byFetch[m.At.UnixNano()] += m.Value
	}
	var e Estimate
	var sum float64
	var prev time.Time
	var terms []float64
	for _, r := range log {
		if r.Outcome != repo.OutcomeOK && r.Outcome != repo.OutcomeNotModified {
			continue
		}
		if !prev.IsZero() {
			gap := r.At.Sub(prev).Seconds() / period.Seconds()
			if gap > 0 {
				terms = append(terms, byFetch[r.At.UnixNano()]/gap)
			}
		}
		prev = r.At
		e.LastFetch = r.At
	}
	if len(terms) > window {
		terms = terms[len(terms)-window:]
	}
	for _, t := range terms {
		sum += t
	}
	e.Samples = len(terms)
	if e.Samples == 0 {
		return e, false
	}
	e.Rate = sum / float64(e.Samples)
	e.Measured = true
	return e, true
}
