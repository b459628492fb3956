package ranksim

import (
	"context"
	"fmt"
	"math"
)

// visitCurve is F(x) of eq. 5.3, the expected monitored visits per day to a
// page of popularity x, in the symbolic form of §5.6.3:
//
//	log F(x) = α·(log x)² + β·log x + γ   for x > 0,
//
// with F(0) kept as its own number (log 0 has no place on the curve, and
// the zero-awareness pages are a large and special group: the promotion
// pool). Values are clamped to [lo, hi], the visit rates of the last and
// the first rank.
type visitCurve struct {
	F0      float64
	A, B, C float64
	lo, hi  float64
	// table, when set, replaces the quadratic: log F at the grid points
	// x0 + i·dx (in log x), linearly interpolated and held constant beyond
	// the ends. It is the numeric F the quadratic is fitted to.
	table  []float64
	x0, dx float64
}

func (f visitCurve) atLog(lx float64) float64 {
	var y float64
	if f.table != nil {
		u := (lx - f.x0) / f.dx
		switch last := len(f.table) - 1; {
		case u <= 0:
			y = f.table[0]
		case u >= float64(last):
			y = f.table[last]
		default:
			i := int(u)
			w := u - float64(i)
			y = (1-w)*f.table[i] + w*f.table[i+1]
		}
	} else {
		y = f.A*lx*lx + f.B*lx + f.C
	}
	return max(f.lo, min(f.hi, math.Exp(y)))
}

func (f visitCurve) at(x float64) float64 {
	if x <= 0 {
		return f.F0
	}
	return f.atLog(math.Log(x))
}

// Settings of the iterative solution for F (§5.6.3).
const (
	analysisGrid     = 48    // popularity values F is evaluated at per iteration
	analysisMaxIter  = 400   // iterations before giving up
	analysisTol      = 1e-5  // max |Δ log F| over the grid that counts as converged
	analysisEndpoint = 10.0  // fit weight of the two extreme grid points
	analysisDamping  = 0.5   // share of the new fit taken per iteration
	analysisMinDamp  = 0.02  // the damping is halved on divergence, down to this
	tieEpsilon       = 1e-12 // guards floor(m·x/Q) against rounding just below an integer
)

// analysis is the steady state of the §5.6 model for one community and
// ranking policy.
type analysis struct {
	c     Community
	p     Policy
	F     visitCurve
	q     []float64
	logA  []float64 // log(i/m), i = 1..m (index 0 unused)
	theta float64   // θ of eq. 5.5 for monitored visits
	f2tab []float64 // f2 at the integer positions 1..n (index pos−1)
	// uniformShare caches the promoted visits per page under the uniform
	// rule (the pool size r·n does not change); NaN until computed.
	uniformShare float64
	tails        []float64 // per page p, (m+2) entries: Σ_{j≥i} f(a_j | Q_p)
	zero         float64   // z, the expected number of zero-awareness pages
	iters        int
	resid        float64
	conv         bool
	qpc          float64 // absolute QPC of §5.6.2
	damped       float64 // damping in use when it stopped
	// fitErr is the largest |log F_fit − log F_numeric| over the grid in
	// the last iteration: how well the log-log quadratic describes F.
	fitErr float64
}

// analyze solves the §5.6 model: starting from F(x) = x it computes the
// awareness distribution of every page from F (Theorem 2), the expected
// rank and hence visit rate of a page of each popularity from that
// distribution (eq. 5.6 and its selective form F1'), fits the result with
// the log-log quadratic, and repeats until F stops changing.
//
// Theorem 2 is used in the form its proof derives (appendix 9.2, eqs.
// 9.2–9.4): the balance of awareness level a_i gives
//
//	f(a_i) (λ + F(q·a_i)(1 − a_i)) = f(a_{i−1}) F(q·a_{i−1}) (1 − a_{i−1}),
//
// so f(a_i|q) = λ/(λ+F(0)) · Π_{j=1..i} F(q·a_{j−1})(1 − a_{j−1}) /
// (λ + F(q·a_j)(1 − a_j)). Eq. 5.4 as printed has (λ + F(q·a_j))(1 − a_i)
// in the denominator, which drops the λ·a_j term of the balance, does not
// sum to one and is infinite at a = 1.
//
// The uniform rule has no F1 in the thesis ("rather complex, so we omit
// it"); ours: a page is in the pool with probability r, where it shares
// the promoted visits with the r·n other pool pages, and otherwise sits in
// L_d at rank 1 + (1−r)(F1(x) − 1), pushed down by the promoted slots
// above it as in F1'.
//
// With numeric set, F is not fitted: the iteration carries the numeric
// values at the grid points and interpolates between them. Comparing the
// two shows how much the quadratic's shape costs.
func analyze(ctx context.Context, c Community, p Policy, numeric bool) (*analysis, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	p = p.normalized()
	if p.Rule == Ideal {
		return nil, fmt.Errorf("ranksim: the analysis models rankings by popularity, not %s", p)
	}
	n, m := c.Pages, c.Monitored
	a := &analysis{c: c, p: p, q: c.Qualities(), logA: make([]float64, m+1), tails: make([]float64, n*(m+2))}
	for i := 1; i <= m; i++ {
		a.logA[i] = math.Log(float64(i) / float64(m))
	}
	h := 0.0
	for i := 1; i <= n; i++ {
		h += math.Pow(float64(i), -1.5)
	}
	a.theta = c.MonitoredVisits() / h
	a.f2tab = make([]float64, n)
	for i := range a.f2tab {
		a.f2tab[i] = a.theta * math.Pow(float64(i+1), -1.5)
	}
	a.uniformShare = math.NaN()

	xlo, xhi := a.q[n-1]/float64(m), a.q[0]
	gridX := make([]float64, analysisGrid) // log x
	weights := make([]float64, analysisGrid)
	for g := range gridX {
		gridX[g] = math.Log(xlo) + (math.Log(xhi)-math.Log(xlo))*float64(g)/float64(analysisGrid-1)
		weights[g] = 1
	}
	weights[0], weights[analysisGrid-1] = analysisEndpoint, analysisEndpoint
	newY := make([]float64, analysisGrid)

	// F(0) is a fixed point of its own: every page's chance of zero
	// awareness is λ/(λ + F(0)) whatever its quality, so z, and with it
	// F(0), depend on nothing else. Solve it exactly, then iterate the
	// curve from F(x) = x (§5.6.3).
	f0, err := a.solveF0()
	if err != nil {
		return nil, err
	}
	F := visitCurve{F0: f0, A: 0, B: 1, C: 0, lo: 0.5 * a.f2(float64(n)), hi: a.theta}
	first := true
	damp := analysisDamping
	prevResid := math.Inf(1)
	for a.iters = 1; a.iters <= analysisMaxIter; a.iters++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a.F = F
		a.distributions()
		if err := a.newCurve(gridX, newY); err != nil {
			return nil, err
		}
		var next visitCurve
		if numeric {
			next = visitCurve{F0: f0, lo: F.lo, hi: F.hi, table: append([]float64(nil), newY...), x0: gridX[0], dx: gridX[1] - gridX[0]}
		} else {
			A, B, C, err := quadFit(gridX, newY, weights)
			if err != nil {
				return nil, err
			}
			next = visitCurve{F0: f0, A: A, B: B, C: C, lo: F.lo, hi: F.hi}
		}
		a.fitErr = 0
		for g, lx := range gridX {
			a.fitErr = max(a.fitErr, math.Abs(math.Log(next.atLog(lx))-newY[g]))
		}
		// Residual: how far the fitted new curve is from the old one.
		resid := 0.0
		for _, lx := range gridX {
			resid = max(resid, math.Abs(math.Log(next.atLog(lx))-math.Log(F.atLog(lx))))
		}
		a.resid = resid
		if resid < analysisTol && !first {
			a.conv = true
			F = next
			break
		}
		if first {
			F, first = next, false // the first step replaces the initial guess outright
			continue
		}
		if resid > prevResid {
			damp = max(analysisMinDamp, damp/2)
		}
		prevResid = resid
		F = blend(F, next, damp)
	}
	a.iters = min(a.iters, analysisMaxIter)
	a.damped = damp
	a.F = F
	a.distributions()
	a.qpc = a.expectedQPC()
	return a, nil
}

// blend moves curve old a share w of the way to next (in log F, which is
// linear in both the coefficients and the table).
func blend(old, next visitCurve, w float64) visitCurve {
	out := next
	out.A = (1-w)*old.A + w*next.A
	out.B = (1-w)*old.B + w*next.B
	out.C = (1-w)*old.C + w*next.C
	if next.table != nil && old.table != nil {
		out.table = make([]float64, len(next.table))
		for i := range out.table {
			out.table[i] = (1-w)*old.table[i] + w*next.table[i]
		}
	}
	return out
}

// f2 is eq. 5.5 for monitored visits: θ·pos^(−3/2), pos clamped to [1, n].
func (a *analysis) f2(pos float64) float64 {
	pos = max(1, min(float64(a.c.Pages), pos))
	return a.theta * math.Pow(pos, -1.5)
}

// awarenessInto writes f(a_i|q), i = 0..m, for the current F into out.
func (a *analysis) awarenessInto(q float64, out []float64) {
	m := a.c.Monitored
	lam := a.c.Lambda()
	lq := math.Log(q)
	prevF := a.F.F0
	out[0] = lam / (lam + prevF)
	for i := 1; i <= m; i++ {
		Fi := a.F.atLog(lq + a.logA[i])
		up := prevF * (1 - float64(i-1)/float64(m))
		out[i] = out[i-1] * up / (lam + Fi*(1-float64(i)/float64(m)))
		prevF = Fi
	}
}

// distributions computes every page's awareness distribution and its tail
// sums, and z.
func (a *analysis) distributions() {
	m := a.c.Monitored
	f := make([]float64, m+1)
	a.zero = 0
	for p, q := range a.q {
		a.awarenessInto(q, f)
		t := a.tails[p*(m+2) : (p+1)*(m+2)]
		t[m+1] = 0
		for i := m; i >= 0; i-- {
			t[i] = t[i+1] + f[i]
		}
		a.zero += f[0]
	}
}

// rankAbove is F1(x) of eq. 5.6: one plus the expected number of pages
// more popular than x.
func (a *analysis) rankAbove(x float64) float64 {
	m := a.c.Monitored
	r := 1.0
	for p, q := range a.q {
		i := int(math.Floor(float64(m)*x/q+tieEpsilon)) + 1
		if i <= m {
			r += a.tails[p*(m+2)+i]
		}
	}
	return r
}

// promotedMass is the expected monitored visits per day to promoted slots
// when the pool holds pool pages and L_d holds det pages, prot of them
// protected: after the protected slots, a slot is promoted with
// probability r until one list runs out (taking expected counts, as F1'
// does: the pool runs out after pool/r slots, L_d after (det−prot)/(1−r)),
// and from then on always (L_d ran out) or never (the pool ran out). Slot
// j covers [j, j+1) of that schedule, so the mass changes continuously with
// the list sizes.
func (a *analysis) promotedMass(pool, det, prot, r float64) float64 {
	jp, jd := math.Inf(1), math.Inf(1)
	if r > 0 {
		jp = pool / r
	}
	if r < 1 {
		jd = (det - prot) / (1 - r)
	}
	end, after := min(jp, jd), 0.0
	if jd < jp {
		after = 1
	}
	mass := 0.0
	for pos := 1; pos <= a.c.Pages; pos++ {
		j := float64(pos) - prot - 1
		if j < -1 {
			continue
		}
		lo := max(j, 0) // a slot straddling the end of the protected ones counts its unprotected part
		before := max(0, min(end, j+1)-lo)
		rest := max(0, j+1-max(end, lo))
		mass += (r*before + after*rest) * a.f2tab[pos-1]
	}
	return mass
}

// pushed is F1': the position of the L_d entry of rank d after the
// promoted slots above it, at most pool of them.
func pushed(d float64, k int, r, pool float64) float64 {
	if d < float64(k) {
		return d
	}
	if r >= 1 {
		return d + pool
	}
	return d + min(r*(d-float64(k)+1)/(1-r), pool)
}

// zeroVisits is the right-hand side for F(0) when a share lam/(lam+f0) of
// the pages has zero awareness.
func (a *analysis) zeroVisits(f0 float64) float64 {
	n := float64(a.c.Pages)
	lam := a.c.Lambda()
	z := n * lam / (lam + f0)
	aware := n - z
	switch p := a.p; p.Rule {
	case Selective:
		prot := min(float64(p.K-1), aware)
		return a.promotedMass(z, aware, prot, p.R) / z
	case Uniform:
		return a.uniformVisits(1 + aware)
	default:
		// Eq. 5.6 at x = 0: ties ignored, a zero-awareness page ranks
		// right after the aware ones.
		return a.f2(1 + aware)
	}
}

// solveF0 finds F(0) = zeroVisits(F(0)) by bisection on log F(0), after
// scanning for the first sign change.
func (a *analysis) solveF0() (float64, error) {
	h := func(lf float64) float64 { return math.Log(a.zeroVisits(math.Exp(lf))) - lf }
	lo, hi := math.Log(a.f2(float64(a.c.Pages))*1e-6), math.Log(a.theta*1e3)
	const steps = 120
	prev, prevH := lo, h(lo)
	if prevH <= 0 {
		return 0, fmt.Errorf("ranksim: F(0) for %s: no fixed point above %g", a.p, math.Exp(lo))
	}
	for s := 1; s <= steps; s++ {
		x := lo + (hi-lo)*float64(s)/steps
		hx := h(x)
		if hx <= 0 {
			l, r := prev, x
			for range 100 {
				mid := (l + r) / 2
				if h(mid) > 0 {
					l = mid
				} else {
					r = mid
				}
			}
			return math.Exp((l + r) / 2), nil
		}
		prev, prevH = x, hx
	}
	return 0, fmt.Errorf("ranksim: F(0) for %s: no fixed point below %g", a.p, math.Exp(hi))
}

// uniformVisits is F under the uniform rule for a page of popularity rank
// rank among all pages.
func (a *analysis) uniformVisits(rank float64) float64 {
	p := a.p
	n := float64(a.c.Pages)
	pool := p.R * n
	if math.IsNaN(a.uniformShare) {
		det := n - pool
		prot := min(float64(p.K-1), det)
		a.uniformShare = a.promotedMass(pool, det, prot, p.R) / n
	}
	d := 1 + (1-p.R)*(rank-1)
	return (1-p.R)*a.f2(pushed(d, p.K, p.R, pool)) + a.uniformShare
}

// newCurve evaluates the right-hand side for the current distributions:
// log F at the grid's log-popularities.
func (a *analysis) newCurve(gridX, out []float64) error {
	var at func(x float64) float64
	switch p := a.p; p.Rule {
	case Nonrandomized:
		at = func(x float64) float64 { return a.f2(a.rankAbove(x)) }
	case Selective:
		at = func(x float64) float64 { return a.f2(pushed(a.rankAbove(x), p.K, p.R, a.zero)) }
	case Uniform:
		at = func(x float64) float64 { return a.uniformVisits(a.rankAbove(x)) }
	default:
		return fmt.Errorf("ranksim: no analysis for %s", a.p)
	}
	for g, lx := range gridX {
		out[g] = math.Log(at(math.Exp(lx)))
	}
	return nil
}

// expectedQPC is the QPC expression of §5.6.2.
func (a *analysis) expectedQPC() float64 {
	m := a.c.Monitored
	num, den := 0.0, 0.0
	for p, q := range a.q {
		t := a.tails[p*(m+2) : (p+1)*(m+2)]
		for i := 0; i <= m; i++ {
			f := t[i] - t[i+1]
			v := f * a.F.at(q*float64(i)/float64(m))
			num += v * q
			den += v
		}
	}
	return num / den
}

// awareness returns f(a_i|q), i = 0..m (fig. 5.2).
func (a *analysis) awareness(q float64) []float64 {
	out := make([]float64, a.c.Monitored+1)
	a.awarenessInto(q, out)
	return out
}

// evolution returns the expected time at which a new page of quality q
// reaches each awareness level i/m, i = 0..thr: the sum of the expected
// holding times 1/(F(q·a_j)(1 − a_j)) of the levels below (fig. 5.3). The
// last entry is the expected TBP, the time until popularity exceeds 99 %
// of quality (§5.4.2), for a page that lives long enough.
func (a *analysis) evolution(q float64, thr int) []float64 {
	m := a.c.Monitored
	t := make([]float64, thr+1)
	for i := 0; i < thr; i++ {
		ai := float64(i) / float64(m)
		t[i+1] = t[i] + 1/(a.F.at(q*ai)*(1-ai))
	}
	return t
}

func (a *analysis) tbp(q float64, thr int) float64 {
	t := a.evolution(q, thr)
	return t[thr]
}
