package frontier

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// The change model: a posterior over each page's Poisson change rate λ,
// in changes per period, pooled across alike pages by empirical Bayes.
//
// λ lives on a fixed log-spaced grid (rateGrid). A fetch log is a series
// of intervals between two observations of the page (content or a 304),
// each of which found a change or did not, so the likelihood is interval
// censored:
//
//	L(λ) = Π_quiet e^(−λ·I) · Π_changed (1 − e^(−λ·I))
//
// A 304 or an unchanged signature is evidence of no change over its
// interval; a page fetched rarely is not mistaken for one that changes
// rarely. The prior is the mixing distribution g over the grid that
// maximizes the marginal likelihood of the pages alike (nonparametric
// empirical Bayes: Laird, "Nonparametric maximum likelihood estimation of
// a mixing distribution", JASA 1978; Efron, "Empirical Bayes deconvolution
// estimates", Biometrika 2016), fitted by EM at four levels: all pages,
// each host, each stake class of a host, and each URL directory (host and
// path up to its last '/') within a stake class. Each level is shrunk
// toward the one above by poolPseudoPages pseudo-pages (a Dirichlet prior
// on g), so a directory with two observed pages mostly keeps its class's
// prior and one with hundreds speaks for itself.
//
// The stake class (stakeClasses) is there because a page's stake in the
// workload, known before any re-fetch, tells something of how often it
// changes, though not in one direction (synceval's BenchmarkStakeChanges,
// over the week-0 stakes and the year's true changes): on tldr-en the
// pages that rank for no query changed 0.35 times on average, the first
// nine tenths by stake 0.46 to 0.75 each and the top tenth 1.09; on
// digitalgov-2023 the pages without a stake 0.03 times, the lowest tenth
// 0.31, the third and fourth 5.2 and 5.3 (54 of the 97 pages that changed
// in 40 or more of the 47 weeks) and the top tenth 0.47. Spearman's
// correlation says little of that (0.15 and 0.06): hence classes, not a
// slope.

const (
	gridSize = 40
	gridMin  = 1.0 / 2048 // λ, changes per period: once in ~40 years of weeks
	gridMax  = 16.0
	// poolPseudoPages is the weight, in pages, of the level above in a
	// group's prior.
	poolPseudoPages = 8
	emIterations    = 30
)

// rateGrid is the support of the change-rate posteriors: λ_k per period,
// log-spaced from gridMin to gridMax.
type rateGrid struct {
	lambda []float64
	step   float64 // ln λ_{k+1} − ln λ_k
}

func newRateGrid() rateGrid {
	g := rateGrid{lambda: make([]float64, gridSize), step: math.Log(gridMax/gridMin) / (gridSize - 1)}
	for k := range g.lambda {
		g.lambda[k] = gridMin * math.Exp(g.step*float64(k))
	}
	return g
}

// evidence is what a page's fetch log says about its change rate.
type evidence struct {
	quiet   float64   // summed length, in periods, of intervals with no change
	changed []float64 // lengths, in periods, of intervals that found a change
}

func (e evidence) empty() bool { return e.quiet == 0 && len(e.changed) == 0 }

// likelihood writes L(λ_k) into out, scaled so that its largest value is 1.
func (g rateGrid) likelihood(e evidence, out []float64) {
	top := math.Inf(-1)
	for k, l := range g.lambda {
		ll := -l * e.quiet
		for _, iv := range e.changed {
			ll += math.Log(-math.Expm1(-l * iv))
		}
		out[k] = ll
		top = max(top, ll)
	}
	for k := range out {
		out[k] = math.Exp(out[k] - top)
	}
}

// posterior writes prior·L normalized into out.
func posterior(prior, lik, out []float64) {
	var s float64
	for k := range out {
		out[k] = prior[k] * lik[k]
		s += out[k]
	}
	if s == 0 { // the evidence contradicts the prior's support: fall back to it
		copy(out, prior)
		return
	}
	for k := range out {
		out[k] /= s
	}
}

// changeProbability is P(at least one change in age periods) under the
// posterior post: Σ_k post_k·(1 − e^(−λ_k·age)).
func (g rateGrid) changeProbability(post []float64, age float64) float64 {
	if age <= 0 {
		return 0
	}
	var p float64
	for k, w := range post {
		p -= w * math.Expm1(-g.lambda[k]*age)
	}
	return p
}

// meanRate is the posterior mean of λ.
func (g rateGrid) meanRate(post []float64) float64 {
	var m float64
	for k, w := range post {
		m += w * g.lambda[k]
	}
	return m
}

// sample draws λ from post: a grid point by its weight, then uniformly in
// ln λ within its cell, so draws are not confined to the grid.
func (g rateGrid) sample(post []float64, u1, u2 float64) float64 {
	k := len(post) - 1
	for i, w := range post {
		if u1 < w {
			k = i
			break
		}
		u1 -= w
	}
	return g.lambda[k] * math.Exp((u2-0.5)*g.step)
}

// likelihoods holds the distinct likelihood vectors of a plan's pages:
// pages with the same evidence (most of them, under weekly fetches or
// none) share one, so the fits cost the distinct patterns, not the pages.
type likelihoods struct {
	grid rateGrid
	vecs [][]float64
	ids  map[string]int
	key  []byte
}

func newLikelihoods(g rateGrid) *likelihoods {
	return &likelihoods{grid: g, ids: map[string]int{}}
}

// add returns the id of e's likelihood vector, -1 for no evidence.
func (l *likelihoods) add(e evidence) int {
	if e.empty() {
		return -1
	}
	l.key = binary.LittleEndian.AppendUint64(l.key[:0], math.Float64bits(e.quiet))
	for _, iv := range e.changed {
		l.key = binary.LittleEndian.AppendUint64(l.key, math.Float64bits(iv))
	}
	if id, ok := l.ids[string(l.key)]; ok {
		return id
	}
	v := make([]float64, gridSize)
	l.grid.likelihood(e, v)
	l.vecs = append(l.vecs, v)
	l.ids[string(l.key)] = len(l.vecs) - 1
	return len(l.vecs) - 1
}

// fitMixing returns the grid weights g maximizing
// Σ_i n_i·ln Σ_k g_k·L_ik + κ·Σ_k base_k·ln g_k, by EM: a MAP estimate of
// the mixing distribution of pages whose likelihoods are vecs[i], n_i =
// counts[i] pages each, under a Dirichlet prior of κ pseudo-pages
// distributed as base.
func fitMixing(vecs [][]float64, counts map[int]float64, base []float64, kappa float64) []float64 {
	g := append([]float64(nil), base...)
	if len(counts) == 0 {
		return g
	}
	ids := make([]int, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.Sort(ids) // a fixed summation order: the same sums in every run
	acc := make([]float64, len(g))
	post := make([]float64, len(g))
	for range emIterations {
		for k := range acc {
			acc[k] = kappa * base[k]
		}
		for _, id := range ids {
			posterior(g, vecs[id], post)
			n := counts[id]
			for k := range acc {
				acc[k] += n * post[k]
			}
		}
		var total float64
		for _, a := range acc {
			total += a
		}
		for k := range g {
			g[k] = acc[k] / total
		}
	}
	return g
}

// ratePool fits the change-rate priors of a plan's pages: global → host
// → host and stake class → directory and stake class. add counts every
// page's evidence first; prior then fits each level once, on first use.
type ratePool struct {
	liks   *likelihoods
	all    map[int]float64
	groups map[poolGroup]map[int]float64
	global []float64
	priors map[poolGroup][]float64
}

// poolGroup is a group of pages the pool fits a prior for: a host (class
// −1), a host's stake class, or a directory's.
type poolGroup struct {
	name  string // host or directory
	class int
}

func newRatePool(g rateGrid) *ratePool {
	return &ratePool{liks: newLikelihoods(g), all: map[int]float64{}, groups: map[poolGroup]map[int]float64{}, priors: map[poolGroup][]float64{}}
}

// levels are the groups a page of url and stake class belongs to, the
// widest first.
func levels(url string, class int) [3]poolGroup {
	h := urlnorm.Host(url)
	return [3]poolGroup{{h, -1}, {h, class}, {directory(url), class}}
}

// add counts the evidence of the page at url and returns its likelihood's
// id (-1 for none).
func (p *ratePool) add(url string, class int, e evidence) int {
	id := p.liks.add(e)
	if id < 0 {
		return id
	}
	p.all[id]++
	for _, key := range levels(url, class) {
		if p.groups[key] == nil {
			p.groups[key] = map[int]float64{}
		}
		p.groups[key][id]++
	}
	return id
}

// prior is the change-rate prior of url's directory and stake class.
func (p *ratePool) prior(url string, class int) []float64 {
	if p.global == nil {
		uniform := make([]float64, gridSize)
		for k := range uniform {
			uniform[k] = 1.0 / gridSize
		}
		p.global = fitMixing(p.liks.vecs, p.all, uniform, 1)
	}
	base := p.global
	for _, key := range levels(url, class) {
		g, ok := p.priors[key]
		if !ok {
			g = fitMixing(p.liks.vecs, p.groups[key], base, poolPseudoPages)
			p.priors[key] = g
		}
		base = g
	}
	return base
}

// stakeClasses sorts pages into classes by their stake in the workload,
// for the change-rate priors: class 0 holds the pages without a stake,
// and each other class a factor of 2 of stakes, counted from the
// geometric mean of the positive stakes, the outermost open-ended. A
// factor of 2 and not deciles: the plan learns the classes in the same
// streaming pass that reads the sitemaps, holding two sums.
type stakeClasses struct {
	positive float64 // pages with a positive stake
	logSum   float64 // Σ log₂ stake over them
}

// stakeClassSpan is the number of classes each side of the geometric
// mean: 2⁸ either way leaves 293 of tldr-en's 5,824 pages with a stake
// (0.8 to 6.2e6) and 112 of digitalgov-2023's 4,442 in the open-ended
// classes.
const stakeClassSpan = 8

func (s *stakeClasses) add(stake float64) {
	if stake > 0 {
		s.positive++
		s.logSum += math.Log2(stake)
	}
}

// class is the class of a page of the given stake.
func (s *stakeClasses) class(stake float64) int {
	if stake <= 0 || s.positive == 0 {
		return 0
	}
	c := math.Floor(math.Log2(stake) - s.logSum/s.positive)
	return 1 + stakeClassSpan + int(max(-stakeClassSpan, min(stakeClassSpan, c)))
}

// directory is a URL without its last path segment (and query): the
// group of pages a site's templates usually put side by side.
func directory(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	start := strings.Index(u, "://")
	if start < 0 {
		start = 0
	} else {
		start += 3
	}
	if j := strings.LastIndexByte(u[start:], '/'); j >= 0 {
		return u[:start+j+1]
	}
	return u + "/"
}
