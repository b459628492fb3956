package feedseval

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/paired"
	"github.com/deltaq/deltaq/eval/report"
)

// Target is one of the evaluation's pass/fail bars, with what was measured.
type Target struct {
	Name     string
	Met      bool
	Measured string
}

// runs are the results of policy at perDay under learning, one a seed.
func (s *Summary) runs(learning, policy string, perDay float64) []Result {
	var out []Result
	for _, r := range s.Results {
		if r.Learning == learning && r.Policy == policy && r.PerDay == perDay {
			out = append(out, r)
		}
	}
	return out
}

// find returns the result of policy at perDay under learning, if run:
// each figure the mean over the seeds (Seed is 0).
func (s *Summary) find(learning, policy string, perDay float64) (Result, bool) {
	rs := s.runs(learning, policy, perDay)
	if len(rs) == 0 {
		return Result{}, false
	}
	m := Result{Learning: learning, Policy: policy, PerDay: perDay, Postings: rs[0].Postings}
	n := time.Duration(len(rs))
	for _, r := range rs {
		m.Mean += r.Mean / n
		m.Max += r.Max / n
		m.P50 += r.P50 / n
		m.P90 += r.P90 / n
		m.SlowMean += r.SlowMean / n
		m.Expected += r.Expected / n
		m.PollsPerFeedDay += r.PollsPerFeedDay / float64(n)
	}
	return m, true
}

// meanRange is the lowest and highest of the seeds' mean delays; policy
// must have run.
func (s *Summary) meanRange(learning, policy string, perDay float64) (lo, hi time.Duration) {
	var means []time.Duration
	for _, r := range s.runs(learning, policy, perDay) {
		means = append(means, r.Mean)
	}
	return slices.Min(means), slices.Max(means)
}

func (s *Summary) budgets() []float64 {
	return firstSeen(s.Results, func(r Result) float64 { return r.PerDay })
}

func (s *Summary) learnings() []string {
	return firstSeen(s.Results, func(r Result) string { return r.Learning })
}

// learnedAs names a learning in the report's prose and titles.
func learnedAs(learning string) string {
	if learning == Hindsight {
		return "with hindsight"
	}
	return "learned " + learning
}

// upperFirst starts an ASCII phrase with a capital, to open a sentence.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// firstSeen lists the distinct keys of rs in the order they first appear.
func firstSeen[K comparable](rs []Result, key func(Result) K) []K {
	var out []K
	for _, r := range rs {
		if k := key(r); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// ageRatioBar is the most combined's mean delay may be, as a share of
// cgm-age's, at one poll per feed per day.
const ageRatioBar = 0.67

// Targets checks the bars of the issue: at every budget combined <
// allocation-only < uniform and combined < placement-only < uniform in mean
// delay; combined ≤ 0.67 × CGM-age at one poll per feed per day (the paper
// reports about half). Hindsight is a bound, not a protocol: it has none.
func (s *Summary) Targets() []Target {
	var out []Target
	for _, l := range s.learnings() {
		if l == Hindsight {
			continue
		}
		order := Target{Name: fmt.Sprintf("%s: combined < allocation-only < uniform and combined < placement-only < uniform at every budget", learnedAs(l)), Met: true}
		var parts []string
		for _, b := range s.budgets() {
			c, _ := s.find(l, Combined, b)
			a, _ := s.find(l, AllocOnly, b)
			p, _ := s.find(l, PlacementOnly, b)
			u, _ := s.find(l, Uniform, b)
			ok := c.Mean < a.Mean && a.Mean < u.Mean && c.Mean < p.Mean && p.Mean < u.Mean
			order.Met = order.Met && ok
			parts = append(parts, fmt.Sprintf("%g/day: %s, %s, %s, %s", b, hours(c.Mean), hours(a.Mean), hours(p.Mean), hours(u.Mean)))
		}
		order.Measured = strings.Join(parts, "; ")
		out = append(out, order)
		if r, ok := s.ageRatio(l); ok {
			c, _ := s.find(l, Combined, 1)
			g, _ := s.find(l, CGMAge, 1)
			measured := fmt.Sprintf("%s / %s = %.3f", hours(c.Mean), hours(g.Mean), r)
			// Each seed's own ratio, its combined against its cgm-age, and
			// how far their mean is from the bar in standard errors: a
			// ratio a few thousandths from it is within the seeds' noise.
			cs, gs := s.runs(l, Combined, 1), s.runs(l, CGMAge, 1)
			if len(cs) > 1 && len(cs) == len(gs) {
				ratios := make([]float64, len(cs))
				bar := make([]float64, len(cs))
				for i := range cs {
					ratios[i] = cs[i].Mean.Seconds() / gs[i].Mean.Seconds()
					bar[i] = ageRatioBar
				}
				d := paired.Compare(ratios, bar)
				measured += fmt.Sprintf(" (mean of %d seeds; each seed's ratio %.3f–%.3f, their mean %.4f ± %.4f s.e., %+.1f s.e. from %g)",
					len(cs), slices.Min(ratios), slices.Max(ratios), ageRatioBar+d.Mean, d.StdErr, d.Ratio(), ageRatioBar)
			}
			out = append(out, Target{
				Name:     fmt.Sprintf("%s: combined ≤ %g × cgm-age mean delay at 1/day", learnedAs(l), ageRatioBar),
				Met:      r <= ageRatioBar,
				Measured: measured,
			})
		}
	}
	if c := s.Crawl; c != nil {
		out = append(out, Target{
			Name: fmt.Sprintf("the real crawler against deltaq web feeds over %d week(s): measured mean delay within 5 %% of the trace-driven one", c.Weeks),
			Met:  c.Within(0.05),
			Measured: fmt.Sprintf("%s measured / %s trace-driven = %.4f over %d postings; %d of %d missed (over %d postings between two polls)",
				hours(c.CrawlMean), hours(c.TraceMeanSeen), c.Ratio, c.Seen, c.Missed, c.Postings, c.Items),
		})
	}
	return out
}

func hours(d time.Duration) string { return fmt.Sprintf("%.2f h", d.Hours()) }

// Write writes report.md, results.csv and the plots into dir.
func (s *Summary) Write(dir string, cfg Config) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	all := report.NewTable("Delay of every posting on the evaluation weeks, every run",
		"learning", "policy", "per_day", "seed", "mean_delay_s", "max_delay_s", "p50_delay_s", "p90_delay_s",
		"slow_quarter_mean_delay_s", "model_mean_delay_s", "polls_per_feed_day", "postings")
	for _, r := range s.Results {
		all.Add(r.Learning, r.Policy, r.PerDay, r.Seed, int64(r.Mean.Seconds()), int64(r.Max.Seconds()), int64(r.P50.Seconds()),
			int64(r.P90.Seconds()), int64(r.SlowMean.Seconds()), int64(r.Expected.Seconds()), r.PollsPerFeedDay, r.Postings)
	}
	if err := all.WriteCSV(filepath.Join(dir, "results.csv")); err != nil {
		return err
	}
	targets := report.NewTable("Targets", "target", "met", "measured (combined, allocation-only, placement-only, uniform)")
	for _, t := range s.Targets() {
		targets.Add(t.Name, t.Met, t.Measured)
	}
	var tables []*report.Table
	tables = append(tables, targets)
	for _, l := range s.learnings() {
		tables = append(tables, s.meanTable(l), s.oneADay(l))
		if t := s.gapTable(l); t != nil {
			tables = append(tables, t)
		}
	}
	if c := s.Crawl; c != nil {
		ct := report.NewTable("Through the real crawler (combined, learned once, 1 poll per feed per day)",
			"weeks", "items shown", "polls", "fetched", "304", "postings", "seen", "missed", "trace mean h (all)", "trace mean h (seen)", "crawler mean h (seen)", "ratio")
		ct.Add(c.Weeks, c.Items, c.Polls, c.Fetched, c.NotModified, c.Postings, c.Seen, c.Missed, c.TraceMean.Hours(), c.TraceMeanSeen.Hours(), c.CrawlMean.Hours(), c.Ratio)
		ct.Note("The schedule's polls were queued in the real frontier at their times on a manual clock; the real crawler fetched them (conditional GET, robots, politeness) from deltaq web feeds on loopback into a Pebble repository, and each posting was dated by the first poll whose stored copy listed it. Missed postings fell out of a feed's latest %d before the next poll: the trace-driven figure cannot see that loss.", c.Items)
		tables = append(tables, ct)
	}
	tables = append(tables, s.clusterTable())
	all.Note("model_mean_delay_s is what the first learned model predicts for the first week's plan (Lemma 1); it is 0 for WIC, whose polls are not a weekly plan. slow_quarter is the quarter of the feeds with the lowest learned rate.")
	tables = append(tables, all)
	if err := report.WriteMarkdown(filepath.Join(dir, "report.md"), s.header(cfg), tables...); err != nil {
		return err
	}
	for _, l := range s.learnings() {
		for _, what := range []struct {
			name, label string
			get         func(Result) time.Duration
		}{{"mean", "mean delay (hours)", func(r Result) time.Duration { return r.Mean }},
			{"max", "max delay (hours)", func(r Result) time.Duration { return r.Max }}} {
			var series []report.Series
			for _, p := range s.policyNames() {
				var x, y []float64
				for _, b := range s.budgets() {
					if r, ok := s.find(l, p, b); ok {
						x = append(x, b)
						y = append(y, max(what.get(r).Hours(), 1e-3))
					}
				}
				series = append(series, report.Series{Name: p, X: x, Y: y, Style: report.LinesPoints})
			}
			pl := report.Plot{Title: fmt.Sprintf("Feed delay, %s (real commit feeds, 2025)", learnedAs(l)),
				X: "polls per feed per day", Y: what.label, LogX: true, LogY: true, Series: series}
			if err := pl.Write(filepath.Join(dir, fmt.Sprintf("%s-delay-%s", what.name, l))); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Summary) policyNames() []string {
	var out []string
	for _, r := range s.Results {
		if !slices.Contains(out, r.Policy) {
			out = append(out, r.Policy)
		}
	}
	return out
}

func (s *Summary) header(cfg Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Feed polling: Sia & Cho's policies, Cho & Garcia-Molina's, and WIC, on real posting times\n\n")
	fmt.Fprintf(&b, "Real data: the 2025 posting times of %d public repositories' commit Atom feeds (datasets/feeds). "+
		"Trace-driven as in Sia & Cho §5: every policy is learned on %s – %s (%d postings) and then polls; "+
		"each of the %d postings of %s – %s is delayed until the policy's next poll of its feed. "+
		"Every policy spends the same polls per week (column polls_per_feed_day); per-feed bounds: at least one poll a week, at most one per 15 minutes, for every policy. ",
		s.Feeds, s.LearnFrom.Format(time.DateOnly), s.EvalFrom.Format(time.DateOnly), s.LearnPostings,
		s.EvalPostings, s.EvalFrom.Format(time.DateOnly), s.EvalTo.Format(time.DateOnly))
	if cfg.Seeds > 1 {
		fmt.Fprintf(&b, "Every run is repeated with seeds %d–%d (the k-means starts of the learning, the evenly spaced policies' phases): the tables, plots and targets show the mean over the seeds, results.csv every run.\n\n",
			cfg.Seed, cfg.Seed+uint64(cfg.Seeds)-1)
	} else {
		fmt.Fprintf(&b, "Seed %d alone: one seed's figures move by several percent with the seed (eval.feeds.seeds).\n\n", cfg.Seed)
	}
	b.WriteString("Policies: **uniform** (equal polls, evenly spaced, random phase per feed); **placement-only** (equal polls placed by Thm. 3 on the learned weekly λ(t)); " +
		"**allocation-only** (square-root rule, Thm. 1, evenly spaced); **combined** (Thm. 1 and Thm. 3 together: the square-root allocation, then single polls moved between feeds while the placed plans' expected delay falls); " +
		"**cgm-age** / **cgm-freshness** (Cho & Garcia-Molina's age- and freshness-optimal allocations, evenly spaced); **wic-linear-H** (the monitor package's WIC greedy with append life and linear urgency of horizon H, π = learned expected postings per 5-minute instant; a feed at its max interval is polled at once and one within its min interval is not picked, so WIC keeps the bounds every policy keeps).\n\n")
	b.WriteString("**learned once** is the paper's protocol: one model per feed, learned at the end of the learning weeks and kept for the rest of the year. **learned weekly** re-learns every Monday from the postings that the policy's own polls had retrieved by then (no look-ahead). Both learn as the live planner does: profiles chosen on the weeks before (feeds.profile_windows, feeds.bin_weights, feeds.prior_weights: the window, bin-level refinement and weight of the cluster's pattern that best predicted the last feeds.profile_holdout_weeks, each from what came before it), rates weighted by age (feeds.rate_half_lives) and shrunk towards all feeds' pooled rate as far as that predicted the past weeks better (feeds.rate_priors), each feed's postings known up to its last poll; every policy gets the same estimator.")
	if slices.Contains(s.learnings(), Hindsight) {
		b.WriteString(" **With hindsight** fits every feed's model to the evaluation weeks themselves (feeds.LearnAll over them: the year's rate and profile) and keeps it all year: not a protocol but a bound, the stationary model a perfect learner would reach, so the gap between it and the learnings above is what they could not know in advance.")
	}
	b.WriteString("\n\n")
	b.WriteString(s.findings())
	return b.String()
}

// findings states what the tables show in words, from the numbers.
func (s *Summary) findings() string {
	var b strings.Builder
	b.WriteString("## Findings\n\n")
	for _, l := range s.learnings() {
		u, _ := s.find(l, Uniform, 1)
		a, _ := s.find(l, AllocOnly, 1)
		p, _ := s.find(l, PlacementOnly, 1)
		c, _ := s.find(l, Combined, 1)
		g, _ := s.find(l, CGMAge, 1)
		if u.Mean == 0 {
			continue
		}
		fmt.Fprintf(&b, "- %s, 1 poll per feed per day: placement cuts the mean delay by %.0f %% against uniform, allocation by %.0f %%, both together by %.0f %%; combined's mean delay is %.3f × cgm-age's (the paper reports about half).\n",
			upperFirst(learnedAs(l)), 100*(1-p.Mean.Seconds()/u.Mean.Seconds()), 100*(1-a.Mean.Seconds()/u.Mean.Seconds()), 100*(1-c.Mean.Seconds()/u.Mean.Seconds()), c.Mean.Seconds()/g.Mean.Seconds())
		fmt.Fprintf(&b, "- Starvation: allocation-only's max delay is %s against uniform's %s (%.1f×); the slowest quarter of the feeds waits %s on average under allocation-only against %s under uniform.\n",
			hours(a.Max), hours(u.Max), a.Max.Seconds()/u.Max.Seconds(), hours(a.SlowMean), hours(u.SlowMean))
		var wic []string
		for _, p := range s.policyNames() {
			if r, ok := s.find(l, p, 1); ok && strings.HasPrefix(p, WICLinear) {
				wic = append(wic, fmt.Sprintf("%s mean %s, max %s", p, hours(r.Mean), hours(r.Max)))
			}
		}
		if len(wic) > 0 {
			fmt.Fprintf(&b, "- WIC with linear urgency, same budget: %s. Its greedy polls the feed with the most expected postings pending, λ·(time since its last poll), which spaces polls ∝ 1/λ (proportional allocation): slow feeds get little beyond the floor of their max interval, and a shorter horizon makes it worse, since postings older than the horizon are worth nothing, so a slow feed's utility never reaches a fast one's and only the floor polls it. Urgency functions are non-increasing, so WIC cannot express a value that grows with delay, which is what minimising delay needs.\n", strings.Join(wic, "; "))
		}
		if p.Max > u.Max {
			fmt.Fprintf(&b, "- Unlike the paper's finding, placement raises the max delay here (placement-only %s against uniform %s): on a weekly profile it spaces a feed's polls unevenly, close together in its busy hours and days and far apart over its quiet ones (weekends), so the longest gap grows.\n", hours(p.Max), hours(u.Max))
		} else {
			fmt.Fprintf(&b, "- Placement keeps the max delay at %s (uniform %s).\n", hours(p.Max), hours(u.Max))
		}
	}
	b.WriteString(s.hindsightFinding())
	b.WriteString("\n")
	return b.String()
}

// ageRatio is combined's mean delay over cgm-age's at one poll a day,
// learned as l: the paper's headline ratio. ok is false when either did
// not run.
func (s *Summary) ageRatio(l string) (float64, bool) {
	c, ok1 := s.find(l, Combined, 1)
	g, ok2 := s.find(l, CGMAge, 1)
	if !ok1 || !ok2 || g.Mean <= 0 {
		return 0, false
	}
	return c.Mean.Seconds() / g.Mean.Seconds(), true
}

// hindsightFinding compares combined / cgm-age with hindsight against
// the learnings without it, at one poll a day: how much of the gap to the
// paper's ratio is what the models could not know in advance.
func (s *Summary) hindsightFinding() string {
	h, ok := s.ageRatio(Hindsight)
	if !ok {
		return ""
	}
	var others []string
	for _, l := range s.learnings() {
		if r, ok := s.ageRatio(l); ok && l != Hindsight {
			others = append(others, fmt.Sprintf("%.3f %s", r, learnedAs(l)))
		}
	}
	c, _ := s.find(Hindsight, Combined, 1)
	return fmt.Sprintf("- With hindsight (every feed's rate and profile fitted to the evaluation weeks themselves and kept all year: a stationary model no scheduler can learn in advance), combined's mean delay at 1 poll a day is %s, %.3f × cgm-age's, against %s. The difference is what the models learned from the past did not know about the weeks they planned; the rest is the stationary model's own limit.\n",
		hours(c.Mean), h, strings.Join(others, " and "))
}

func (s *Summary) meanTable(l string) *report.Table {
	cols := []string{"policy"}
	for _, b := range s.budgets() {
		cols = append(cols, fmt.Sprintf("%g/day", b))
	}
	t := report.NewTable(fmt.Sprintf("Mean delay in hours, %s (Fig. 11 analog)", learnedAs(l)), cols...)
	for _, p := range s.policyNames() {
		row := []any{p}
		for _, b := range s.budgets() {
			r, _ := s.find(l, p, b)
			row = append(row, r.Mean.Hours())
		}
		t.Add(row...)
	}
	return t
}

func (s *Summary) oneADay(l string) *report.Table {
	t := report.NewTable(fmt.Sprintf("One poll per feed per day, %s (the paper's two tables)", learnedAs(l)),
		"policy", "mean h", "seeds' means h", "max h", "p90 h", "slowest quarter mean h", "mean / cgm-age")
	g, _ := s.find(l, CGMAge, 1)
	for _, p := range s.policyNames() {
		r, ok := s.find(l, p, 1)
		if !ok {
			continue
		}
		lo, hi := s.meanRange(l, p, 1)
		t.Add(p, r.Mean.Hours(), fmt.Sprintf("%.2f–%.2f", lo.Hours(), hi.Hours()), r.Max.Hours(), r.P90.Hours(), r.SlowMean.Hours(), r.Mean.Seconds()/max(g.Mean.Seconds(), 1))
	}
	return t
}

// feedGap is one feed's part in the difference between two policies'
// mean delays.
type feedGap struct {
	Name     string
	Postings int
	A, B     time.Duration // the mean delay of its postings under each policy
	Share    time.Duration // its postings' summed delay under a minus under b, over all postings
}

// feedGaps splits the difference between policies a's and b's mean delays
// at perDay, learned as l (means over the seeds), feed by feed: the shares
// add up to a's mean minus b's. Largest share first; nil when either did
// not run.
func (s *Summary) feedGaps(l, a, b string, perDay float64) []feedGap {
	ra, rb := s.runs(l, a, perDay), s.runs(l, b, perDay)
	if len(ra) == 0 || len(rb) == 0 || s.EvalPostings == 0 {
		return nil
	}
	summed := func(rs []Result, i int) float64 { // seconds, the mean over the seeds
		var t float64
		for _, r := range rs {
			if i < len(r.FeedDelay) {
				t += r.FeedDelay[i]
			}
		}
		return t / float64(len(rs))
	}
	var out []feedGap
	for i, name := range s.FeedNames {
		n := s.FeedPostings[i]
		if n == 0 {
			continue
		}
		da, db := summed(ra, i), summed(rb, i)
		out = append(out, feedGap{Name: name, Postings: n, A: seconds(da / float64(n)), B: seconds(db / float64(n)),
			Share: seconds((da - db) / float64(s.EvalPostings))})
	}
	slices.SortStableFunc(out, func(x, y feedGap) int { return cmp.Compare(y.Share, x.Share) })
	return out
}

// gapTable lists the feeds where combined falls furthest behind cgm-age at
// one poll a day, learned as l: a mean over tens of thousands of postings
// can still hang on one feed's burst. Nil when either did not run.
func (s *Summary) gapTable(l string) *report.Table {
	gaps := s.feedGaps(l, Combined, CGMAge, 1)
	if gaps == nil {
		return nil
	}
	c, _ := s.find(l, Combined, 1)
	g, _ := s.find(l, CGMAge, 1)
	t := report.NewTable(fmt.Sprintf("Where cgm-age is furthest ahead of combined, 1 poll per feed per day, %s", learnedAs(l)),
		"feed", "postings", "combined mean h", "cgm-age mean h", "share of the difference h")
	for _, gap := range gaps[:min(5, len(gaps))] {
		if gap.Share <= 0 {
			break
		}
		t.Add(gap.Name, gap.Postings, gap.A.Hours(), gap.B.Hours(), gap.Share.Hours())
	}
	t.Note("A feed's share is its postings' summed delay under combined minus under cgm-age, divided by all %d postings: the shares of all feeds add up to the difference of the two means, %.3f h − %.3f h = %.3f h. Means over the seeds.",
		s.EvalPostings, c.Mean.Hours(), g.Mean.Hours(), (c.Mean - g.Mean).Hours())
	return t
}

func (s *Summary) clusterTable() *report.Table {
	t := report.NewTable("Daily posting patterns (k-means centroids of the learning weeks, UTC)", "cluster", "busiest 8 h (UTC)", "share of the day's postings in them")
	for i, c := range s.Clusters {
		peak, best := 0, 0.0
		for h := range 24 {
			w := 0.0
			for k := range 8 {
				w += c[(h+k)%24]
			}
			if w > best {
				peak, best = h, w
			}
		}
		t.Add(i, fmt.Sprintf("%02d–%02d", peak, (peak+8)%24), best)
	}
	return t
}
