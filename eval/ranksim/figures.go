package ranksim

import (
	"fmt"
	"math"
	"slices"

	"github.com/deltaq/deltaq/eval/report"
)

// builder assembles the report: one table and one plot per figure, the
// long-format CSV of every number, the targets and the thesis's claims.
type builder struct {
	e       *experiment
	tables  []*report.Table
	plots   []namedPlot
	csv     *report.Table
	targets []Target
	claims  *report.Table
	sum     *Summary
}

type namedPlot struct {
	file string
	plot report.Plot
}

func newBuilder(e *experiment) *builder {
	return &builder{
		e:      e,
		csv:    report.NewTable("", "figure", "series", "parameter", "x", "metric", "value", "se"),
		claims: report.NewTable("The thesis's statements beside ours", "§", "thesis", "measured here", "holds"),
		sum:    &Summary{},
	}
}

func (b *builder) row(fig, series, param string, x float64, metric string, v, se float64) {
	b.csv.Add(fig, series, param, x, metric, v, se)
}

func (b *builder) claim(sec, thesis, measured string, holds bool) {
	h := "yes"
	if !holds {
		h = "no"
	}
	b.claims.Add(sec, thesis, measured, h)
}

// claimNA records a statement this evaluation does not test.
func (b *builder) claimNA(sec, thesis, why string) {
	b.claims.Add(sec, thesis, why, "n/a")
}

// normQPC returns a run's QPC and its standard error normalized by the
// community's ideal QPC (§5.7.3).
func normQPC(r runResult, c Community) (float64, float64) {
	ideal := IdealQPC(c)
	return r.qpc() / ideal, r.se() / ideal
}

// simTBP is the probes' mean time to become popular: probe-days per
// completion (a renewal-reward estimate that counts the unfinished last
// attempt of every probe), NaN if none became popular.
func simTBP(r runResult) float64 {
	if r.TBPDone == 0 {
		return math.NaN()
	}
	return r.TBPExposure / float64(r.TBPDone)
}

func pct(a, b float64) float64 { return 100 * (a/b - 1) }

func (b *builder) all() {
	b.fig52()
	b.fig53()
	b.fig54()
	b.fig55()
	b.fig56()
	b.sweeps()
	b.fig511()
}

// fig52: steady-state awareness distribution of the best pages (§5.6.2).
func (b *builder) fig52() {
	p := b.e.plan
	c := p.base
	q := c.QualityMax
	t := report.NewTable(fmt.Sprintf("Fig. 5.2: awareness distribution f(a | Q = %g), analysis", q),
		"awareness a", "nonrandomized", "selective k=1 r=0.2")
	pols := []Policy{{Rule: Nonrandomized}, {Rule: Selective, K: 1, R: 0.2}}
	var dists [][]float64
	var series []report.Series
	for _, pol := range pols {
		a := b.e.ana(c, pol, false)
		if a == nil {
			return
		}
		f := a.awareness(q)
		dists = append(dists, f)
		s := report.Series{Name: pol.String(), Style: report.LinesPoints}
		for i, v := range f {
			x := float64(i) / float64(c.Monitored)
			s.X, s.Y = append(s.X, x), append(s.Y, v)
			b.row("5.2", pol.String(), "a", x, "fraction of pages", v, math.NaN())
		}
		series = append(series, s)
	}
	m := c.Monitored
	for _, i := range uniqueInts(0, 1, m/10, m/2, m*9/10, m-1, m) {
		t.Add(float64(i)/float64(m), dists[0][i], dists[1][i])
	}
	t.Note("Steady-state share of the pages of quality %g at each awareness level (Theorem 2 with F solved as in §5.6.3). The thesis: with promotion most such pages spend their lives near full awareness, without it near zero.", q)
	b.tables = append(b.tables, t)
	b.plots = append(b.plots, namedPlot{"fig5_2_awareness", report.Plot{
		Title: "Fig. 5.2: awareness distribution of pages of quality 0.4", X: "awareness a", Y: "fraction of pages f(a|q)", LogY: true, Series: series}})
}

func uniqueInts(xs ...int) []int {
	var out []int
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] < x {
			out = append(out, x)
		}
	}
	return out
}

// fig53: expected popularity evolution of a new page of quality 0.4.
func (b *builder) fig53() {
	c := b.e.plan.base
	q := c.QualityMax
	thr := tbpThreshold(c.Monitored)
	t := report.NewTable(fmt.Sprintf("Fig. 5.3: popularity evolution of a new page of quality %g, analysis (days)", q),
		"ranking", "popularity ≥ 0.1·Q", "≥ 0.5·Q", "> 0.99·Q (TBP)")
	var series []report.Series
	for _, pol := range []Policy{{Rule: Nonrandomized}, {Rule: Uniform, K: 1, R: 0.2}, {Rule: Selective, K: 1, R: 0.2}} {
		a := b.e.ana(c, pol, false)
		if a == nil {
			return
		}
		ts := a.evolution(q, thr)
		s := report.Series{Name: pol.String()}
		for i, day := range ts {
			pop := q * float64(i) / float64(c.Monitored)
			s.X, s.Y = append(s.X, day), append(s.Y, pop)
			b.row("5.3", pol.String(), "days", day, "popularity", pop, math.NaN())
		}
		series = append(series, s)
		at := func(share float64) float64 { return ts[min(thr, int(math.Ceil(share*float64(c.Monitored))))] }
		t.Add(pol.String(), at(0.1), at(0.5), ts[thr])
	}
	t.Note("Expected time for the page's popularity A·Q to reach each level: the sum of the expected holding times 1/(F(Q·a)(1−a)) of the awareness levels below it.")
	b.tables = append(b.tables, t)
	b.plots = append(b.plots, namedPlot{"fig5_3_popularity", report.Plot{
		Title: "Fig. 5.3: popularity evolution of a page of quality 0.4", X: "days since creation", Y: "popularity", LogX: true, Series: series}})
}

// fig54: TBP vs r, analysis beside simulation (§5.7.2).
func (b *builder) fig54() {
	p := b.e.plan
	c := p.base
	q := c.QualityMax
	thr := tbpThreshold(c.Monitored)
	t := report.NewTable(fmt.Sprintf("Fig. 5.4: TBP (days) of a page of quality %g, k = 1", q),
		"r", "selective: analysis", "analysis, numeric F", "simulation", "analysis vs simulation %", "pool z/n: analysis", "simulation",
		"uniform: analysis*", "analysis*, numeric F", "simulation", "analysis* vs simulation %")
	series := map[string]*report.Series{}
	order := []string{"selective: analysis", "selective: analysis, numeric F", "selective: simulation",
		"uniform: analysis*", "uniform: simulation"}
	for _, n := range order {
		style := report.LinesPoints
		if n == "selective: simulation" || n == "uniform: simulation" {
			style = report.Points
		}
		series[n] = &report.Series{Name: n, Style: style}
	}
	add := func(name string, r, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s := series[name]
			s.X, s.Y = append(s.X, r), append(s.Y, v)
		}
	}
	allWithin := true
	var worst float64
	for _, r := range p.rTBP {
		sel := Policy{Rule: Selective, K: 1, R: r}
		uni := Policy{Rule: Uniform, K: 1, R: r}
		selRun := b.e.sim(c, sel, 0)
		simS, simU := simTBP(selRun), simTBP(b.e.sim(c, uni, 0))
		var anS, anSN, anU, anUN, zA = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		if slices.Contains(p.analysisR, r) {
			if a := b.e.ana(c, sel, false); a != nil {
				anS, zA = a.tbp(q, thr), a.zero/float64(c.Pages)
			}
			if a := b.e.ana(c, sel, true); a != nil {
				anSN = a.tbp(q, thr)
			}
			if a := b.e.ana(c, uni, false); a != nil {
				anU = a.tbp(q, thr)
			}
			if a := b.e.ana(c, uni, true); a != nil {
				anUN = a.tbp(q, thr)
			}
		}
		dS, dU := pct(anS, simS), pct(anU, simU)
		t.Add(r, anS, anSN, simS, dS, zA, selRun.ZeroShare, anU, anUN, simU, dU)
		add("selective: analysis", r, anS)
		add("selective: analysis, numeric F", r, anSN)
		add("selective: simulation", r, simS)
		add("uniform: analysis*", r, anU)
		add("uniform: simulation", r, simU)
		for _, nv := range []struct {
			name string
			v    float64
		}{
			{"selective analysis", anS}, {"selective analysis numeric F", anSN}, {"selective simulation", simS},
			{"uniform analysis", anU}, {"uniform analysis numeric F", anUN}, {"uniform simulation", simU},
		} {
			b.row("5.4", nv.name, "r", r, "TBP days", nv.v, math.NaN())
		}
		if r <= 0.2 && !math.IsNaN(anS) {
			within := !math.IsNaN(dS) && math.Abs(dS) <= 15
			allWithin = allWithin && within
			if math.IsNaN(dS) || math.Abs(dS) > math.Abs(worst) {
				worst = dS
			}
			b.sum.TBP = append(b.sum.TBP, TBPPoint{R: r, Analysis: anS, AnalysisNumeric: anSN, Simulation: simS})
		}
	}
	t.Note("TBP: days until popularity exceeds 99 %% of quality (awareness > 0.99, i.e. %d of %d monitored users). Simulation: %d probe pages of quality %g per run, each receiving the visits it would get in the community without taking any (see ghost in sim.go); TBP is probe-days per probe that became popular. Analysis: Σ of expected holding times 1/(F(Q·a_i)(1−a_i)) over the awareness levels, F from §5.6.3 fitted by the log-log quadratic (the thesis's method) or kept numeric. r = 0 is the nonrandomized ranking.", thr, c.Monitored, p.ghosts, q)
	t.Note("Pool z/n: the share of pages with zero awareness, which under selective promotion is the promotion pool. Where promoted visits only just outnumber page births (r·v ≈ nλ, r ≈ %.2f here), the simulated pool behaves like a queue near full load and stays well above the analysis's expected-count value; the promoted slots then push established pages further down than F1' assumes, and the simulated TBP is longer.", c.Lambda()*float64(c.Pages)/c.MonitoredVisits())
	t.Note("* The thesis gives no F1 for the uniform rule; ours treats a page as pooled with probability r (sharing the promoted visits with r·n other pages) and otherwise ranked among the other 1−r.")
	b.tables = append(b.tables, t)
	var ss []report.Series
	for _, n := range order {
		ss = append(ss, *series[n])
	}
	b.plots = append(b.plots, namedPlot{"fig5_4_tbp", report.Plot{
		Title: "Fig. 5.4: TBP of a page of quality 0.4 (k = 1)", X: "degree of randomization r", Y: "TBP (days)", LogY: true, Series: ss}})
	b.targets = append(b.targets, Target{
		Name:     "analytic and simulated TBP agree within 15 % for r ≤ 0.2 (selective, k = 1, log-log quadratic F)",
		Met:      allWithin,
		Measured: fmt.Sprintf("worst difference %+.1f %% (per r in the Fig. 5.4 table)", worst),
	})
}

// fig55: normalized QPC vs r for the three rules (§5.7.3).
func (b *builder) fig55() {
	p := b.e.plan
	c := p.base
	t := report.NewTable("Fig. 5.5: normalized QPC vs r, k = 1, default community",
		"r", "nonrandomized", "uniform", "± se", "selective", "± se", "selective analysis", "analysis, numeric F", "uniform analysis*, numeric F")
	non, nonSE := normQPC(b.e.sim(c, Policy{Rule: Nonrandomized}, 0), c)
	ideal := IdealQPC(c)
	sN := report.Series{Name: "nonrandomized", Style: report.Lines}
	sU := report.Series{Name: "uniform", Style: report.LinesPoints}
	sS := report.Series{Name: "selective", Style: report.LinesPoints}
	sA := report.Series{Name: "selective: analysis, numeric F", Style: report.Lines}
	for _, r := range p.rQPC {
		u, uSE := normQPC(b.e.sim(c, Policy{Rule: Uniform, K: 1, R: r}, 0), c)
		s, sSE := normQPC(b.e.sim(c, Policy{Rule: Selective, K: 1, R: r}, 0), c)
		anS, anSN, anUN := math.NaN(), math.NaN(), math.NaN()
		if slices.Contains(p.analysisR, r) {
			if a := b.e.ana(c, Policy{Rule: Selective, K: 1, R: r}, false); a != nil {
				anS = a.qpc / ideal
			}
			if a := b.e.ana(c, Policy{Rule: Selective, K: 1, R: r}, true); a != nil {
				anSN = a.qpc / ideal
				sA.X, sA.Y = append(sA.X, r), append(sA.Y, anSN)
			}
			if a := b.e.ana(c, Policy{Rule: Uniform, K: 1, R: r}, true); a != nil {
				anUN = a.qpc / ideal
			}
		}
		t.Add(r, non, u, uSE, s, sSE, anS, anSN, anUN)
		sN.X, sN.Y = append(sN.X, r), append(sN.Y, non)
		sU.X, sU.Y = append(sU.X, r), append(sU.Y, u)
		sS.X, sS.Y = append(sS.X, r), append(sS.Y, s)
		b.row("5.5", "nonrandomized", "r", r, "normalized QPC", non, nonSE)
		b.row("5.5", "uniform", "r", r, "normalized QPC", u, uSE)
		b.row("5.5", "selective", "r", r, "normalized QPC", s, sSE)
		b.row("5.5", "selective analysis", "r", r, "normalized QPC", anS, math.NaN())
		b.row("5.5", "selective analysis numeric F", "r", r, "normalized QPC", anSN, math.NaN())
		b.row("5.5", "uniform analysis numeric F", "r", r, "normalized QPC", anUN, math.NaN())
	}
	t.Note("QPC (eq. 5.2) over the measurement window divided by the ideal QPC %.4f of ranking by true quality; ± se is the standard error by batch means (%d batches). Analysis: the QPC expression of §5.6.2.", ideal, qpcBatches)
	b.tables = append(b.tables, t)
	b.plots = append(b.plots, namedPlot{"fig5_5_qpc", report.Plot{
		Title: "Fig. 5.5: QPC vs degree of randomization (k = 1)", X: "degree of randomization r", Y: "normalized QPC",
		Series: []report.Series{sN, sU, sS, sA}}})

	sel1, se1 := normQPC(b.e.sim(c, Policy{Rule: Selective, K: 1, R: 0.1}, 0), c)
	sel2, se2 := normQPC(b.e.sim(c, Policy{Rule: Selective, K: 2, R: 0.1}, 0), c)
	uni1, _ := normQPC(b.e.sim(c, Policy{Rule: Uniform, K: 1, R: 0.1}, 0), c)
	b.sum.QPC = map[string]float64{"nonrandomized": non, "selective k=1 r=0.1": sel1, "selective k=2 r=0.1": sel2, "uniform k=1 r=0.1": uni1}
	for _, x := range []struct {
		k      int
		v, se  float64
		policy string
	}{{1, sel1, se1, "k = 1"}, {2, sel2, se2, "k = 2"}} {
		gain := pct(x.v, non)
		z := (x.v - non) / math.Hypot(x.se, nonSE)
		b.targets = append(b.targets, Target{
			Name:     fmt.Sprintf("selective r = 0.1, %s improves normalized QPC substantially (≥ 20 %%) over nonrandomized, default community", x.policy),
			Met:      gain >= 20 && z > 2,
			Measured: fmt.Sprintf("%.3f vs %.3f: %+.0f %% (%.1f standard errors)", x.v, non, gain, z),
		})
	}
}

// fig56: QPC over (k, r), selective (§5.7.4).
func (b *builder) fig56() {
	p := b.e.plan
	c := p.base
	cols := []string{"k \\ r"}
	for _, r := range p.rGrid {
		cols = append(cols, fmt.Sprintf("%g", r))
	}
	cols = append(cols, "best r")
	t := report.NewTable("Fig. 5.6: normalized QPC, selective promotion, over starting point k and degree r", cols...)
	var series []report.Series
	bestR := make([]float64, len(p.kGrid))
	for ki, k := range p.kGrid {
		row := []any{k}
		s := report.Series{Name: fmt.Sprintf("k = %d", k), Style: report.LinesPoints}
		best := math.Inf(-1)
		for _, r := range p.rGrid {
			v, se := normQPC(b.e.sim(c, Policy{Rule: Selective, K: k, R: r}, 0), c)
			row = append(row, v)
			s.X, s.Y = append(s.X, r), append(s.Y, v)
			b.row("5.6", fmt.Sprintf("selective k=%d", k), "r", r, "normalized QPC", v, se)
			if v > best {
				best, bestR[ki] = v, r
			}
		}
		row = append(row, bestR[ki])
		t.Add(row...)
		series = append(series, s)
	}
	b.tables = append(b.tables, t)
	b.plots = append(b.plots, namedPlot{"fig5_6_qpc_k_r", report.Plot{
		Title: "Fig. 5.6: QPC, selective promotion, by k and r", X: "degree of randomization r", Y: "normalized QPC", Series: series}})
	nondecreasing := true
	for i := 1; i < len(bestR); i++ {
		nondecreasing = nondecreasing && bestR[i] >= bestR[i-1]
	}
	b.claim("5.7.4", "As k grows larger, a higher r is needed to achieve high QPC.",
		fmt.Sprintf("best r by k %v: %v", p.kGrid, bestR), nondecreasing)
}

// sweepDef is one robustness sweep of §5.8.
type sweepDef struct {
	fig, title, param, file string
	xs                      []float64
	community               func(x float64) Community
	logX                    bool
}

func (b *builder) sweeps() {
	p := b.e.plan
	defs := []sweepDef{
		{"5.7", "Fig. 5.7: influence of community size (u = n/10, m = u/10, v_u = u)", "pages n", "fig5_7_size",
			intsToFloats(p.sizes), func(x float64) Community { return p.sizeCommunity(int(x)) }, true},
		{"5.8", "Fig. 5.8: influence of page lifetime", "lifetime l (years)", "fig5_8_lifetime",
			p.lifetimes, p.lifetimeCommunity, true},
		{"5.9", "Fig. 5.9: influence of visit rate (u = v_u, m = u/10)", "visits per day v_u", "fig5_9_visits",
			p.visits, p.visitCommunity, true},
		{"5.10", "Fig. 5.10: influence of the size of the user population (m = u/10)", "users u", "fig5_10_users",
			intsToFloats(p.users), func(x float64) Community { return p.userCommunity(int(x)) }, true},
	}
	var lowered []string
	points := 0
	for _, d := range defs {
		t := report.NewTable(d.title, d.param, "nonrandomized", "± se", "selective k=1 r=0.1", "± se", "gain %",
			"selective k=2 r=0.1", "± se", "gain %")
		series := make([]report.Series, len(recommended))
		for i, pol := range recommended {
			series[i] = report.Series{Name: pol.String(), Style: report.LinesPoints}
		}
		var first, last [3]float64
		var gains [][2]float64
		for xi, x := range d.xs {
			c := d.community(x)
			var v, se [3]float64
			for i, pol := range recommended {
				v[i], se[i] = normQPC(b.e.sim(c, pol, 0), c)
				series[i].X, series[i].Y = append(series[i].X, x), append(series[i].Y, v[i])
				b.row(d.fig, pol.String(), d.param, x, "normalized QPC", v[i], se[i])
			}
			g1, g2 := pct(v[1], v[0]), pct(v[2], v[0])
			gains = append(gains, [2]float64{g1, g2})
			t.Add(x, v[0], se[0], v[1], se[1], g1, v[2], se[2], g2)
			for i := 1; i <= 2; i++ {
				points++
				if v[i]-v[0] < -2*math.Hypot(se[i], se[0]) {
					lowered = append(lowered, fmt.Sprintf("%s at %s = %g (%.3f vs %.3f)", recommended[i], d.param, x, v[i], v[0]))
				}
			}
			if xi == 0 {
				first = v
			}
			last = v
		}
		t.Note("Normalized QPC; gain is the selective ranking's QPC relative to nonrandomized.")
		b.tables = append(b.tables, t)
		b.plots = append(b.plots, namedPlot{d.file, report.Plot{Title: d.title, X: d.param, Y: "normalized QPC", LogX: d.logX, Series: series}})
		n := len(d.xs) - 1
		switch d.fig {
		case "5.7":
			b.claim("5.8.1", "With nonrandomized ranking QPC declines as the community grows; with promotion it stays high and fairly steady.",
				fmt.Sprintf("nonrandomized %.3f → %.3f; selective k=1 %.3f → %.3f (n = %g → %g)", first[0], last[0], first[1], last[1], d.xs[0], d.xs[n]),
				last[0] < first[0] && math.Abs(last[1]-first[1]) < math.Abs(last[0]-first[0]))
		case "5.8":
			b.claim("5.8.2", "The margin of improvement over nonrandomized ranking is greater when pages live longer.",
				fmt.Sprintf("gain k=1 %+.0f %% at l = %g y, %+.0f %% at l = %g y", gains[0][0], d.xs[0], gains[n][0], d.xs[n]),
				gains[n][0] > gains[0][0])
		case "5.9":
			b.claim("5.8.3", "Popularity-based ranking fails when very few visits are made; with very many visits randomization is not needed (but does not hurt much).",
				fmt.Sprintf("nonrandomized %.3f at v_u = %g; gain k=1 %+.0f %% at v_u = %g", first[0], d.xs[0], gains[n][0], d.xs[n]),
				first[0] < last[0] && gains[n][0] > -10)
		case "5.10":
			b.claim("5.8.4", "All three rankings do somewhat worse with a larger user pool; the performance ratios stay about the same.",
				fmt.Sprintf("QPC %.3f/%.3f/%.3f at u = %g, %.3f/%.3f/%.3f at u = %g", first[0], first[1], first[2], d.xs[0], last[0], last[1], last[2], d.xs[n]),
				last[0] <= first[0] && last[1] <= first[1] && last[2] <= first[2])
		}
	}
	measured := fmt.Sprintf("%d of %d sweep points significantly lower (> 2 se)", len(lowered), points)
	if len(lowered) > 0 {
		measured += ": " + fmt.Sprint(lowered)
	}
	b.targets = append(b.targets, Target{
		Name:     "selective r = 0.1, k ∈ {1, 2} never lowers QPC across the §5.8 sweeps",
		Met:      len(lowered) == 0,
		Measured: measured,
	})
	b.claim("5.8", "Across community types, amortized result quality is never harmed by randomized rank promotion.", measured, len(lowered) == 0)
}

func intsToFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// fig511: mixed surfing and searching, absolute QPC (§5.9).
func (b *builder) fig511() {
	p := b.e.plan
	c := p.base
	t := report.NewTable(fmt.Sprintf("Fig. 5.11: absolute QPC with a share x of random surfing (c = %g)", p.teleport),
		"x", "nonrandomized", "± se", "selective k=1 r=0.1", "± se", "selective k=2 r=0.1", "± se")
	series := make([]report.Series, len(recommended))
	for i, pol := range recommended {
		series[i] = report.Series{Name: pol.String(), Style: report.LinesPoints}
	}
	never := true
	var atZero, best, bestSE, atOne float64
	bestX := 0.0
	for xi, x := range p.surf {
		var v, se [3]float64
		for i, pol := range recommended {
			r := b.e.sim(c, pol, x)
			v[i], se[i] = r.qpc(), r.se()
			series[i].X, series[i].Y = append(series[i].X, x), append(series[i].Y, v[i])
			b.row("5.11", pol.String(), "x", x, "QPC", v[i], se[i])
		}
		t.Add(x, v[0], se[0], v[1], se[1], v[2], se[2])
		never = never && v[1]-v[0] >= -2*math.Hypot(se[1], se[0])
		if xi == 0 {
			atZero = v[0]
		}
		if v[0] > best {
			best, bestSE, bestX = v[0], se[0], x
		}
		if x == 1 {
			atOne = v[0]
		}
	}
	t.Note("Absolute QPC (not normalized: the ideal changes with x). A surfing visit follows a link with probability 1 − c, landing on a page in proportion to its popularity, and otherwise jumps to a random page.")
	b.tables = append(b.tables, t)
	b.plots = append(b.plots, namedPlot{"fig5_11_surfing", report.Plot{
		Title: "Fig. 5.11: influence of the extent of random surfing", X: "share of random surfing x", Y: "QPC", Series: series}})
	b.claim("5.9", "For every x, randomized promotion does at least as well as nonrandomized ranking.",
		fmt.Sprintf("selective k=1 ≥ nonrandomized − 2 se at every x: %v", never), never)
	b.claim("5.9", "A little random surfing helps nonrandomized ranking; beyond some point it hurts.",
		fmt.Sprintf("nonrandomized QPC %.4f at x = 0, best %.4f ± %.4f at x = %g, %.4f at x = 1", atZero, best, bestSE, bestX, atOne),
		best > atZero && bestX < 1 && atOne < best-2*bestSE)
}
