package synceval

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/internal/atomicfile"
)

// ForecastSummary summarizes fig. 4.3: how well δQ_A over the first half
// of the weeks predicts it over the second, per page.
type ForecastSummary struct {
	Pages    int // pages re-downloaded in both halves
	Plotted  int // with δQ_A > 0 in at least one half
	BothZero int // δQ_A = 0 in both halves (not plotted, as in the thesis)
	Negative int // with δQ_A < 0 in a half (not drawable on log axes)
	// OneZero counts pages with δQ_A = 0 in exactly one half (drawn on
	// the edges).
	OneZero int
	// Both positive: Pearson correlation of ln δQ_A between the halves,
	// and the fraction within a factor of 2 of the diagonal.
	Positive       int
	LogCorrelation float64
	WithinFactor2  float64
}

// summarize turns the runs into a Summary.
func (h *harness) summarize(specs []runSpec, results []*runResult) *Summary {
	wl := h.wl
	sum := &Summary{
		Archive: h.c.name,
		Workload: WorkloadSummary{
			LogStrings: wl.logStrings, LogTotal: wl.logTotal, NoTerms: wl.noTerms, UnknownTerm: wl.unknownTerm,
			NoMatch: wl.noMatch, Candidates: wl.candidates, Threshold: wl.threshold, Kept: len(wl.queries),
			KeptStrings: wl.keptStrings, KeptTotal: wl.keptTotal, MultiTerm: wl.multiTerm, Terms: wl.distinctTerm,
			Sampled: wl.sampled, Filtered: wl.filtered,
		},
		Week0: h.base,
	}
	for _, r := range results {
		rs := RunSummary{Policy: r.Spec.Policy, Tau: r.Spec.Tau, Budget: r.Spec.Budget, All: r.Spec.All,
			MeanQ: r.MeanQ, Q: r.Q, Fetched: r.Fetched, Changed: r.Changed, Took: r.Took, Reranked: r.Reranked, Kept: r.Kept,
			Split: r.Spec.Split, Shares: r.Shares, NewFetched: r.NewFetched, DiscFetched: r.DiscFetched,
			Seeded: r.Spec.Seeded, Seed: r.Spec.Seed, Refetches: r.Refetches}
		sum.Runs = append(sum.Runs, rs)
		if r.Spec.All {
			sum.Forecast = summarizeForecast(r.Forecast)
		}
	}
	sum.Best = bestRuns(sum.Runs)
	ref := h.policyRuns(sum.Best)
	sum.Target, _ = target(ref)
	sum.Margins = margins(ref)
	sum.SplitMargins = splitMargins(sum.Best)
	return sum
}

// bestRuns keeps, per policy, budget and split, the run with the highest
// mean Q (for SBR and EBR the best τ; ties go to the smaller τ), a seeded
// policy's seeds as one run (meanOfSeeds), in the order the policies and
// budgets first appear.
func bestRuns(runs []RunSummary) []RunSummary {
	type key struct {
		policy string
		budget int
		split  string
	}
	pos := map[key]int{}
	var best []RunSummary
	for _, r := range seedMeans(runs) {
		if r.All {
			continue
		}
		k := key{r.Policy, r.Budget, r.Split}
		i, ok := pos[k]
		if !ok {
			pos[k] = len(best)
			best = append(best, r)
			continue
		}
		if r.MeanQ > best[i].MeanQ || r.MeanQ == best[i].MeanQ && r.Tau < best[i].Tau {
			best[i] = r
		}
	}
	return best
}

// seedMeans replaces the runs of a seeded policy at each τ, budget and
// split by their meanOfSeeds, where the first of them was.
func seedMeans(runs []RunSummary) []RunSummary {
	type key struct {
		policy string
		tau    float64
		budget int
		split  string
	}
	seeds := map[key][]RunSummary{}
	for _, r := range runs {
		if r.Seeded {
			k := key{r.Policy, r.Tau, r.Budget, r.Split}
			seeds[k] = append(seeds[k], r)
		}
	}
	var out []RunSummary
	for _, r := range runs {
		if !r.Seeded {
			out = append(out, r)
			continue
		}
		k := key{r.Policy, r.Tau, r.Budget, r.Split}
		if rs, ok := seeds[k]; ok {
			out = append(out, meanOfSeeds(rs))
			delete(seeds, k)
		}
	}
	return out
}

func summarizeForecast(pages []forecastPage) ForecastSummary {
	fs := ForecastSummary{Pages: len(pages)}
	var xs, ys []float64
	within := 0
	for _, p := range pages {
		switch {
		case p.First < 0 || p.Second < 0:
			fs.Negative++
		case p.First == 0 && p.Second == 0:
			fs.BothZero++
		case p.First == 0 || p.Second == 0:
			fs.OneZero++
			fs.Plotted++
		default:
			fs.Plotted++
			fs.Positive++
			lx, ly := math.Log(p.First), math.Log(p.Second)
			xs, ys = append(xs, lx), append(ys, ly)
			if math.Abs(lx-ly) <= math.Ln2 {
				within++
			}
		}
	}
	if fs.Positive > 0 {
		fs.WithinFactor2 = float64(within) / float64(fs.Positive)
		fs.LogCorrelation = pearson(xs, ys)
	}
	return fs
}

func pearson(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// budgets returns the swept budgets, ascending, each once.
func (h *harness) budgets() []int {
	b := slices.Clone(h.cfg.Budgets)
	slices.Sort(b)
	return slices.Compact(b)
}

// byPolicyAndBudget is a table with a row per policy (and split) and a
// column per budget, each cell cell(r) of the reported run (Summary.Best).
func (h *harness) byPolicyAndBudget(sum *Summary, title string, cell func(RunSummary) string) *report.Table {
	budgets := h.budgets()
	cols := []string{"policy"}
	for _, bu := range budgets {
		cols = append(cols, fmt.Sprintf("B=%d", bu))
	}
	t := report.NewTable(title, cols...)
	for _, l := range h.lines() {
		row := []any{l.name()}
		for _, bu := range budgets {
			c := "n/a"
			for _, r := range sum.Best {
				if r.Policy == l.policy && r.Split == l.split && r.Budget == bu {
					c = cell(r)
				}
			}
			row = append(row, c)
		}
		t.Add(row...)
	}
	return t
}

// line is a policy at a split: a row of the tables, a line of fig. 4.4.
type line struct{ policy, split string }

func (l line) name() string {
	if l.split == "" {
		return l.policy
	}
	return l.policy + " " + splitLabel(l.split)
}

// lines lists the policies, each at every split swept.
func (h *harness) lines() []line {
	var out []line
	for _, p := range h.cfg.Policies {
		for _, s := range h.splits() {
			out = append(out, line{p, s})
		}
	}
	return out
}

// policyRuns are the reported runs the policies are compared by: in a
// split sweep, those at its first split.
func (h *harness) policyRuns(best []RunSummary) []RunSummary {
	first := h.splits()[0]
	var out []RunSummary
	for _, r := range best {
		if r.Split == first {
			out = append(out, r)
		}
	}
	return out
}

// historyLabel names what the policies estimate from, for titles.
func (h *harness) historyLabel() string {
	if h.cfg.History == "whole" {
		return "hindsight (thesis §4.7.2)"
	}
	return "online (each policy's own re-downloads)"
}

// q formats a quality for tables and the CSV: six decimals, fixed.
func q(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// write writes report.md, results.csv and the plots.
func (h *harness) write(sum *Summary, results []*runResult, outDir string) error {
	if err := h.writeCSVs(sum, outDir); err != nil {
		return err
	}
	sum.plots = h.writePlots(sum, results, outDir)
	if err := errors.Join(sum.plots.failed...); err != nil {
		return err
	}
	return h.writeReport(sum, results, outDir)
}

// writeReport writes report.md.
func (h *harness) writeReport(sum *Summary, results []*runResult, outDir string) error {
	return atomicfile.Write(filepath.Join(outDir, "report.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, h.markdown(sum, results))
		return err
	})
}

// writeCSV writes one row per run and week, and one "mean" row per run.
// It holds nothing that depends on the machine (no wall times), so the
// same configuration gives the same bytes (Config.Seed).
func (h *harness) writeCSV(sum *Summary, path string) error {
	t := report.NewTable("", "archive", "policy", "tau", "split", "seed", "budget", "week", "fetched", "changed", "first_fetches", "discovery_fetches", "discovery_share", "q")
	for _, r := range sum.Runs {
		pol, tau, seed := r.labels()
		total, changed, first, disc := 0, 0, 0, 0
		for w := range r.Q {
			t.Add(sum.Archive, pol, tau, r.Split, seed, r.Budget, w, r.Fetched[w], r.Changed[w], r.NewFetched[w], r.DiscFetched[w],
				strconv.FormatFloat(r.Shares[w], 'f', 4, 64), q(r.Q[w]))
			total += r.Fetched[w]
			changed += r.Changed[w]
			first += r.NewFetched[w]
			disc += r.DiscFetched[w]
		}
		t.Add(sum.Archive, pol, tau, r.Split, seed, r.Budget, "mean", total, changed, first, disc,
			strconv.FormatFloat(r.MeanShare(), 'f', 4, 64), q(r.MeanQ))
	}
	return t.WriteCSV(path)
}

// writeRefetches writes refetches.csv (Config.Refetches): one row per page
// a run fetched in a week, its runs labelled as in results.csv.
func (h *harness) writeRefetches(sum *Summary, path string) error {
	t := report.NewTable("", "archive", "policy", "tau", "split", "seed", "budget", "week", "url", "changed")
	for _, r := range sum.Runs {
		pol, tau, seed := r.labels()
		for _, f := range r.Refetches {
			t.Add(sum.Archive, pol, tau, r.Split, seed, r.Budget, f.Week, f.URL, f.Changed)
		}
	}
	return t.WriteCSV(path)
}

// labels are a run's policy ("all" for the run re-fetching every page),
// τ and seed columns in the CSV files ("" where they do not apply).
func (r RunSummary) labels() (policy, tau, seed string) {
	policy = r.Policy
	if r.All {
		policy = "all"
	}
	if usesTau(r.Policy) {
		tau = strconv.FormatFloat(r.Tau, 'f', 1, 64)
	}
	if r.Seeded {
		seed = strconv.FormatUint(r.Seed, 10)
	}
	return policy, tau, seed
}

// writeCSVs writes results.csv and, with Config.Refetches, refetches.csv.
func (h *harness) writeCSVs(sum *Summary, outDir string) error {
	if err := h.writeCSV(sum, filepath.Join(outDir, "results.csv")); err != nil {
		return err
	}
	if !h.cfg.Refetches {
		return nil
	}
	return h.writeRefetches(sum, filepath.Join(outDir, "refetches.csv"))
}

// markdown renders report.md, one section after another. A section that
// depends on part of the sweep (deltaq and a baseline, a split sweep, the
// all-pages run) is left out when there is nothing to show.
func (h *harness) markdown(sum *Summary, results []*runResult) string {
	var b strings.Builder
	h.writeIntro(&b, sum)
	_ = h.workloadTable(sum.Workload).Markdown(&b)
	_ = week0Table(sum.Week0).Markdown(&b)
	_ = h.meanQTable(sum).Markdown(&b)
	_ = h.changedTable(sum).Markdown(&b)
	if h.cfg.Refetches {
		_ = h.stakeTable(sum).Markdown(&b)
	}
	if sum.Target.Baseline != "" {
		_ = targetTable(sum.Target).Markdown(&b)
	}
	if len(sum.Margins) > 0 {
		_ = marginsTable(sum.Margins).Markdown(&b)
	}
	if len(sum.SplitMargins) > 0 {
		_ = h.splitTable(sum).Markdown(&b)
	}
	_ = runsTable(sum.Runs).Markdown(&b)
	h.writeQPerWeek(&b, sum.Best)
	if sum.Forecast.Pages > 0 {
		_ = h.forecastTable(sum.Forecast).Markdown(&b)
	}
	_ = h.wallTimeTable(sum, results).Markdown(&b)
	b.WriteString(sum.plots.markdown())
	if att := h.arch.Meta().Attribution; att != "" {
		fmt.Fprintf(&b, "\nArchive: %s\n", att)
	}
	return b.String()
}

// writeIntro writes the report's title and the paragraphs that say what
// was measured and under which settings, so that the tables below can be
// read without the configuration at hand. A partial report says so first.
func (h *harness) writeIntro(w io.Writer, sum *Summary) {
	cfg := h.cfg
	fmt.Fprintf(w, "# Synchronization: repository quality under a re-download budget — %s, %s\n\n", sum.Archive, h.historyLabel())
	if len(sum.Missing) > 0 {
		fmt.Fprintf(w, "**Partial: the evaluation was interrupted. This report and results.csv hold the %d runs that finished; "+
			"%d did not: %s.**\n\n", len(sum.Runs), len(sum.Missing), strings.Join(sum.Missing, ", "))
	}
	fmt.Fprintf(w, "Thesis §4.7 on the `%s` archive (%d weeks, %s → %s) with the query log `%s`. "+
		"Every run starts from the same fully synchronized repository of week 0 and may re-download B pages a week "+
		"through the real frontier, crawler (on the replay server) and index for weeks 1–%d; after each week's crawl "+
		"the index catches up (measuring ΔQ_A) and Q(W^L) of eq. 4.5 is measured against that week's live pages: "+
		"the local index's answer A(q, W^L) to every workload query, in the searcher's order, each page scored "+
		"with its live copy's S(W[p], q) (0 if gone or no longer an answer), over the ideal answer of the live week. "+
		"%s I(r) = c·r^(−3/2), c = %g.\n\n",
		sum.Archive, h.c.weeks(), h.c.dates[0].Format(time.DateOnly), h.c.dates[h.c.weeks()-1].Format(time.DateOnly),
		filepath.Base(cfg.Log), h.c.weeks()-1, semanticsSentence(cfg), cfg.Index.InspectionC)
	switch cfg.Pages {
	case "persistent":
		fmt.Fprintf(w, "Pages: only the %d pages present in every week are replayed (eval.sync.pages = persistent), as in the thesis's data sets (§4.7). ", len(h.c.live[0]))
	default:
		fmt.Fprintf(w, "Pages: every page of the archive is replayed (eval.sync.pages = all); pages created after week 0 count as missing, and re-downloads cannot find them. ")
	}
	switch cfg.History {
	case "whole":
		fmt.Fprintf(w, "Estimates: every policy estimates its per-page parameters (λ for SBR and LambdaCrawl, d(p) for EBR, δQ_A for deltaq) "+
			"from the whole archive, as the thesis does (§4.7.2), by reading the fetch log and ΔQ_A measurements of the run that "+
			"re-downloads every page every week (eval.sync.history = whole): hindsight no deployed crawler has; what each run re-downloads, and when, is its own. "+
			"The deltaq policy therefore ranks by its posterior means and does not explore (frontier.exploration = mean). ")
	default:
		fmt.Fprintf(w, "Estimates: every policy learns only from its own re-downloads, as a deployed crawler must (eval.sync.history = own); "+
			"pages not yet re-downloaded take the policy's prior. The deltaq policy explores by frontier.exploration = %s. ", cfg.Frontier.Exploration)
	}
	fmt.Fprint(w, "No policy reads the sitemap's <lastmod> dates (frontier.sitemap_lastmod is off): the replay dates each page "+
		"by the week its archived copy changed, which would tell the deltaq policy alone the true change of pages it did not fetch. "+
		"The queries Q is measured on are also those the policies that read queries learn from (deltaq's ΔQ_A, over their words Q′; "+
		"μ(p) of EBR and LambdaCrawl), as in the thesis: Q is defined over the workload a search engine knows from its log, "+
		"and the log is read as counts, with no tie to the archive's weeks to split it by.\n\n")
}

// workloadTable accounts for every query string of the log: how many the
// analyzer, the vocabulary, week 0 and the filter each dropped, so that a
// small workload can be traced to its cause.
func (h *harness) workloadTable(ws WorkloadSummary) *report.Table {
	cfg := h.cfg
	wt := report.NewTable("Workload (§4.7)", "what", "value")
	wt.Add("distinct query strings in the log", ws.LogStrings)
	wt.Add("Σ counts", ws.LogTotal)
	wt.Add("strings without a searchable word", ws.NoTerms)
	if cfg.Semantics == SemanticsSearcher {
		wt.Add("term lists with no word any archived page has", ws.UnknownTerm)
	} else {
		wt.Add("term lists with a word no archived page has", ws.UnknownTerm)
	}
	wt.Add("term lists matching no week-0 page", ws.NoMatch)
	wt.Add("term lists matching week 0 (candidates)", ws.Candidates)
	wt.Add("knee threshold (summed week-0 score)", ws.Threshold)
	wt.Add("queries kept", fmt.Sprintf("%d of %d candidates (%d log strings)", ws.Kept, ws.Candidates, ws.KeptStrings))
	wt.Add("Σ f_q kept", fmt.Sprintf("%s of %s (%.1f %%)", report.Cell(ws.KeptTotal), report.Cell(ws.LogTotal), 100*ws.KeptTotal/ws.LogTotal))
	wt.Add("kept queries with more than one term", ws.MultiTerm)
	wt.Add("|Q′| (distinct terms given to the index)", ws.Terms)
	if ws.Sampled {
		wt.Add("sampled", fmt.Sprintf("%d of the %d queries the filter kept, drawn with probability ∝ f_q (eval.sync.max_queries = %d, seed %d)",
			ws.Kept, ws.Filtered, cfg.MaxQueries, cfg.Seed))
	}
	if cfg.Filter == "knee" {
		wt.Note("Queries are split with the index's analyzer; query strings with the same terms are one query (f_q summed). " +
			"A query's relevance is the sum of its score S over its week-0 answer (under the semantics above). Knee rule: the candidates' summed scores, " +
			"sorted in descending order, are drawn with the rank scaled to [0, 1] and the log of the score scaled to [0, 1]; " +
			"the knee is the point farthest from the chord joining the first and last points, and queries scoring at least the " +
			"knee's score are kept (workload-knee.svg).")
	} else {
		wt.Note("eval.sync.filter = none: every query matching a week-0 page is kept.")
	}
	return wt
}

// week0Table describes the repository every run starts from; its Q should
// be 1, and anything less means the week-0 crawl missed pages.
func week0Table(w0 Week0Summary) *report.Table {
	t := report.NewTable("Week 0 (the repository every run starts from)", "what", "value")
	t.Add("pages fetched", w0.Fetched)
	t.Add("documents indexed", int(w0.Indexed))
	t.Add("indexable live pages", w0.Live)
	t.Add("Q(W^L) at week 0", q(w0.Q))
	t.Add("wall time", w0.Took.Round(time.Millisecond).String())
	return t
}

// meanQTable is the headline result: mean Q of the reported run per policy
// and budget, with each budget as a share of the site and the all-pages
// run's Q as the ceiling the policies are read against.
func (h *harness) meanQTable(sum *Summary) *report.Table {
	mt := h.byPolicyAndBudget(sum, "Mean Q over weeks 1–"+strconv.Itoa(h.c.weeks()-1)+" by policy and budget B (re-downloads per week)",
		func(r RunSummary) string {
			switch {
			case usesTau(r.Policy):
				return fmt.Sprintf("%s (τ=%.1f)", q(r.MeanQ), r.Tau)
			case len(r.Seeds) > 1:
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, s := range r.Seeds {
					lo, hi = math.Min(lo, s.MeanQ), math.Max(hi, s.MeanQ)
				}
				return fmt.Sprintf("%s (%s–%s)", q(r.MeanQ), q(lo), q(hi))
			}
			return q(r.MeanQ)
		})
	pages := len(h.c.live[0])
	var shares []string
	for _, bu := range h.budgets() {
		shares = append(shares, fmt.Sprintf("%d = %.1f %%", bu, 100*float64(bu)/float64(pages)))
	}
	mt.Note("B as a share of week 0's %d pages: %s. For SBR and EBR each cell is the best τ of %v at that budget (§4.7.3).",
		pages, strings.Join(shares, ", "), h.cfg.Taus)
	if h.cfg.Seeds > 1 && slices.ContainsFunc(h.cfg.Policies, h.seeded) {
		mt.Note("A policy that draws at random (deltaq, frontier.exploration = %s) is run with %d seeds, frontier.seed %d to %d: "+
			"its cell is their mean, with the lowest and highest seed's in brackets.", h.cfg.Frontier.Exploration, h.cfg.Seeds, h.cfg.Frontier.Seed, h.cfg.Frontier.Seed+uint64(h.cfg.Seeds)-1)
	}
	for _, r := range sum.Runs {
		if r.All {
			mt.Note("Re-downloading every page every week (B = %d): mean Q %s.", r.Budget, q(r.MeanQ))
		}
	}
	return mt
}

// changedTable shows how often each policy's fetches found the page
// changed: a fetch of an unchanged page spends budget for nothing.
func (h *harness) changedTable(sum *Summary) *report.Table {
	ct := h.byPolicyAndBudget(sum, "Fraction of fetches that found the page changed, by policy and budget",
		func(r RunSummary) string { return fmt.Sprintf("%.3f", r.ChangedShare()) })
	ct.Note("Over weeks 1–%d, the runs of the table above (a change: the body differs from the stored copy).", h.c.weeks()-1)
	return ct
}

// stakeTable reports, with Config.Refetches, how each policy's fetches
// spread over the pages by their week-0 stake (stakeGroups): where a
// budget goes, which the counts of fetches and changes do not show.
func (h *harness) stakeTable(sum *Summary) *report.Table {
	groups := h.stakeGroups()
	group := map[string]int{}
	cols := []string{"policy", "B", "no stake"}
	for i, ids := range groups {
		for _, id := range ids {
			group[h.c.urls[id]] = i
		}
		if i > 0 {
			cols = append(cols, fmt.Sprintf("tenth %d", i))
		}
	}
	t := report.NewTable("Fetches by the page's week-0 stake", cols...)
	for _, r := range sum.Best {
		if r.All {
			continue
		}
		var counts [len(groups)]int
		total := 0
		runs := r.Seeds
		if len(runs) == 0 {
			runs = []RunSummary{r}
		}
		for _, run := range runs {
			for _, f := range run.Refetches {
				if i, ok := group[f.URL]; ok {
					counts[i]++
				}
				total++
			}
		}
		row := []any{line{r.Policy, r.Split}.name(), r.Budget}
		for _, n := range counts {
			row = append(row, fmt.Sprintf("%.3f", float64(n)/float64(max(1, total))))
		}
		t.Add(row...)
	}
	t.Note("The share of a run's fetches over weeks 1–%d (of every seed's, for a policy that draws) that went to the pages without a stake in week 0's answers (%d) and to each tenth of the others by stake, lowest first (about %d each); the rest went to pages not live in week 0 and to sitemaps.",
		h.c.weeks()-1, len(groups[0]), len(groups[1]))
	return t
}

// targetTable reports the budget deltaq needs to match the best baseline
// at the largest budget swept, and its ratio to that budget: how much
// re-downloading deltaq saves.
func targetTable(tg Target) *report.Table {
	tt := report.NewTable("deltaq against the best baseline", "what", "value")
	tt.Add("largest budget B_max", tg.MaxBudget)
	tt.Add("best baseline at B_max", fmt.Sprintf("%s, mean Q %s", tg.Baseline, q(tg.BaselineQ)))
	tt.Add("deltaq at B_max", q(tg.DeltaqAtMax))
	switch {
	case !tg.Reached:
		tt.Add("smallest B where deltaq reaches it", "not reached at any budget swept")
	case tg.AtMost:
		tt.Add("smallest B where deltaq reaches it", fmt.Sprintf("≤ %.0f (already at the smallest budget)", tg.Budget))
		tt.Add("ratio B / B_max", fmt.Sprintf("≤ %.3f", tg.Ratio))
	default:
		tt.Add("smallest B where deltaq reaches it", fmt.Sprintf("%.1f", tg.Budget))
		tt.Add("ratio B / B_max", fmt.Sprintf("%.3f", tg.Ratio))
	}
	tt.Note("Between the two swept budgets whose mean Q bracket the baseline's, B is interpolated linearly in (mean Q, B).")
	return tt
}

// marginsTable says whether deltaq's lead over the best baseline at each
// budget is larger than the weeks' noise: the difference in units of its
// standard error.
func marginsTable(ms []Margin) *report.Table {
	gt := report.NewTable("deltaq against the best baseline at each budget, week by week and seed by seed",
		"B", "best baseline", "mean Q_deltaq − Q_baseline", "s.e. of weeks", "s.e. of seeds", "standard error", "difference / s.e.",
		"weeks deltaq ahead", "seeds deltaq ahead")
	for _, m := range ms {
		seedSE := "n/a (one seed)"
		if m.Seeds > 1 {
			seedSE = fmt.Sprintf("%.6f", m.SeedStdErr)
		}
		gt.Add(m.Budget, m.Baseline, fmt.Sprintf("%+.6f", m.Diff), fmt.Sprintf("%.6f", m.WeekStdErr), seedSE, fmt.Sprintf("%.6f", m.StdErr),
			fmt.Sprintf("%+.1f", m.Diff/m.StdErr), fmt.Sprintf("%d of %d", m.Ahead, m.Weeks), fmt.Sprintf("%d of %d", m.SeedsAhead, m.Seeds))
	}
	gt.Note("Both policies replay the same weeks, so the weekly differences are paired; their standard deviation over √weeks is the s.e. of weeks, " +
		"deltaq's Q each week the mean over its seeds. The s.e. of seeds is the standard deviation of each seed's mean difference over √seeds: " +
		"a policy that draws at random can be ahead on one seed and behind on another, by more than the weeks' noise says. " +
		"The standard error is √(weeks² + seeds²), which counts the weeks' noise in a seed's mean twice and so errs large.")
	return gt
}

// runsTable lists every run of the sweep, not only the reported ones, so
// that a best τ can be checked against its neighbours and a run's worst
// week and largest weekly spend seen.
func runsTable(runs []RunSummary) *report.Table {
	rt := report.NewTable("Every run", "policy", "τ", "B", "mean Q", "min Q", "fetches/week (max)", "wall time")
	for _, r := range runs {
		pol, tau := r.Policy, ""
		if r.All {
			pol = "all pages (" + r.Policy + ")"
		}
		if r.Split != "" {
			pol += " " + splitLabel(r.Split)
		}
		if r.Seeded {
			pol += fmt.Sprintf(" (seed %d)", r.Seed)
		}
		if usesTau(r.Policy) {
			tau = fmt.Sprintf("%.1f", r.Tau)
		}
		minQ, maxF := math.Inf(1), 0
		for w := 1; w < len(r.Q); w++ {
			minQ = math.Min(minQ, r.Q[w])
			maxF = max(maxF, r.Fetched[w])
		}
		rt.Add(pol, tau, r.Budget, q(r.MeanQ), q(minQ), maxF, r.Took.Round(time.Millisecond).String())
	}
	return rt
}

// writeQPerWeek writes Q week by week, one table per budget with a column
// per reported run, in a collapsed block: the means above hide the weeks
// in which a policy falls behind, and a row per week would bury the rest
// of the report.
func (h *harness) writeQPerWeek(w io.Writer, best []RunSummary) {
	fmt.Fprintf(w, "### Q per week\n\n<details><summary>one table per budget (policies at their best τ, a policy run with several seeds at their mean)</summary>\n\n")
	for _, bu := range h.budgets() {
		var runs []RunSummary
		cols := []string{"week"}
		for _, r := range best {
			if r.Budget == bu {
				runs = append(runs, r)
				cols = append(cols, Label(r))
			}
		}
		t := report.NewTable(fmt.Sprintf("B = %d", bu), cols...)
		for wk := 1; wk < h.c.weeks(); wk++ {
			row := []any{wk}
			for _, r := range runs {
				row = append(row, q(r.Q[wk]))
			}
			t.Add(row...)
		}
		_ = t.Markdown(w)
	}
	fmt.Fprintf(w, "</details>\n\n")
}

// forecastTable summarizes fig. 4.3 in numbers: deltaq ranks by δQ_A
// measured in the past, which pays only if a page's δQ_A in one half of
// the archive predicts it in the other.
func (h *harness) forecastTable(f ForecastSummary) *report.Table {
	ft := report.NewTable("Forecastability of δQ_A (fig. 4.3, forecast.svg)", "what", "value")
	ft.Add("pages re-downloaded in both halves", f.Pages)
	ft.Add("δQ_A = 0 in both halves (not plotted)", f.BothZero)
	ft.Add("δQ_A = 0 in one half (on the edges)", f.OneZero)
	ft.Add("δQ_A < 0 in a half (not drawable)", f.Negative)
	ft.Add("δQ_A > 0 in both halves", f.Positive)
	ft.Add("correlation of ln δQ_A, first vs second half", f.LogCorrelation)
	ft.Add("within a factor of 2 of the diagonal", fmt.Sprintf("%.1f %%", 100*f.WithinFactor2))
	ft.Note("From the run that re-downloads every page every week: δQ_A(p) over weeks 1–%d against weeks %d–%d, "+
		"each the mean of ΔQ_A(p, t)/(t − LR(p, t)) over the half's re-downloads (frontier.EstimateOf), ΔQ_A measured "+
		"by the index during its batch updates (§4.6).", h.c.weeks()/2-1, h.c.weeks()/2, h.c.weeks()-1)
	return ft
}

// wallTimeTable reports what the evaluation cost in time and memory, and
// where the sweep's time went by stage, to size the next run and to see
// which stage to speed up.
func (h *harness) wallTimeTable(sum *Summary, results []*runResult) *report.Table {
	tm := report.NewTable("Wall time", "what", "value")
	tm.Add("preparation (archive, workload, ideal answers, week-0 crawl)", sum.Prepare.Round(time.Millisecond).String())
	sweep := fmt.Sprintf("sweep: %d policy × budget (× τ) runs of %d weeks", countSweep(sum.Runs), h.c.weeks())
	for _, r := range sum.Runs {
		if r.All {
			when := "among the sweep's runs"
			if h.cfg.History == "whole" {
				when = "before the sweep"
			} else {
				sweep += ", with the all-pages run"
			}
			tm.Add("the all-pages run ("+when+")", r.Took.Round(time.Millisecond).String())
		}
	}
	tm.Add(sweep, sum.SweepTook.Round(time.Millisecond).String())
	tm.Add("whole evaluation", sum.Took.Round(time.Millisecond).String())
	tm.Add("runs at once (eval.sync.workers)", sum.Workers)
	tm.Add("memory held by the ideal side of eq. 4.5", fmt.Sprintf("%.1f MiB", float64(sum.IdealBytes)/(1<<20)))
	if sum.MaxRSS > 0 {
		tm.Add("peak resident memory of the process", fmt.Sprintf("%.0f MiB", float64(sum.MaxRSS)/(1<<20)))
	}
	var st stageTimes
	for _, r := range results {
		if !r.Spec.All {
			st.add(r.Stages)
		}
	}
	tm.Add("sweep runs' time by stage (summed over runs): plan, crawl, index, compact, rank",
		fmt.Sprintf("%v, %v, %v, %v, %v", st.Plan.Round(time.Second), st.Crawl.Round(time.Second), st.Index.Round(time.Second),
			st.Compact.Round(time.Second), st.Rank.Round(time.Second)))
	return tm
}

func countSweep(runs []RunSummary) int {
	n := 0
	for _, r := range runs {
		if !r.All {
			n++
		}
	}
	return n
}

// plots are the figures writePlots drew, by file name without extension,
// and those it did not, each with why: a partial report lists only what
// is there.
type plots struct {
	drawn    []string
	notDrawn []string // "q-per-week-B2.svg (no run at B = 2 finished)"
	failed   []error  // the plots that could not be written, also in notDrawn
}

// plotCaptions say what a figure shows, in the report's list of plots.
var plotCaptions = map[string]string{
	"quality-vs-budget": " (fig. 4.4: mean Q on x, B on y)",
	"forecast":          " (fig. 4.3)",
}

// markdown is report.md's line naming the plots.
func (p plots) markdown() string {
	var b strings.Builder
	if len(p.drawn) > 0 {
		names := make([]string, len(p.drawn))
		for i, n := range p.drawn {
			names[i] = n + ".svg" + plotCaptions[n]
		}
		fmt.Fprintf(&b, "Plots: %s.", strings.Join(names, ", "))
	}
	if len(p.notDrawn) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "Not drawn: %s.", strings.Join(p.notDrawn, "; "))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// writePlots draws fig. 4.4, Q per week, fig. 4.3 and the knee, each as
// far as the finished runs allow: a plot with nothing to draw is listed as
// not drawn, with why, and so is one that could not be written, whose
// error is also kept in failed; the others are drawn all the same.
func (h *harness) writePlots(sum *Summary, results []*runResult, outDir string) plots {
	pw := &plotWriter{dir: outDir}
	h.plotQualityVsBudget(pw, sum)
	h.plotQPerWeek(pw, sum)
	h.plotForecast(pw, sum, results)
	h.plotKnee(pw, sum)
	return pw.plots
}

// plotWriter writes figures into dir and keeps the tally writePlots
// returns.
type plotWriter struct {
	dir   string
	plots plots
}

// draw writes pl as name.svg and name.png; one that cannot be written is
// listed as not drawn and its error kept in failed.
func (pw *plotWriter) draw(name string, pl report.Plot) {
	if err := pl.Write(filepath.Join(pw.dir, name)); err != nil {
		pw.plots.notDrawn = append(pw.plots.notDrawn, fmt.Sprintf("%s.svg (%v)", name, err))
		pw.plots.failed = append(pw.plots.failed, fmt.Errorf("synceval: plot %s: %w", name, err))
		return
	}
	pw.plots.drawn = append(pw.plots.drawn, name)
}

// skip lists name as not drawn, because of why.
func (pw *plotWriter) skip(name, why string) {
	pw.plots.notDrawn = append(pw.plots.notDrawn, name+".svg ("+why+")")
}

// plotQualityVsBudget draws fig. 4.4: quality on x, budget on y, one line
// per policy (and split), unless no run finished.
func (h *harness) plotQualityVsBudget(pw *plotWriter, sum *Summary) {
	var series []report.Series
	points := 0
	for _, l := range h.lines() {
		s := qualityVsBudgetSeries(l, sum.Best)
		points += len(s.X)
		series = append(series, s)
	}
	if points == 0 {
		pw.skip("quality-vs-budget", "no policy's run finished")
		return
	}
	pw.draw("quality-vs-budget", report.Plot{Title: sum.Archive + ": repository quality vs re-downloads (fig. 4.4), " + h.historyLabel(),
		X: "mean repository quality Q", Y: "B, re-downloads per week", Series: series})
}

// qualityVsBudgetSeries is l's line in fig. 4.4: its reported runs (best)
// in order of budget. A line with none is still returned, empty: it is not
// drawn, but keeps the colour and dashes of the lines after it.
func qualityVsBudgetSeries(l line, best []RunSummary) report.Series {
	var rs []RunSummary
	for _, r := range best {
		if r.Policy == l.policy && r.Split == l.split {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b RunSummary) int { return cmp.Compare(a.Budget, b.Budget) })
	s := report.Series{Name: l.name(), Style: report.LinesPoints}
	if usesTau(l.policy) {
		s.Name += " (best τ)"
	}
	for _, r := range rs {
		s.Add(r.MeanQ, float64(r.Budget))
	}
	return s
}

// plotQPerWeek draws Q per week, one plot per budget with a line per
// reported run at it; a budget no run finished at is skipped.
func (h *harness) plotQPerWeek(pw *plotWriter, sum *Summary) {
	for _, bu := range h.budgets() {
		var ss []report.Series
		for _, r := range sum.Best {
			if r.Budget == bu {
				ss = append(ss, qPerWeekSeries(r))
			}
		}
		name := fmt.Sprintf("q-per-week-B%d", bu)
		if len(ss) == 0 {
			pw.skip(name, fmt.Sprintf("no run at B = %d finished", bu))
			continue
		}
		pw.draw(name, report.Plot{Title: fmt.Sprintf("%s: Q(W^L) per week, B = %d, %s", sum.Archive, bu, h.historyLabel()), X: "week", Y: "Q", Series: ss})
	}
}

// qPerWeekSeries is r's line in its Q-per-week plot, from week 1: week 0
// is the repository before any re-download, the same for every run.
func qPerWeekSeries(r RunSummary) report.Series {
	s := report.Series{Name: Label(r), Style: report.Lines}
	for w := 1; w < len(r.Q); w++ {
		s.Add(float64(w), r.Q[w])
	}
	return s
}

// plotForecast draws fig. 4.3 from the all-pages run, or says why there
// is nothing to draw.
func (h *harness) plotForecast(pw *plotWriter, sum *Summary, results []*runResult) {
	allRun := allPagesRun(results)
	switch {
	case allRun == nil && !h.cfg.Forecast && h.cfg.History != "whole":
		pw.skip("forecast", "no all-pages run: eval.sync.forecast is off")
	case allRun == nil:
		pw.skip("forecast", "the all-pages run did not finish")
	case len(allRun.Forecast) == 0:
		pw.skip("forecast", "no page re-downloaded in both halves")
	default:
		if fp, ok := forecastPlot(sum.Archive, allRun.Forecast, h.c.weeks()); ok {
			pw.draw("forecast", fp)
		} else {
			pw.skip("forecast", "no page with δQ_A > 0")
		}
	}
}

// allPagesRun is the finished run that re-fetched every page every week
// (the last, were there several), or nil.
func allPagesRun(results []*runResult) *runResult {
	var allRun *runResult
	for _, r := range results {
		if r.Spec.All {
			allRun = r
		}
	}
	return allRun
}

// plotKnee draws the workload's knee: the queries' summed week-0 scores,
// highest first, on a log scale, with the point the filter cut at marked
// when it is the knee filter.
func (h *harness) plotKnee(pw *plotWriter, sum *Summary) {
	scores := slices.Clone(h.wl.scores)
	sortDescending(scores)
	all := report.Series{Name: "summed week-0 score", Style: report.Lines}
	for i, s := range scores {
		all.Add(float64(i+1), s)
	}
	ss := []report.Series{all}
	if h.cfg.Filter == "knee" {
		ss = append(ss, report.Series{Name: fmt.Sprintf("knee: %d kept", len(h.wl.queries)), Style: report.Points,
			X: []float64{float64(len(h.wl.queries))}, Y: []float64{h.wl.threshold}})
	}
	pw.draw("workload-knee", report.Plot{Title: sum.Archive + ": queries by relevance to week 0", X: "query rank", Y: "Σ_p S(W_0[p], q)", LogY: true, Series: ss})
}

// forecastPlot draws δQ_A over the first half against the second, log-log,
// with the diagonal; a zero in one half is drawn on that axis's edge
// (a third of the smallest positive value), and pages are coloured by
// quartile of their distance to the diagonal, as in fig. 4.3. ok is false
// when no page has δQ_A > 0 in a half: nothing to draw.
func forecastPlot(name string, pages []forecastPage, weeks int) (pl report.Plot, ok bool) {
	lo := math.Inf(1)
	for _, p := range pages {
		for _, v := range []float64{p.First, p.Second} {
			if v > 0 {
				lo = math.Min(lo, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return report.Plot{}, false
	}
	edge := lo / 3
	type pt struct{ x, y, d float64 }
	var pts []pt
	for _, p := range pages {
		if p.First < 0 || p.Second < 0 || p.First == 0 && p.Second == 0 {
			continue
		}
		x, y := p.First, p.Second
		if x == 0 {
			x = edge
		}
		if y == 0 {
			y = edge
		}
		pts = append(pts, pt{x, y, math.Abs(math.Log(y / x))})
	}
	slices.SortStableFunc(pts, func(a, b pt) int { return cmp.Compare(a.d, b.d) })
	names := []string{"closest quarter to y = x", "second quarter", "third quarter", "farthest quarter"}
	var ss []report.Series
	for k := range 4 {
		s := report.Series{Name: names[k], Style: report.Points}
		for i := k * len(pts) / 4; i < (k+1)*len(pts)/4; i++ {
			s.Add(pts[i].x, pts[i].y)
		}
		ss = append(ss, s)
	}
	return report.Plot{Title: fmt.Sprintf("%s: δQ_A per page, weeks 1–%d vs %d–%d (fig. 4.3)", name, weeks/2-1, weeks/2, weeks-1),
		X: fmt.Sprintf("δQ_A, weeks 1–%d", weeks/2-1), Y: fmt.Sprintf("δQ_A, weeks %d–%d", weeks/2, weeks-1),
		LogX: true, LogY: true, Diagonal: true, Series: ss, Width: 14, Height: 14}, true
}

// semanticsSentence states what a query means in the report
// (eval.sync.semantics).
func semanticsSentence(cfg Config) string {
	if cfg.Semantics == SemanticsSearcher {
		r := cfg.Index.Retrieval
		return fmt.Sprintf("Semantics: the searcher's (eval.sync.semantics = searcher): a query is answered and scored as `deltaq serve` ranks it "+
			"(index.Ranker.Match; best-match BM25 over deltaq's own statistics, k1 = %g, b = %g; all words of a query of at most %d words, "+
			"a share %g of a longer one's (at least one), any word when fewer than %d pages qualify; RM3 from the best %d pages for longer queries, without the words new to the query that more than %g of the pages hold), "+
			"S(W[p], q) by the same formulas on the live copy under the live week's N and mean length. "+
			"A(q, ·) is, on both sides, the first %d results (ranking.candidates: the searcher orders and pages no more); a page below them is never seen.",
			r.K1, r.B, r.ShortQueryTerms, r.MinShouldMatch, r.MinResults, r.FeedbackDocs, r.FeedbackMaxDF, cfg.Candidates)
	}
	return fmt.Sprintf("Semantics: the thesis's (eval.sync.semantics = thesis): a query's terms ANDed, in Bleve's relevance order (index.Ranker.Rank); "+
		"S is Bleve's %s conjunction score under the live week's statistics as one segment; the index's statistics are those of it compacted, every week (index.AssumeCompacted). "+
		"A(q, ·) is every result.", cfg.Index.Scoring)
}
