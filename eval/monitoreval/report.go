package monitoreval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/monitor"
)

// Target is one pass/fail bar with what was measured.
type Target struct {
	Name     string
	Met      bool
	Measured string
}

func (s *Summary) find(setting string, c int, r float64) (Result, bool) {
	for _, x := range s.Results {
		if x.Setting == setting && x.C == c && x.R == r {
			return x, true
		}
	}
	return Result{}, false
}

func (s *Summary) cs(setting string) []int {
	var out []int
	for _, x := range s.Results {
		if x.Setting == setting && !slices.Contains(out, x.C) {
			out = append(out, x.C)
		}
	}
	return out
}

func (s *Summary) rs() []float64 {
	var out []float64
	for _, x := range s.Results {
		if x.R >= 0 && !slices.Contains(out, x.R) {
			out = append(out, x.R)
		}
	}
	return out
}

// settings are the settings run: the weekly archive first, if run, then
// the synthetic web under each life.
func (s *Summary) settings() []string {
	var out []string
	if s.Weekly != "" {
		out = append(out, s.Weekly)
	}
	return append(out, s.Synthetic...)
}

// Targets checks the paper's trade-off (§5.3): r = 1 captures 1.2–1.8×
// the changes of r = 0, r = 0's zero-delay fraction is ≥ 0.9 and r = 1's
// lower; on the weekly archive at its two smallest C, on the synthetic web
// (under each life) at the paper's C of Fig. 8 (eval.monitor.figure_c).
func (s *Summary) Targets(figureC int) []Target {
	var out []Target
	for _, setting := range s.settings() {
		cs := s.cs(setting)
		cs = cs[:min(2, len(cs))]
		if slices.Contains(s.Synthetic, setting) && slices.Contains(s.cs(setting), figureC) {
			cs = []int{figureC}
		}
		for _, c := range cs {
			r0, ok0 := s.find(setting, c, 0)
			r1, ok1 := s.find(setting, c, 1)
			if !ok0 || !ok1 || r0.Captured == 0 {
				continue
			}
			ratioMet, zeroMet := paperHolds(r0, r1)
			out = append(out, Target{
				Name:     fmt.Sprintf("%s, C=%d: r=1 captures 1.2–1.8× the changes of r=0", setting, c),
				Met:      ratioMet,
				Measured: fmt.Sprintf("%.3f / %.3f = %.2f", r1.Captured, r0.Captured, r1.Captured/r0.Captured),
			})
			out = append(out, Target{
				Name:     fmt.Sprintf("%s, C=%d: r=0's zero-delay fraction ≥ 0.9 and r=1's lower", setting, c),
				Met:      zeroMet,
				Measured: fmt.Sprintf("r=0 %.3f, r=1 %.3f", r0.ZeroDelay, r1.ZeroDelay),
			})
		}
	}
	return out
}

// Write writes report.md, results.csv and the figures into dir.
func (s *Summary) Write(dir string, cfg Config) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	all := report.NewTable("Every run", "setting", "C", "r", "captured", "zero_delay", "utility", "changes",
		"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10plus")
	for _, x := range s.Results {
		r := fmt.Sprint(x.R)
		if x.R < 0 {
			r = "round-robin"
		}
		row := []any{x.Setting, x.C, r, x.Captured, x.ZeroDelay, x.Utility, x.Changes}
		for _, d := range x.Delays {
			row = append(row, d)
		}
		all.Add(row...)
	}
	if err := all.WriteCSV(filepath.Join(dir, "results.csv")); err != nil {
		return err
	}
	targets := report.NewTable("Targets", "target", "met", "measured")
	for _, t := range s.Targets(cfg.FigureC) {
		targets.Add(t.Name, t.Met, t.Measured)
	}
	tables := []*report.Table{targets}
	for _, setting := range s.settings() {
		tables = append(tables, s.fig7(setting), s.fig8(setting, cfg.FigureC))
		if err := s.plots(dir, setting, cfg.FigureC); err != nil {
			return err
		}
	}
	if t := s.sweepTable(cfg.FigureC); t != nil {
		tables = append(tables, t)
	}
	tables = append(tables, all)
	var b strings.Builder
	b.WriteString("# WIC: the timeliness–completeness trade-off\n\n")
	fmt.Fprintf(&b, "The monitor package's WIC greedy (Pandey et al. Algorithm 1) with exponential urgency r^t, on a real weekly archive and a synthetic web. "+
		"π comes from the real changes through the paper's noise protocol (§5.2): each change removed with probability FPN = %g and a spurious one inserted at a random instant, then spread as a Gaussian of s.d. σ instants. "+
		"A change counts as captured when a later fetch finds it still on the page (life with the real changes); its delay is the instants between. Round-robin fetches C pages an instant in a fixed cycle. Seed %d.\n\n", cfg.FPN, cfg.Seed)
	if s.Weekly != "" {
		lists := fmt.Sprintf("list pages, Change-window-Append (Z = 10 on the home page, 20 on the news, events, topic and author lists): %d of them; every other page is Overwrite", s.WeeklyLists)
		if s.WeeklyLists == 0 {
			lists = "none of them a list page by digitalgov's paths (the home page and the news, events, topic and author lists), so every page is Overwrite"
		}
		fmt.Fprintf(&b, "- **%s** (real): one instant is one week (%d weekly transitions); %d pages with at least one real body change, %d changes; %s. σ = %g weeks.\n",
			s.Weekly, s.Instants[s.Weekly], s.Pages[s.Weekly], s.Changes[s.Weekly], lists, cfg.WeeklySigma)
	}
	if len(s.Synthetic) > 0 {
		a := cfg.Auction
		var lives []string
		for _, l := range cfg.SynthLives {
			lives = append(lives, lifeTitle(synthLives[l]))
		}
		first := s.Synthetic[0]
		fmt.Fprintf(&b, "- **SYNTHETIC auction web** (not real data): %d auction pages, each an auction live in the day, %d one-minute instants. "+
			"Durations %v days with shares %v; bids per auction geometric with mean %g; bids in three stages (Shmueli, Russo & Jank 2007): %g of them in the opening %.3g of the auction, %g in the closing %.3g with time before the end a power law of exponent %g (Roth & Ockenfels 2002), the rest even over the middle. "+
			"%d changes (page-minutes with a bid). σ = %g minutes. The one web is scored under each life of %s: Unbounded-Append is the paper's for Figs. 7–9, and for Overwrite §5.3 reports \"similar results\".\n\n",
			s.Pages[first], a.Instants, a.Durations, a.Shares, a.MeanBids, a.Early, a.Stage, a.Late, a.Stage, a.Snipe, s.Changes[first], cfg.Sigma, strings.Join(lives, " and "))
	}
	b.WriteString(s.findings(cfg.FigureC, cfg.FPN))
	if err := report.WriteMarkdown(filepath.Join(dir, "report.md"), b.String(), tables...); err != nil {
		return err
	}
	return nil
}

func (s *Summary) findings(figureC int, fpn float64) string {
	var b strings.Builder
	b.WriteString("## Findings\n\n")
	for _, t := range s.Targets(figureC) {
		verdict := "met"
		if !t.Met {
			verdict = "not met"
		}
		fmt.Fprintf(&b, "- %s: %s (%s).\n", t.Name, verdict, t.Measured)
	}
	if len(s.Exact) > 0 {
		b.WriteString("- The synthetic runs follow the paper's protocol (§5: utility over all changes; a change is captured with zero delay when fetched in its own instant; π is the exact 0/1 changes with each removed with probability FPN and re-inserted at a random instant, then spread as a Gaussian of s.d. σ, peak ≈ 0.2 at σ = 2).\n")
	}
	for _, setting := range s.Synthetic {
		if x := s.Exact[setting]; x != nil {
			b.WriteString(s.exactFinding(setting, x, fpn))
		}
	}
	for _, setting := range s.settings() {
		b.WriteString(s.everyCFinding(setting))
	}
	b.WriteString(s.sweepFinding(figureC))
	if s.Weekly != "" {
		b.WriteString("- At week resolution a page changes at most once an instant and most pages change a few times a year: zero delay means fetching in the very week of a change, which π smeared over weeks cannot time, so r=0 cannot reach the paper's zero-delay share on this data; the weekly rows show the direction of the trade-off (r=1 captures more, with longer delays), not its minute-level magnitude.\n")
	}
	b.WriteString("\n")
	return b.String()
}

// captureRatio is the share of the changes r1 captures over r0's (the
// paper's r=1 / r=0).
func captureRatio(r0, r1 Result) float64 { return r1.Captured / max(r0.Captured, 1e-9) }

// paperHolds says whether r=0 and r=1 at one C show the paper's figures:
// r=1 capturing 1.2–1.8× the changes of r=0, and r=0 over 90 % of its
// captures at zero delay with r=1 lower.
func paperHolds(r0, r1 Result) (ratioMet, zeroMet bool) {
	ratio := captureRatio(r0, r1)
	return ratio >= 1.2 && ratio <= 1.8, r0.ZeroDelay >= 0.9 && r1.ZeroDelay < r0.ZeroDelay
}

// sweepTable is the bids sweep: the paper's figures at C against the
// synthetic web's load.
func (s *Summary) sweepTable(c int) *report.Table {
	if len(s.Sweep) == 0 {
		return nil
	}
	t := report.NewTable(fmt.Sprintf("SYNTHETIC auction web, C=%d, against its load (eval.monitor.bids_sweep)", c),
		"mean bids", "pages changing a minute", "life", "r=0 captured", "r=1 captured", "r=1 / r=0", "r=0 zero-delay", "r=1 zero-delay", "1.2–1.8×", "r=0 ≥ 0.9, r=1 lower")
	for _, x := range s.Sweep {
		ratioMet, zeroMet := paperHolds(x.R0, x.R1)
		t.Add(x.MeanBids, x.PerInstant, x.Life, x.R0.Captured, x.R1.Captured, captureRatio(x.R0, x.R1), x.R0.ZeroDelay, x.R1.ZeroDelay, ratioMet, zeroMet)
	}
	return t
}

// sweepFinding names the loads and lives at which both of the paper's
// figures hold.
func (s *Summary) sweepFinding(c int) string {
	if len(s.Sweep) == 0 {
		return ""
	}
	var both []string
	for _, x := range s.Sweep {
		if r, z := paperHolds(x.R0, x.R1); r && z {
			both = append(both, fmt.Sprintf("%s with a mean of %g bids (%.1f pages changing a minute; r=1 / r=0 %.2f, zero-delay r=0 %.3f, r=1 %.3f)",
				x.Life, x.MeanBids, x.PerInstant, captureRatio(x.R0, x.R1), x.R0.ZeroDelay, x.R1.ZeroDelay))
		}
	}
	if len(both) == 0 {
		return fmt.Sprintf("- Load sweep: at no load tried does the synthetic web show both of the paper's figures at C=%d under any life.\n", c)
	}
	return fmt.Sprintf("- Load sweep: both of the paper's figures at C=%d hold only for %s. The default web's mean of bids comes from the bidding literature, not from these figures, and is not changed to meet them.\n", c, strings.Join(both, "; "))
}

// exactFinding tells, for one synthetic setting, how much of r=0's
// shortfall at zero delay the noise protocol causes and how much the web's
// crowded minutes, and what r=1 adds.
func (s *Summary) exactFinding(setting string, x *Exact, fpn float64) string {
	var b strings.Builder
	noisy := s.zeroDelay(setting, x.C, 0)
	r0, _ := s.find(setting, x.C, 0)
	r1, _ := s.find(setting, x.C, 1)
	// What becomes of a change r=0 does not fetch in its minute.
	skipped := "stays on the page (Unbounded-Append) and is captured at the page's next fetch, at a later change or a spurious one"
	if x.Life.Kind == monitor.Overwrite {
		skipped = "is captured at the page's next fetch only if no later bid overwrote it first (Overwrite), and is lost otherwise"
	}
	fmt.Fprintf(&b, "- **%s**, C = %d of %d pages (the paper's 8 of 7,550). "+
		"The web changes %.1f pages a minute on average, more than C=%d in %.0f %% of the minutes. With exact π (no FPN, no spread) r=0's zero-delay share is %.3f (r=1 %.3f), against %.3f with the noise",
		setting, x.C, s.Pages[setting], x.PerInstant, x.C, 100*x.Crowded, x.R0.ZeroDelay, x.R1.ZeroDelay, noisy)
	if noisy < 0.9 {
		if x.R0.ZeroDelay >= 0.9 {
			late := 0
			for _, n := range r0.Delays[1:] {
				late += n
			}
			long := r0.Delays[len(r0.Delays)-1]
			fmt.Fprintf(&b, ": the shortfall comes from the noise protocol. Of r=0's captures %.3f are late by 1–%d minutes and %.3f by %d or more: a change r=0 does not fetch in its minute (its π removed by the FPN step, one change in %.0f, or its minute crowded) %s",
				float64(late-long)/float64(max(1, late+r0.Delays[0])), len(r0.Delays)-2, float64(long)/float64(max(1, late+r0.Delays[0])), len(r0.Delays)-1, 1/max(fpn, 1e-9), skipped)
		} else {
			fmt.Fprintf(&b, ": %.0f %% of the shortfall remains without any noise, from minutes where more pages change than C can fetch (a change skipped there %s)", 100*max(0, 0.9-x.R0.ZeroDelay)/max(0.9-noisy, 1e-9), skipped)
		}
	}
	fmt.Fprintf(&b, ". r=0 captures %.3f of all changes and r=1 %.3f (%.2f×): the more of its minutes a web leaves within C, the more r=0 captures in the minute and the less r=1 can add, so the paper's two figures at C=%d (r=1 capturing 1.2–1.8× and r=0 over 90 %% at zero delay) pull a web's load in opposite directions. The paper's auction data is not available to compare its crowding.\n",
		r0.Captured, r1.Captured, captureRatio(r0, r1), x.C)
	return b.String()
}

func (s *Summary) zeroDelay(setting string, c int, r float64) float64 {
	x, _ := s.find(setting, c, r)
	return x.ZeroDelay
}

// fig7 is captured fraction against C per r (Fig. 7).
func (s *Summary) fig7(setting string) *report.Table {
	cols := []string{"C"}
	for _, r := range s.rs() {
		cols = append(cols, fmt.Sprintf("r=%g", r))
	}
	cols = append(cols, "round-robin", "r=1 / r=0", "r=0 zero-delay", "r=1 zero-delay", "both figures")
	t := report.NewTable(fmt.Sprintf("%s: fraction of changes captured (Fig. 7 analog), and at each C the zero-delay shares of Fig. 8", setting), cols...)
	for _, c := range s.cs(setting) {
		row := []any{c}
		for _, r := range append(s.rs(), -1) {
			x, _ := s.find(setting, c, r)
			row = append(row, x.Captured)
		}
		r0, _ := s.find(setting, c, 0)
		r1, _ := s.find(setting, c, 1)
		ratioMet, zeroMet := paperHolds(r0, r1)
		row = append(row, captureRatio(r0, r1), r0.ZeroDelay, r1.ZeroDelay, ratioMet && zeroMet)
		t.Add(row...)
	}
	return t
}

// everyCFinding names, for one setting, the C at which both of the
// paper's figures hold together: the targets take them at the paper's C
// (Fig. 8's), but where a C is small depends on the web's load.
func (s *Summary) everyCFinding(setting string) string {
	var both []string
	for _, c := range s.cs(setting) {
		r0, ok0 := s.find(setting, c, 0)
		r1, ok1 := s.find(setting, c, 1)
		if !ok0 || !ok1 {
			continue
		}
		if ratioMet, zeroMet := paperHolds(r0, r1); ratioMet && zeroMet {
			both = append(both, fmt.Sprintf("C=%d (r=1 / r=0 %.2f, zero-delay r=0 %.3f, r=1 %.3f)",
				c, captureRatio(r0, r1), r0.ZeroDelay, r1.ZeroDelay))
		}
	}
	if len(both) == 0 {
		return fmt.Sprintf("- %s: both of the paper's figures hold together at no C swept.\n", setting)
	}
	return fmt.Sprintf("- %s: both of the paper's figures hold together at %s, and at no other C swept.\n", setting, strings.Join(both, "; "))
}

// fig8 is the delay distribution of captured changes at C (Fig. 8), with
// the captured and zero-delay fractions per r (Fig. 9).
func (s *Summary) fig8(setting string, c int) *report.Table {
	if !slices.Contains(s.cs(setting), c) {
		c = s.cs(setting)[0]
	}
	cols := []string{"r", "captured", "zero-delay share of captured", "zero-delay share of all"}
	for d := range 10 {
		cols = append(cols, fmt.Sprintf("d=%d", d))
	}
	cols = append(cols, "d≥10")
	t := report.NewTable(fmt.Sprintf("%s, C=%d: delay of the captured changes, in instants (Figs. 8, 9 analog)", setting, c), cols...)
	for _, r := range s.rs() {
		x, ok := s.find(setting, c, r)
		if !ok {
			continue
		}
		row := []any{r, x.Captured, x.ZeroDelay, x.Captured * x.ZeroDelay}
		n := 0
		for _, v := range x.Delays {
			n += v
		}
		for _, v := range x.Delays {
			row = append(row, float64(v)/float64(max(n, 1)))
		}
		t.Add(row...)
	}
	return t
}

func (s *Summary) plots(dir, setting string, c int) error {
	var series []report.Series
	for _, r := range append(s.rs(), -1) {
		name := fmt.Sprintf("r=%g", r)
		if r < 0 {
			name = "round-robin"
		}
		var x, y []float64
		for _, cc := range s.cs(setting) {
			if res, ok := s.find(setting, cc, r); ok {
				x, y = append(x, float64(cc)), append(y, res.Captured)
			}
		}
		series = append(series, report.Series{Name: name, X: x, Y: y, Style: report.LinesPoints})
	}
	slug := "weekly"
	if setting != s.Weekly {
		// "SYNTHETIC auction web, Unbounded-Append" → synthetic-unbounded-append
		_, life, _ := strings.Cut(setting, ", ")
		slug = "synthetic-" + strings.ToLower(life)
	}
	if err := (report.Plot{Title: "Changes captured: " + setting, X: "C (fetches per instant)", Y: "fraction captured", Series: series}).Write(filepath.Join(dir, "captured-"+slug)); err != nil {
		return err
	}
	if !slices.Contains(s.cs(setting), c) {
		c = s.cs(setting)[0]
	}
	var rx, cap, zero []float64
	for _, r := range s.rs() {
		if res, ok := s.find(setting, c, r); ok {
			rx, cap, zero = append(rx, r), append(cap, res.Captured), append(zero, res.Captured*res.ZeroDelay)
		}
	}
	return report.Plot{Title: fmt.Sprintf("Trade-off at C=%d: %s", c, setting), X: "r", Y: "fraction of all changes",
		Series: []report.Series{{Name: "captured", X: rx, Y: cap, Style: report.LinesPoints}, {Name: "captured with zero delay", X: rx, Y: zero, Style: report.LinesPoints}}}.Write(filepath.Join(dir, "tradeoff-"+slug))
}
