package relation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/internal/postings"
)

// ProbeOptions bound GreedyProbes (Alg. 2).
type ProbeOptions struct {
	Interface Interface
	Method    Method
	// MaxKeywords is the largest keyword subset tried as one query; §5.1
	// found 2 sufficient. 1 or 2.
	MaxKeywords int
	// Pool is how many keywords, the most frequent among the tuples not
	// yet covered, form candidate queries each iteration: the paper's
	// keyword set size k of Figs. 3–5. It bounds the candidates to
	// Pool + Pool·(Pool−1)/2.
	Pool int
	// Cost is the denominator of Eq. 2: PerServerTuple divides by
	// |R_S(q)| as the paper prints it; PerRequest by p·N(q), the tuples
	// the requests actually transmit, which equals |R_S(q)| in the paper's
	// continuous N(q) = |R_S(q)|/p and differs by the rounding up to whole
	// pages, which dominates when most queries fit one page.
	Cost Cost
	// MaxProbes and MaxRequests are the stopping quotas of Alg. 2 (zero:
	// none); without them it stops when every tuple is covered or no
	// candidate covers another.
	MaxProbes   int
	MaxRequests int
}

// Validate names the field, the value and the limit.
func (o ProbeOptions) Validate() error {
	if err := o.Interface.Validate(); err != nil {
		return err
	}
	switch {
	case o.Method != AllPages && o.Method != FirstPage:
		return fmt.Errorf("relation: method = %d: must be 1 or 2", int(o.Method))
	case o.MaxKeywords < 1 || o.MaxKeywords > 2:
		return fmt.Errorf("relation: max keywords = %d: must be 1 or 2", o.MaxKeywords)
	case o.Pool < 1:
		return fmt.Errorf("relation: keyword pool = %d: must be >= 1", o.Pool)
	case o.MaxProbes < 0 || o.MaxRequests < 0:
		return fmt.Errorf("relation: max probes = %d, max requests = %d: must be >= 0", o.MaxProbes, o.MaxRequests)
	}
	return nil
}

// Cost is the denominator of Eq. 2.
type Cost int

const (
	PerServerTuple Cost = iota // |R_S(q)|, Eq. 2 as printed
	PerRequest                 // p·N(q)
)

// Probe is one chosen keyword query.
type Probe struct {
	Keywords []string
	// Tuples are the indices of the tuples this probe is the first to
	// cover: the group g_i of §4.3, disjoint across a plan's probes.
	Tuples []int
	// Matches is |R_L(q)|, every local tuple holding all the keywords.
	Matches int
	// Server is the estimate of |R_S(q)|.
	Server float64
	// Requests is N(q) under the plan's method.
	Requests int
	// ExpectedCoverage is E_coverage(q) of §5.1 over the group.
	ExpectedCoverage float64
	// Efficiency is the Eq. 2 value the probe was chosen with.
	Efficiency float64
}

// Query returns the probe's keywords as one query string.
func (p *Probe) Query() string { return strings.Join(p.Keywords, " ") }

// Plan is GreedyProbes' answer and its §5.1 measures.
type Plan struct {
	Probes   []Probe
	Requests int // Σ N(q)
	Covered  int // |∪ R_L(q)| over the groups
	// CoverageRatio is Σ E_coverage(q) / |L|.
	CoverageRatio float64
	// Speedup is the ID fetches the tuples the plan expects to reach
	// would need over the keyword requests it sends, Σ E_coverage(q) /
	// Σ N(q). The paper prints Σ N(q) / |∪ R_L(q)| but describes the
	// inverse (higher is better), and counts every group tuple as reached;
	// the expected coverage does not credit Method 2 or the result cap K
	// with tuples they cannot return.
	Speedup float64
}

// GreedyProbes is Alg. 2 with the query-efficiency heuristic of Eq. 2:
// starting from R_nc = L, repeatedly pick, from single keywords and pairs
// of the Pool most frequent keywords of R_nc, the query maximising
//
//	Σ_{r ∈ R_L(q) ∩ R_nc} w(r)·F(r;t)·reach(q) / |R_S(q)|
//
// where reach(q) is the fraction of the server hits the method reads (1
// under Method 1 below the result cap), then remove its tuples from R_nc.
// Under Method 1 a query matching more than K server tuples is not a
// candidate: its pages cannot all be read, which Method 1 assumes. Under
// Method 2 the chosen query's tuples leave R_nc as Alg. 2 prints it, and
// the plan's coverage counts them at their expected p/|R_S(q)|.
// When every remaining tuple has F = 0 (just synchronised, or λ = 0) the
// weights alone break the tie, the paper's unweighted |R_L(q)|/|R_S(q)|
// with w. Candidates the estimator has no count for are skipped.
func GreedyProbes(tuples []Tuple, now float64, est ServerCoverage, o ProbeOptions) (Plan, error) {
	if err := o.Validate(); err != nil {
		return Plan{}, err
	}
	g := newGreedy(tuples, now, est, o)
	for o.MaxProbes == 0 || len(g.plan.Probes) < o.MaxProbes {
		best, ok := g.pick()
		if !ok {
			break
		}
		g.take(best)
	}
	g.finish()
	return g.plan, nil
}

type greedy struct {
	tuples   []Tuple
	opts     ProbeOptions
	est      ServerCoverage
	prio     []float64
	postings postings.Index // keyword → tuple indices
	covered  []bool
	left     int // tuples not covered
	server   map[string]serverHits
	plan     Plan
}

type serverHits struct {
	hits float64
	ok   bool
}

func newGreedy(tuples []Tuple, now float64, est ServerCoverage, o ProbeOptions) *greedy {
	g := &greedy{
		tuples:   tuples,
		opts:     o,
		est:      est,
		prio:     make([]float64, len(tuples)),
		postings: postings.Index{},
		covered:  make([]bool, len(tuples)),
		left:     len(tuples),
		server:   map[string]serverHits{},
	}
	for i := range tuples {
		g.prio[i] = tuples[i].Priority(now)
		g.postings.Add(int32(i), tuples[i].Keywords)
	}
	return g
}

// candidate is one query under evaluation.
type candidate struct {
	keywords []string
	key      string
	group    []int // uncovered tuples it covers
	matches  int
	server   float64
	requests int
	effPrio  float64 // Eq. 2 with w·F
	effW     float64 // Eq. 2 with w, the tie-break
}

func (c *candidate) better(d *candidate) bool {
	if c.effPrio != d.effPrio {
		return c.effPrio > d.effPrio
	}
	if c.effW != d.effW {
		return c.effW > d.effW
	}
	return c.key < d.key
}

// pool returns the Pool keywords occurring most often among the uncovered
// tuples (ties by keyword, for a deterministic plan).
func (g *greedy) pool() []string {
	type kc struct {
		k string
		n int
	}
	var counts []kc
	for k, p := range g.postings {
		n := 0
		for _, i := range p {
			if !g.covered[i] {
				n++
			}
		}
		if n > 0 {
			counts = append(counts, kc{k, n})
		}
	}
	slices.SortFunc(counts, func(a, b kc) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.k, b.k)
	})
	if len(counts) > g.opts.Pool {
		counts = counts[:g.opts.Pool]
	}
	out := make([]string, len(counts))
	for i, c := range counts {
		out[i] = c.k
	}
	return out
}

// pick returns the most efficient candidate that covers a new tuple and
// fits the remaining request budget.
func (g *greedy) pick() (candidate, bool) {
	if g.left == 0 {
		return candidate{}, false
	}
	var best candidate
	found := false
	consider := func(kws []string, matches []int32) {
		c, ok := g.evaluate(kws, matches)
		if ok && (!found || c.better(&best)) {
			best, found = c, true
		}
	}
	pool := g.pool()
	for i, a := range pool {
		consider([]string{a}, g.postings[a])
		if g.opts.MaxKeywords < 2 {
			continue
		}
		for _, b := range pool[i+1:] {
			if both := g.postings.All([]string{a, b}); len(both) > 0 {
				consider([]string{a, b}, both)
			}
		}
	}
	return best, found
}

// evaluate scores the query kws whose local matches are matches.
func (g *greedy) evaluate(kws []string, matches []int32) (candidate, bool) {
	c := candidate{keywords: kws, key: QueryKey(kws), matches: len(matches)}
	var gainPrio, gainW float64
	for _, i := range matches {
		if !g.covered[i] {
			c.group = append(c.group, int(i))
			gainPrio += g.prio[i]
			gainW += g.tuples[i].Weight
		}
	}
	if len(c.group) == 0 {
		return c, false
	}
	sh, seen := g.server[c.key]
	if !seen {
		sh.hits, sh.ok = g.est.Hits(kws)
		g.server[c.key] = sh
	}
	if !sh.ok {
		return c, false
	}
	c.server = max(sh.hits, float64(len(matches)))
	if g.opts.Method == AllPages && c.server > float64(g.opts.Interface.MaxResults) {
		return c, false
	}
	c.requests = g.opts.Interface.Requests(g.opts.Method, c.server)
	if g.opts.MaxRequests > 0 && g.plan.Requests+c.requests > g.opts.MaxRequests {
		return c, false
	}
	reach := g.opts.Interface.reachFraction(g.opts.Method, c.server, len(matches))
	cost := c.server
	if g.opts.Cost == PerRequest {
		cost = float64(g.opts.Interface.PageSize * c.requests)
	}
	c.effPrio = gainPrio * reach / cost
	c.effW = gainW * reach / cost
	return c, true
}

func (g *greedy) take(c candidate) {
	for _, i := range c.group {
		g.covered[i] = true
	}
	g.left -= len(c.group)
	g.plan.Covered += len(c.group)
	g.plan.Probes = append(g.plan.Probes, Probe{
		Keywords:         c.keywords,
		Tuples:           c.group,
		Matches:          c.matches,
		Server:           c.server,
		Requests:         c.requests,
		ExpectedCoverage: g.opts.Interface.ExpectedCoverage(g.opts.Method, len(c.group), c.server),
		Efficiency:       c.effPrio,
	})
	g.plan.Requests += c.requests
}

func (g *greedy) finish() {
	var cov float64
	for _, p := range g.plan.Probes {
		cov += p.ExpectedCoverage
	}
	if len(g.tuples) > 0 {
		g.plan.CoverageRatio = cov / float64(len(g.tuples))
	}
	if g.plan.Requests > 0 {
		g.plan.Speedup = cov / float64(g.plan.Requests)
	}
}
