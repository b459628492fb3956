package adsim

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/deltaq/deltaq/eval/report"
)

// Summary holds the key numbers of a run.
type Summary struct {
	Log           string // base name of the query log
	Format        LogFormat
	Phrases       int
	QueriesPerDay int
	Advertisers   int
	Budgeted      int
	Ads           int
	Days          int
	Repetitions   int
	// Totals is the revenue over Days at C = 1, per policy of
	// Config.Policies, in that order (fig. 6.3).
	Totals []PolicyTotal
	// Match says, for each C, how many ads per query GREEDY needs to earn
	// what BMIX-E earns with C (fig. 6.4).
	Match []Match
}

// PolicyTotal is one policy's revenue.
type PolicyTotal struct {
	Policy string
	Total  Stat
	// VsGreedy is the relative difference to GREEDY's mean, e.g. 0.12 for
	// 12 % more.
	VsGreedy float64
	// Exhausted is the mean fraction of budgeted advertisers out of budget
	// at the end of a day.
	Exhausted float64
}

// Match compares GREEDY with BMIX-E at one C.
type Match struct {
	C       int
	BMIXE   float64 // BMIX-E's mean revenue with C ads per query
	GreedyC float64 // ads per query GREEDY needs for it; NaN: more than measured
	Ratio   float64 // GreedyC / C
}

func (r *results) summary() *Summary {
	w := r.w
	s := &Summary{
		Log: fileName(r.cfg.Log), Format: r.log.Format, Phrases: len(w.phrases), QueriesPerDay: len(w.base),
		Advertisers: len(w.budget), Budgeted: w.budgeted(), Ads: w.nAds, Days: r.cfg.Days, Repetitions: r.cfg.Repetitions,
	}
	g := r.total(expPerQuery, "greedy", 1, 0, 0, r.cfg.QueryCount).Mean
	for _, name := range r.cfg.Policies {
		t := r.total(expPerQuery, name, 1, 0, 0, r.cfg.QueryCount)
		s.Totals = append(s.Totals, PolicyTotal{Policy: name, Total: t, VsGreedy: t.Mean/g - 1, Exhausted: r.exhausted(name)})
	}
	if slices.Contains(r.cfg.Policies, "greedy") && slices.Contains(r.cfg.Policies, "bmix-e") {
		for _, c := range sortedInts(r.cfg.PerQuery) {
			e := r.total(expPerQuery, "bmix-e", c, 0, 0, r.cfg.QueryCount).Mean
			gc := r.matchC(e)
			s.Match = append(s.Match, Match{C: c, BMIXE: e, GreedyC: gc, Ratio: gc / float64(c)})
		}
	}
	return s
}

// pm formats a Stat as "mean ± sd".
func pm(s Stat) string {
	if s.N < 2 {
		return report.Cell(s.Mean)
	}
	return report.Cell(s.Mean) + " ± " + report.Cell(s.SD)
}

func pct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f %%", 100*x)
}

// clearly reports whether a − b is more than twice its standard error.
func clearly(a, b Stat) bool {
	if a.N < 2 || b.N < 2 {
		return a.Mean != b.Mean
	}
	se := math.Sqrt(a.SD*a.SD/float64(a.N) + b.SD*b.SD/float64(b.N))
	return math.Abs(a.Mean-b.Mean) > 2*se
}

// write writes the report (report.md), every measured point (results.csv)
// and the figures to dir.
func (r *results) write(dir string, sum *Summary) error {
	cfg := r.cfg
	tables := []*report.Table{r.setupTable(sum), r.byDayTable(), r.totalsTable(sum), r.perCTable()}
	if len(sum.Match) > 0 {
		tables = append(tables, r.matchTable(sum))
	}
	if len(cfg.PriorFractions) > 0 && len(cfg.PriorAccuracies) > 0 {
		tables = append(tables, r.priorTable())
	}
	if len(cfg.Lifetimes) > 0 {
		tables = append(tables, r.lifetimeTable())
	}
	tables = append(tables, r.queryCountTable())
	if len(cfg.SensitivityQueriesPerDay) > 0 && len(cfg.SensitivityCTRScales) > 0 {
		tables = append(tables, r.sensitivityTable())
	}
	tables = append(tables, r.claims(sum))

	header := r.header(sum)
	if err := report.WriteMarkdown(filepath.Join(dir, "report.md"), header, tables...); err != nil {
		return err
	}
	if err := r.csv().WriteCSV(filepath.Join(dir, "results.csv")); err != nil {
		return err
	}
	return r.plots(dir)
}

// policyRow is a table row: the leading cells, then "mean ± sd" of stat(p)
// for each of policies, in order.
func policyRow(policies []string, stat func(p string) Stat, lead ...any) []any {
	row := lead
	for _, p := range policies {
		row = append(row, pm(stat(p)))
	}
	return row
}

// setupTable describes the simulated world: the query log, advertisers,
// ads, true CTRs, bids and budgets, and how many query orders each point
// averages.
func (r *results) setupTable(sum *Summary) *report.Table {
	cfg, w := r.cfg, r.w
	setup := report.NewTable("Setup", "item", "value")
	setup.Add("query log", fmt.Sprintf("%s (%s): %d records, %d empty queries dropped, %d distinct phrases", sum.Log, r.log.Format, r.log.Lines, r.log.Empty, len(r.log.Phrases)))
	setup.Add("queries per day", fmt.Sprintf("%d (log frequencies scaled to eval.ads.queries_per_day = %d; every phrase at least once)", len(w.base), cfg.QueriesPerDay))
	setup.Add("advertisers", fmt.Sprintf("%d, of which %d (%.1f %%) with a daily budget", sum.Advertisers, sum.Budgeted, 100*float64(sum.Budgeted)/float64(max(1, sum.Advertisers))))
	withAds, adsPerQuery := 0, 0.0
	for j, list := range w.ads {
		if len(list) > 0 {
			withAds++
		}
		adsPerQuery += float64(w.freq[j]*len(list)) / float64(len(w.base))
	}
	setup.Add("ads (ad, phrase pairs)", fmt.Sprintf("%d on %d phrases; %.1f per phrase, %.1f per query (weighted by frequency)", w.nAds, withAds, float64(w.nAds)/float64(max(1, withAds)), adsPerQuery))
	ctrs, bids := w.adValues()
	setup.Add("true CTR c_ij", fmt.Sprintf("mean %s, quartiles %s / %s / %s, 99th pct %s", report.Cell(mean(ctrs)), report.Cell(quantile(ctrs, 0.25)), report.Cell(quantile(ctrs, 0.5)), report.Cell(quantile(ctrs, 0.75)), report.Cell(quantile(ctrs, 0.99))))
	setup.Add("CTR source", fmt.Sprintf("%s: %d items, pooled CTR %s, smoothed with Beta(μS, (1−μ)S), S = %s; between-item variance (method of moments) %s", fileName(cfg.CTRFile), len(w.ctr.Items), report.Cell(w.ctr.Mean), report.Cell(w.ctr.Strength), report.Cell(w.ctr.BetweenItemVariance())))
	setup.Add("bids b_ij", fmt.Sprintf("log-normal, median %s, σ %s; quartiles %s / %s / %s", report.Cell(cfg.BidMedian), report.Cell(cfg.BidSigma), report.Cell(quantile(bids, 0.25)), report.Cell(quantile(bids, 0.5)), report.Cell(quantile(bids, 0.75))))
	setup.Add("budgets d_i", fmt.Sprintf("fair-share spend × log-uniform factor in [%s, %s]", report.Cell(cfg.BudgetFactorMin), report.Cell(cfg.BudgetFactorMax)))
	setup.Add("n_j", fmt.Sprintf("%q (ads.query_count)", cfg.QueryCount))
	setup.Add("repetitions", fmt.Sprintf("%d random query orders per point, seed %d; ± is the standard deviation", cfg.Repetitions, cfg.Seed))
	return setup
}

// byDayTable is fig. 6.3: each policy's revenue per day at C = 1.
func (r *results) byDayTable() *report.Table {
	cfg := r.cfg
	t := report.NewTable("Fig. 6.3: revenue per day, C = 1 (currency units)", append([]string{"day"}, cfg.Policies...)...)
	for d := range cfg.Days {
		t.Add(policyRow(cfg.Policies, func(p string) Stat { return r.day(p, d) }, d+1)...)
	}
	return t
}

// totalsTable is fig. 6.3 summed over the days, each policy against GREEDY,
// with how often budgets run out. When GREEDY runs, a last row shows it
// with ties broken by age instead of bid, since the tie rule is what
// decides GREEDY's choices.
func (r *results) totalsTable(sum *Summary) *report.Table {
	cfg, qc := r.cfg, r.cfg.QueryCount
	t := report.NewTable(fmt.Sprintf("Total revenue over %d days, C = 1", cfg.Days), "policy", "revenue", "vs greedy", "budgeted advertisers out of budget at day end")
	for _, x := range sum.Totals {
		t.Add(x.Policy, pm(x.Total), pct(x.VsGreedy), fmt.Sprintf("%.1f %%", 100*x.Exhausted))
	}
	if slices.Contains(cfg.Policies, "greedy") {
		old := r.total(expTies, "greedy-oldest", 1, 0, 0, qc)
		t.Add("greedy, ties to the oldest ad (comparison only)", pm(old), pct(old.Mean/r.total(expPerQuery, "greedy", 1, 0, 0, qc).Mean-1), "")
		t.Note("GREEDY ranks by ĉ·b; after one display nearly every ad has ĉ = 0 (CTRs are about 0.5 %%), so the tie rule decides what it shows until an ad is clicked. The server's rule (higher bid first) makes GREEDY show the highest bidder; the last row breaks those ties by age instead, which is closer to a GREEDY that fixates on arbitrary ads (§6.7.2).")
	}
	return t
}

// perCTable is fig. 6.4: each policy's total revenue against C, the ads
// shown per query.
func (r *results) perCTable() *report.Table {
	cfg, qc := r.cfg, r.cfg.QueryCount
	t := report.NewTable(fmt.Sprintf("Fig. 6.4: total revenue over %d days against C", cfg.Days), append([]string{"C"}, cfg.Policies...)...)
	for _, c := range sortedInts(cfg.PerQuery) {
		t.Add(policyRow(cfg.Policies, func(p string) Stat { return r.total(expPerQuery, p, c, 0, 0, qc) }, c)...)
	}
	return t
}

// matchTable reads fig. 6.4 the thesis's way: how many ads per query
// GREEDY needs to earn what BMIX-E earns with C.
func (r *results) matchTable(sum *Summary) *report.Table {
	t := report.NewTable("Ads per query GREEDY needs to earn what BMIX-E earns", "C (bmix-e)", "bmix-e revenue", "C greedy needs", "ratio")
	for _, x := range sum.Match {
		t.Add(x.C, x.BMIXE, x.GreedyC, x.Ratio)
	}
	t.Note("Linear interpolation between the measured values of C; n/a: GREEDY does not reach it with C <= %d. The thesis: \"GREEDY must display almost twice as many ads as BMIX-E to generate the same amount of revenue\" (§6.7.2).", slices.Max(r.cfg.PerQuery))
	return t
}

// priorTable is fig. 6.5: total revenue at C = 1 when a fraction p of the
// ads has a prior of accuracy v, below a first row without priors.
func (r *results) priorTable() *report.Table {
	cfg, qc := r.cfg, r.cfg.QueryCount
	t := report.NewTable(fmt.Sprintf("Fig. 6.5: total revenue over %d days with Beta priors, C = 1", cfg.Days), append([]string{"p", "v"}, cfg.ExtensionPolicies...)...)
	t.Add(policyRow(cfg.ExtensionPolicies, func(p string) Stat { return r.total(expPerQuery, p, 1, 0, 0, qc) }, 0.0, "none")...)
	for _, p := range cfg.PriorFractions {
		for _, v := range cfg.PriorAccuracies {
			t.Add(policyRow(cfg.ExtensionPolicies, func(name string) Stat { return r.total(expPrior, name, 1, p, v, qc) }, p, v)...)
		}
	}
	t.Note("A fraction p of the (ad, phrase) pairs gets a prior of accuracy v (§6.8.1): the prior mean is drawn from Beta(mean c, variance c(1−v)) around the true CTR c, and the prior is the Beta with that mean and variance mean·(1−v). Its α + β also counts as evidence in the exploration terms.")
	return t
}

// lifetimeTable is fig. 6.6: steady-state revenue per day at C = 1 against
// the mean lifetime of an ad.
func (r *results) lifetimeTable() *report.Table {
	cfg := r.cfg
	t := report.NewTable(fmt.Sprintf("Fig. 6.6: revenue per day in steady state (days %d–%d of %d) against mean ad lifetime λ, C = 1", cfg.SteadyFrom+1, cfg.LifetimeDays, cfg.LifetimeDays), append([]string{"λ (days)"}, cfg.ExtensionPolicies...)...)
	for _, l := range cfg.Lifetimes {
		t.Add(policyRow(cfg.ExtensionPolicies, func(p string) Stat { return r.steady(p, l) }, l)...)
	}
	t.Note("Ads are revoked as a Poisson process: each lives an exponentially distributed time with mean λ days, and an identical ad (same advertiser, bid and true CTR, no history) replaces it when revoked (§6.8.3).")
	return t
}

// queryCountTable compares the configured reading of n_j with the other
// one, for every policy that uses n_j (all but GREEDY).
func (r *results) queryCountTable() *report.Table {
	cfg, qc := r.cfg, r.cfg.QueryCount
	other := otherQueryCount(qc)
	t := report.NewTable(fmt.Sprintf("What n_j counts: total revenue over %d days, C = 1", cfg.Days), "policy", "n_j = "+qc+" (used above)", "n_j = "+other, "difference")
	for _, p := range cfg.Policies {
		if p == "greedy" {
			continue
		}
		a, b := r.total(expPerQuery, p, 1, 0, 0, qc), r.total(expQueryCount, p, 1, 0, 0, other)
		t.Add(p, pm(a), pm(b), pct(b.Mean/a.Mean-1))
	}
	t.Note("§6.5 defines n_j as the queries of the phrase \"so far in the day\" while n_ij and ĉ_ij carry over from day to day (§6.6.3); \"total\" counts n_j over the same span as n_ij, as UCB does.")
	return t
}

// sensitivityTable is the traffic × CTR-scale grid: total revenue at C = 1
// per policy at each grid point, and which policy earns most there.
func (r *results) sensitivityTable() *report.Table {
	cfg := r.cfg
	cols := append([]string{"queries per day", "CTR × k"}, cfg.ExtensionPolicies...)
	cols = append(cols, "best")
	t := report.NewTable(fmt.Sprintf("Sensitivity: total revenue over %d days, C = 1, with more traffic and higher CTRs", cfg.Days), cols...)
	for _, q := range sortedInts(cfg.SensitivityQueriesPerDay) {
		for _, k := range cfg.SensitivityCTRScales {
			row := []any{q, k}
			best, bestV := "", math.Inf(-1)
			for _, p := range cfg.ExtensionPolicies {
				s := r.sensitivity(scenario{q, k}, p)
				row = append(row, pm(s))
				if s.Mean > bestV {
					best, bestV = p, s.Mean
				}
			}
			t.Add(append(row, best)...)
		}
	}
	t.Note("Each grid point is its own world (same seed): the log's frequencies scaled to that many queries a day, every true CTR multiplied by k (capped at 1), budgets from the scaled fair share. Exploration pays only when an ad can collect enough clicks within the horizon to be told apart from its rivals: impressions per ad × CTR.")
	return t
}

func (r *results) header(sum *Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Ad selection under unknown CTRs and budgets (thesis §6.7–6.8)\n\n")
	fmt.Fprintf(&b, "Simulation of the thesis's experiment: query phrases and their frequencies from a real query log, "+
		"true CTRs from a real CTR distribution, synthetic bids and budgets; %d days with CTR estimates carried from day to day "+
		"and budgets renewed daily; %d random query orders per point. Every policy ranks with the server's code (ads.Select). "+
		"Revenue is in currency units (the thesis changed its unit for confidentiality, so only shapes and ratios compare).\n\n",
		sum.Days, sum.Repetitions)
	fmt.Fprintf(&b, "Ties in priority go to the higher bid, then the older ad. GREEDY and every BMIX variant treat a never-shown ad "+
		"without a prior as having infinite priority (§6.7). Under every policy an advertiser with no budget left is not shown (BPOL step 1), "+
		"so MIX and BMIX select alike here.\n")
	return b.String()
}

// claims sets the thesis's statements beside this run's numbers.
func (r *results) claims(sum *Summary) *report.Table {
	cfg, qc := r.cfg, r.cfg.QueryCount
	t := report.NewTable("The thesis's findings against this run", "finding", "thesis", "this run", "holds")
	tot := func(p string) Stat { return r.total(expPerQuery, p, 1, 0, 0, qc) }
	has := func(ps ...string) bool {
		for _, p := range ps {
			if !slices.Contains(cfg.Policies, p) {
				return false
			}
		}
		return true
	}
	verdict := func(ok bool, a, b Stat) string {
		switch {
		case ok && clearly(a, b):
			return "yes"
		case ok:
			return "yes, within noise"
		case clearly(a, b):
			return "no"
		default:
			return "no, within noise"
		}
	}
	if has("bmix-e", "bmix") {
		e, m := tot("bmix-e"), tot("bmix")
		t.Add("BMIX-E earns more than BMIX (fig. 6.3)", "\"substantially better\"", fmt.Sprintf("%s vs %s (%s)", report.Cell(e.Mean), report.Cell(m.Mean), pct(e.Mean/m.Mean-1)), verdict(e.Mean >= m.Mean, e, m))
	}
	if has("bmix", "greedy") {
		m, g := tot("bmix"), tot("greedy")
		t.Add("BMIX earns more than GREEDY (fig. 6.3)", "\"significantly better\"", fmt.Sprintf("%s vs %s (%s)", report.Cell(m.Mean), report.Cell(g.Mean), pct(m.Mean/g.Mean-1)), verdict(m.Mean > g.Mean, m, g))
	}
	if has("bmix-e", "greedy") {
		e, g := tot("bmix-e"), tot("greedy")
		t.Add("BMIX-E earns more than GREEDY (fig. 6.3)", "all proposed policies beat GREEDY", fmt.Sprintf("%s vs %s (%s)", report.Cell(e.Mean), report.Cell(g.Mean), pct(e.Mean/g.Mean-1)), verdict(e.Mean > g.Mean, e, g))
	}
	if has("bmix-t", "bmix") {
		a, b := tot("bmix-t"), tot("bmix")
		t.Add("Throttling changes little: BMIX-T ≈ BMIX", "\"did not make much difference\"", pct(a.Mean/b.Mean-1), small(a, b))
	}
	if has("bmix-et", "bmix-e") {
		a, b := tot("bmix-et"), tot("bmix-e")
		t.Add("Throttling changes little: BMIX-ET ≈ BMIX-E", "\"did not make much difference\"", pct(a.Mean/b.Mean-1), small(a, b))
	}
	for _, m := range sum.Match {
		if m.C > 2 {
			break
		}
		got := "more than measured"
		ok := "yes"
		if !math.IsNaN(m.GreedyC) {
			got = fmt.Sprintf("%s ads (%s×)", report.Cell(m.GreedyC), report.Cell(m.Ratio))
			if m.Ratio < 1.5 {
				ok = "no"
			}
		}
		t.Add(fmt.Sprintf("GREEDY needs about twice as many ads as BMIX-E (C = %d, fig. 6.4)", m.C), "\"almost twice as many\"", got, ok)
	}
	if len(cfg.PriorFractions) > 0 && len(cfg.PriorAccuracies) > 0 && slices.Contains(cfg.ExtensionPolicies, "greedy") {
		// Spread across (p, v) relative to the no-prior revenue, per policy.
		var parts []string
		for _, name := range cfg.ExtensionPolicies {
			base := r.total(expPerQuery, name, 1, 0, 0, qc).Mean
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range cfg.PriorFractions {
				for _, v := range cfg.PriorAccuracies {
					x := r.total(expPrior, name, 1, p, v, qc).Mean/base - 1
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				}
			}
			parts = append(parts, fmt.Sprintf("%s %s … %s", name, pct(lo), pct(hi)))
		}
		t.Add("Priors move GREEDY much more than the BMIX family (fig. 6.5)", "\"unlike GREEDY our policies are not affected significantly\"", "change vs no prior: "+strings.Join(parts, "; "), "see table")
	}
	if len(cfg.Lifetimes) > 0 && slices.Contains(cfg.ExtensionPolicies, "greedy") && slices.Contains(cfg.ExtensionPolicies, "bmix-e") {
		ls := slices.Clone(cfg.Lifetimes)
		slices.Sort(ls)
		lo, hi := ls[0], ls[len(ls)-1]
		gap := func(l float64) float64 { return r.steady("bmix-e", l).Mean/r.steady("greedy", l).Mean - 1 }
		t.Add("The gap to GREEDY grows with ad lifetime (fig. 6.6)", "\"as λ increases, the gap … increases\"",
			fmt.Sprintf("BMIX-E vs GREEDY: %s at λ = %s, %s at λ = %s", pct(gap(lo)), report.Cell(lo), pct(gap(hi)), report.Cell(hi)), yesNo(gap(hi) > gap(lo)))
		t.Add("BMIX-E beats GREEDY even for short-lived ads (fig. 6.6)", "\"even for … one day, our policies still outperform GREEDY\"",
			fmt.Sprintf("%s at λ = %s", pct(gap(lo)), report.Cell(lo)), yesNo(gap(lo) > 0))
	}
	return t
}

func small(a, b Stat) string {
	if math.Abs(a.Mean/b.Mean-1) < 0.05 {
		return "yes (< 5 %)"
	}
	return "no (≥ 5 %)"
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// csv is every measured point in long form.
func (r *results) csv() *report.Table {
	cfg, qc := r.cfg, r.cfg.QueryCount
	t := report.NewTable("", "experiment", "policy", "C", "p", "v", "lambda_days", "queries_per_day", "ctr_scale", "query_count", "day", "metric", "mean", "sd", "n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	sc := scenario{cfg.QueriesPerDay, 1}
	add := func(exp, policy string, c int, p, v, l float64, q string, day string, metric string, s Stat) {
		t.Add(exp, policy, c, f(p), f(v), f(l), sc.queriesPerDay, f(sc.ctrScale), q, day, metric, f(round6(s.Mean)), f(round6(s.SD)), s.N)
	}
	for _, p := range cfg.Policies {
		for d := range cfg.Days {
			add(expPerQuery, p, 1, 0, 0, 0, qc, strconv.Itoa(d+1), "revenue_day", r.day(p, d))
		}
	}
	for _, c := range sortedInts(cfg.PerQuery) {
		for _, p := range cfg.Policies {
			add(expPerQuery, p, c, 0, 0, 0, qc, "", "revenue_total", r.total(expPerQuery, p, c, 0, 0, qc))
		}
	}
	for _, p := range cfg.Policies {
		add(expPerQuery, p, 1, 0, 0, 0, qc, "", "exhausted_fraction", Stat{Mean: r.exhausted(p), N: cfg.Repetitions})
	}
	for _, p := range cfg.PriorFractions {
		for _, v := range cfg.PriorAccuracies {
			for _, name := range cfg.ExtensionPolicies {
				add(expPrior, name, 1, p, v, 0, qc, "", "revenue_total", r.total(expPrior, name, 1, p, v, qc))
			}
		}
	}
	for _, l := range cfg.Lifetimes {
		for _, name := range cfg.ExtensionPolicies {
			add(expLifetime, name, 1, 0, 0, l, qc, "", "revenue_per_day_steady", r.steady(name, l))
		}
	}
	other := otherQueryCount(qc)
	for _, p := range cfg.Policies {
		if p != "greedy" {
			add(expQueryCount, p, 1, 0, 0, 0, other, "", "revenue_total", r.total(expQueryCount, p, 1, 0, 0, other))
		}
	}
	if slices.Contains(cfg.Policies, "greedy") {
		add(expTies, "greedy-oldest", 1, 0, 0, 0, qc, "", "revenue_total", r.total(expTies, "greedy-oldest", 1, 0, 0, qc))
	}
	for _, q := range sortedInts(cfg.SensitivityQueriesPerDay) {
		for _, k := range cfg.SensitivityCTRScales {
			sc = scenario{q, k}
			for _, p := range cfg.ExtensionPolicies {
				add(expScale, p, 1, 0, 0, 0, qc, "", "revenue_total", r.sensitivity(sc, p))
			}
		}
	}
	return t
}

// round6 keeps CSV numbers short and stable: six significant digits.
func round6(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

func (r *results) plots(dir string) error {
	cfg, qc := r.cfg, r.cfg.QueryCount
	var s []report.Series
	for _, p := range cfg.Policies {
		se := report.Series{Name: p, Style: report.LinesPoints}
		for d := range cfg.Days {
			se.Add(float64(d+1), r.day(p, d).Mean)
		}
		s = append(s, se)
	}
	if err := (report.Plot{Title: "Fig. 6.3: revenue per day (C = 1)", X: "day", Y: "revenue per day", Series: s}).Write(filepath.Join(dir, "fig-6.3-revenue-by-day")); err != nil {
		return err
	}
	s = nil
	for _, p := range cfg.Policies {
		se := report.Series{Name: p, Style: report.LinesPoints}
		for _, c := range sortedInts(cfg.PerQuery) {
			se.Add(float64(c), r.total(expPerQuery, p, c, 0, 0, qc).Mean)
		}
		s = append(s, se)
	}
	if err := (report.Plot{Title: fmt.Sprintf("Fig. 6.4: total revenue over %d days against C", cfg.Days), X: "C (ads per query)", Y: "total revenue", Series: s}).Write(filepath.Join(dir, "fig-6.4-revenue-vs-C")); err != nil {
		return err
	}
	if len(cfg.PriorAccuracies) > 0 {
		for _, p := range cfg.PriorFractions {
			s = nil
			for _, name := range cfg.ExtensionPolicies {
				se := report.Series{Name: name, Style: report.LinesPoints}
				for _, v := range cfg.PriorAccuracies {
					se.Add(v, r.total(expPrior, name, 1, p, v, qc).Mean)
				}
				s = append(s, se)
			}
			name := fmt.Sprintf("fig-6.5-priors-p%s", strconv.FormatFloat(p, 'f', -1, 64))
			if err := (report.Plot{Title: fmt.Sprintf("Fig. 6.5: effect of priors, p = %s", report.Cell(p)), X: "prior accuracy v", Y: "total revenue", Series: s}).Write(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	if len(cfg.Lifetimes) > 0 {
		s = nil
		for _, name := range cfg.ExtensionPolicies {
			se := report.Series{Name: name, Style: report.LinesPoints}
			for _, l := range cfg.Lifetimes {
				se.Add(l, r.steady(name, l).Mean)
			}
			s = append(s, se)
		}
		if err := (report.Plot{Title: "Fig. 6.6: effect of ad lifetime", X: "mean lifetime λ (days)", Y: "revenue per day, steady state", LogX: logAxisOK(cfg.Lifetimes), Series: s}).Write(filepath.Join(dir, "fig-6.6-lifetime")); err != nil {
			return err
		}
	}
	return nil
}

// logAxisOK reports whether xs span a range a logarithmic axis can draw;
// with a single value the plotting library has no positive range.
func logAxisOK(xs []float64) bool {
	return len(xs) > 1 && slices.Min(xs) > 0 && slices.Max(xs) > slices.Min(xs)
}

// adValues returns every ad's true CTR and bid (units), sorted.
func (w *world) adValues() (ctrs, bids []float64) {
	for _, list := range w.ads {
		for _, a := range list {
			ctrs = append(ctrs, a.ctr)
			bids = append(bids, a.bid.Units())
		}
	}
	slices.Sort(ctrs)
	slices.Sort(bids)
	return ctrs, bids
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return sum(xs) / float64(len(xs))
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// quantile of sorted xs, nearest rank.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
