package ranksim

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/report"
)

// Summary is what a run reports back to its caller beside the files.
type Summary struct {
	Mode      string
	Runs      int // simulations
	Analyses  int
	Elapsed   time.Duration
	OutDir    string
	Files     []string
	Targets   []Target
	TBP       []TBPPoint         // selective k = 1, r ≤ 0.2
	QPC       map[string]float64 // default community, normalized, by policy
	TargetMet int
}

// Target is one result the project promised to measure.
type Target struct {
	Name     string
	Met      bool
	Measured string
}

// TBPPoint is one point of fig. 5.4's selective curve.
type TBPPoint struct {
	R                                     float64
	Analysis, AnalysisNumeric, Simulation float64
}

// Run performs the evaluation of thesis §5.6–5.9 and writes report.md,
// results.csv and one SVG and PNG plot per figure into outDir. progress,
// if not nil, receives one line per finished simulation or analysis.
func Run(ctx context.Context, cfg Config, outDir string, progress io.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	p := fullPlan()
	if cfg.Quick {
		p = quickPlan()
	}
	tidy, err := report.OutDir(outDir)
	if err != nil {
		return nil, fmt.Errorf("ranksim: %w", err)
	}
	defer tidy() // interrupted before the report: no empty outDir
	e := newExperiment(p, cfg.Seed)
	newBuilder(e).all() // declare
	if progress != nil {
		fmt.Fprintf(progress, "ranksim: %s plan: %d simulations, %d analyses\n", p.name, len(e.simOrder), len(e.anaOrder))
	}
	if err := e.run(ctx, cfg.Workers, progress); err != nil {
		return nil, err
	}
	b := newBuilder(e)
	b.all()
	if e.err != nil {
		return nil, e.err
	}
	b.defaultClaims()
	if err := b.write(outDir, cfg); err != nil {
		return nil, err
	}
	s := b.sum
	s.Mode, s.Runs, s.Analyses, s.OutDir = p.name, len(e.simOrder), len(e.anaOrder), outDir
	s.Targets = b.targets
	for _, t := range s.Targets {
		if t.Met {
			s.TargetMet++
		}
	}
	s.Elapsed = time.Since(start)
	if progress != nil {
		fmt.Fprintf(progress, "ranksim: done in %s: %d simulations, %d analyses, %d of %d targets met; report in %s\n",
			s.Elapsed.Round(time.Second), s.Runs, s.Analyses, s.TargetMet, len(s.Targets), filepath.Join(outDir, "report.md"))
	}
	return s, nil
}

// defaultClaims sets the thesis's statements about the default community
// beside what was measured.
func (b *builder) defaultClaims() {
	p := b.e.plan
	c := p.base
	q := c.QualityMax
	thr := tbpThreshold(c.Monitored)
	sel := simTBP(b.e.sim(c, Policy{Rule: Selective, K: 1, R: 0.1}, 0))
	uni := simTBP(b.e.sim(c, Policy{Rule: Uniform, K: 1, R: 0.1}, 0))
	b.claim("5.7.2", "Selective promotion achieves substantially better TBP than uniform promotion.",
		fmt.Sprintf("TBP at r = 0.1, k = 1: selective %.0f days, uniform %.0f days (simulation)", sel, uni), sel < 0.8*uni)
	var worst float64
	for _, t := range b.sum.TBP {
		if d := pct(t.Analysis, t.Simulation); math.IsNaN(d) || math.Abs(d) > math.Abs(worst) {
			worst = d
		}
	}
	b.claim("5.7.2", "Close correspondence between the analytical model and the simulation (r < 0.2).",
		fmt.Sprintf("largest difference %+.0f %% over r ≤ 0.2 (Fig. 5.4 table; quality-%g page, %d-user threshold)", worst, q, thr), math.Abs(worst) <= 15)
	non, _ := normQPC(b.e.sim(c, Policy{Rule: Nonrandomized}, 0), c)
	s1, _ := normQPC(b.e.sim(c, Policy{Rule: Selective, K: 1, R: 0.1}, 0), c)
	u1, _ := normQPC(b.e.sim(c, Policy{Rule: Uniform, K: 1, R: 0.1}, 0), c)
	b.claim("5.7.3", "A moderate dose of randomized promotion increases QPC substantially, especially under selective promotion.",
		fmt.Sprintf("normalized QPC at r = 0.1, k = 1: nonrandomized %.3f, uniform %.3f, selective %.3f", non, u1, s1), s1 > u1 && u1 > non && s1 >= 1.2*non)
	best := math.Inf(-1)
	bestR := 0.0
	for _, r := range p.rQPC {
		if v, _ := normQPC(b.e.sim(c, Policy{Rule: Selective, K: 1, R: r}, 0), c); v > best {
			best, bestR = v, r
		}
	}
	share := (s1 - non) / (best - non)
	b.claim("5.7.4", "With k small, r = 0.1 achieves most of the benefit of rank promotion.",
		fmt.Sprintf("r = 0.1 gets %.0f %% of the gain of the best r (%g, QPC %.3f)", 100*share, bestR, best), share >= 0.5)
	s2, _ := normQPC(b.e.sim(c, Policy{Rule: Selective, K: 1, R: 0.2}, 0), c)
	b.claim("5.7.4", "r = 0.2 performs very well (footnote 5).",
		fmt.Sprintf("selective k=1 r=0.2: %.3f, best %.3f at r = %g", s2, best, bestR), s2 >= 0.95*best)
	b.claimNA("5.10", "Live study: rank promotion raised the share of “funny” votes by about 60 %.",
		"not reproduced: a study with volunteers, not a simulation")
	b.claimNA("5.1", "Cho and Roy: ranking by popularity delays awareness of a new high-quality page by a factor of over 60 against browsing alone.",
		"not reproduced (their model, not this chapter's)")
}

func (b *builder) write(outDir string, cfg Config) error {
	p := b.e.plan
	c := p.base
	warm, meas := p.days(c)
	var h strings.Builder
	fmt.Fprintf(&h, "# Randomized rank promotion: thesis ch. 5 reproduced\n\n")
	fmt.Fprintf(&h, "Plan `%s`, seed %d. Produced by `deltaq eval ranking`; every number below is reproducible from the seed.\n\n", p.name, cfg.Seed)
	fmt.Fprintf(&h, "**Community (§5.7.1).** n = %d pages, u = %d users, m = %d monitored, v_u = %g visits/day (v = %g monitored), page lifetime l = %g days, quality Q_i = %g·i^(−1/(%g−1)) (the expected order statistics of a power law with exponent %g, best page %g); ideal QPC %.4f.\n\n",
		c.Pages, c.Users, c.Monitored, c.VisitsPerDay, c.MonitoredVisits(), c.LifetimeDays, c.QualityMax, c.QualityExponent, c.QualityExponent, c.QualityMax, IdealQPC(c))
	fmt.Fprintf(&h, "**Simulation.** Daily steps: each day the ranking is rebuilt from the popularity P = A·Q measured at the end of the day before (§5.4.1), the day's visits go to rank positions with probability ∝ rank^(−3/2) (eq. 5.5) through the merged list of §5.5, a monitored visit makes a random monitored user aware, and each page retires with probability 1 − e^(−1/l) and is replaced by a page of equal quality and zero awareness (§5.6.1). Pages of equal popularity (zero) rank oldest first, so new pages enter at the bottom. Warm-up %g lifetimes (at least %d days), then %g lifetimes measured (%d and %d days in the default community); QPC counts max(v, min(v_u, %d)) visits a day. Simulations of the same community share their page deaths (common random numbers).\n\n",
		p.warmupLifetimes, p.minWarmupDays, p.measureLifetimes, warm, meas, p.qpcSample)
	fmt.Fprintf(&h, "**Analysis (§5.6).** Theorem 2 in the form its proof derives (see the note on eq. 5.4 below); F(0) solved exactly as its own fixed point (the share of zero-awareness pages, λ/(λ+F(0)), is the same for every quality); F(x > 0) iterated from F(x) = x with the log-log quadratic fit (endpoints weighted %g×, damping %g) until log F moves less than %g, as §5.6.3 describes; and, for comparison, the same iteration with F kept numeric on the %d-point grid.\n\n",
		analysisEndpoint, analysisDamping, analysisTol, analysisGrid)
	fmt.Fprintf(&h, "The thesis reports its figures as plots only; where its text states a result, the table “The thesis's statements beside ours” sets it beside the measured number.\n")

	tt := report.NewTable("Targets", "target", "met", "measured")
	for _, t := range b.targets {
		met := "yes"
		if !t.Met {
			met = "no"
		}
		tt.Add(t.Name, met, t.Measured)
	}
	notes := report.NewTable("Model notes and deviations", "topic", "note")
	notes.Add("eq. 5.4", "As printed, f(a_i|q) = λ/((λ+F(0))(1−a_i))·Π F(a_{j−1}q)/(λ+F(a_j q)). The proof's own balance equation (9.4) gives f(a_i)(λ + F(q a_i)(1−a_i)) = f(a_{i−1})F(q a_{i−1})(1−a_{i−1}); the printed form drops a λ·a_i term, does not sum to 1 and is infinite at a = 1. We use the derived form.")
	notes.Add("F1 at x = 0", "Eq. 5.6 gives every zero-awareness page the rank just below the aware pages (ties ignored). The simulation ranks them oldest first, so a new page starts at the bottom and climbs as the older unaware pages retire or get visited. The r = 0 (nonrandomized) row of Fig. 5.4 compares the two.")
	notes.Add("daily steps", "Popularity is measured once a day (§5.4.1: at the end of each interval), so the ranking a probe or page sees lags its awareness by up to a day, and a pool page stays in the selective pool for the rest of the day it is first visited. The analysis is continuous in time.")
	notes.Add("uniform rule", "Every page joins the pool with probability r (§5.5 rule a). The simulation draws a promoted slot's page uniformly from all pages and finds a det slot's page by drawing how many pool pages the popularity order skips before it.")
	notes.Add("TBP probes", "TBP is measured on probe pages that receive the visits they would get in the community without taking any from it; they do not die before becoming popular, so TBP is the time to become popular of a page that lives long enough, as in the analysis. QPC is unaffected by the probes (separate random stream).")
	notes.Add("quality", "Q_i uses the quantiles of the power law rather than random draws, so every run has the same quality distribution and runs differ only in their dynamics.")

	tables := []*report.Table{tt, b.claims}
	tables = append(tables, b.tables...)
	tables = append(tables, notes)
	mdPath := filepath.Join(outDir, "report.md")
	var md strings.Builder
	md.WriteString(h.String())
	md.WriteString("\n")
	for _, np := range b.plots {
		fmt.Fprintf(&md, "![%s](%s.svg)\n", np.plot.Title, np.file)
	}
	if err := report.WriteMarkdown(mdPath, md.String(), tables...); err != nil {
		return fmt.Errorf("ranksim: write report: %w", err)
	}
	csvPath := filepath.Join(outDir, "results.csv")
	if err := b.csv.WriteCSV(csvPath); err != nil {
		return fmt.Errorf("ranksim: write results: %w", err)
	}
	b.sum.Files = []string{mdPath, csvPath}
	for _, np := range b.plots {
		path := filepath.Join(outDir, np.file)
		if err := np.plot.Write(path); err != nil {
			return fmt.Errorf("ranksim: plot %s: %w", np.file, err)
		}
		b.sum.Files = append(b.sum.Files, path+".svg", path+".png")
	}
	return nil
}
