package discoveryeval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/report"
	"github.com/deltaq/deltaq/internal/bounds"
	tracker "github.com/deltaq/deltaq/internal/progress"
)

// Summary is what Run measured.
type Summary struct {
	Archives []SiteSummary
	// Took is the wall time of the whole run.
	Took time.Duration
}

// SiteSummary is one archive's results; every Row is also a line of
// results.csv.
type SiteSummary struct {
	Name  string
	Weeks int
	// Created is Σ created(t) over weeks 1.. as measured here, and
	// ArchiveCreated the same sum of archive.json's created_series (-1
	// when the archive records none).
	Created, ArchiveCreated int
	// NewPages is Σ|Y_t| (pages never seen before), Coverable the part
	// some old page covers, Orphans the rest, over weeks 1...
	NewPages, Coverable, Orphans int
	Rows                         []Row
	// Gaps compare OD-WIN with the best history-based algorithm at each
	// budget of Table 3.2. TargetMet says every gap to the best of all of
	// them (OD-ALL included) is at most TargetPoints;
	// TargetMetSameRecrawls says the same against the algorithms that see
	// the same full re-crawls as OD-WIN (CLIQ-WIN, COV, OD-1).
	Gaps                  []Gap
	TargetMet             bool
	TargetMetSameRecrawls bool
}

// TargetPoints is the project's target: OD-WIN's coverage within this
// many percentage points of the best history-based algorithm.
const TargetPoints = 5

// Gap is OD-WIN's distance to the best history-based algorithm at one
// budget, in coverage points.
type Gap struct {
	Budget int
	ODWin  float64
	// Best is the best coverage of CLIQ-WIN, COV, OD-WIN, OD-1 and OD-ALL;
	// Points = Best − ODWin.
	Best          float64
	BestAlgorithm string
	Points        float64
	// The same without OD-ALL, which re-crawls the whole site every week.
	BestSameRecrawls          float64
	BestSameRecrawlsAlgorithm string
	PointsSameRecrawls        float64
}

// Row is one measured cover experiment.
type Row struct {
	Experiment   string // table-3.2, coverage-curve, upper-bound, partial-cover, greedy-curve
	Algorithm    string
	RecrawlEvery string // Δ (or the Δs averaged, "2-6"); "" for GREEDY
	Budget       int    // k per site and week; 0 for none (ρ-partial covers), Unlimited for §3.6.5's bound
	Rho          float64
	Weeks        int
	Depth        float64 // average cover size
	OverheadPct  float64 // Σ|O_t| / Σ|N_t(O_t)|, percent
	CoveragePct  float64 // Σ|N_t(O_t)| / Σ N_t, percent
	Covered      int
	Coverable    int
}

// Run evaluates the discovery algorithms of thesis ch. 3 on each archive
// and writes report.md, results.csv and the plots into outDir. progress
// receives one line per stage (nil discards).
func Run(ctx context.Context, cfg Config, archiveDirs []string, outDir string, progress io.Writer) (*Summary, error) {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("discoveryeval: invalid config:\n%w", err)
	}
	if len(archiveDirs) == 0 {
		return nil, errors.New("discoveryeval: no archive given")
	}
	if progress == nil {
		progress = io.Discard
	}
	tidy, err := report.OutDir(outDir)
	if err != nil {
		return nil, fmt.Errorf("discoveryeval: %w", err)
	}
	defer tidy() // interrupted before the report: no empty outDir
	// Every archive is opened first: a bad one fails the run at once, and
	// the progress counts the page versions of them all, parsing being
	// most of the time (H_t and the replays follow each archive's).
	var archives []*archive.Archive
	versions := 0
	for _, dir := range archiveDirs {
		a, err := archive.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("discoveryeval: %w", err)
		}
		archives = append(archives, a)
		versions += a.NumIntervals()
	}
	// The name labels the archive's rows, section and plot files: two
	// archives of one name would share them, the second's plots written
	// over the first's.
	for i, at := range bounds.Repeats(archives, (*archive.Archive).Name) {
		return nil, fmt.Errorf("discoveryeval: archives %s and %s are both named %q (archive.json \"name\"): give archives of distinct names", archiveDirs[at], archiveDirs[i], archives[i].Name())
	}
	var results []*siteResult
	prog := tracker.From(progress)
	progress = prog
	prog.Stage("discovery", versions, 1, "page version")
	for i, a := range archives {
		archives[i] = nil // its pages are parsed into s: let the bodies go
		t0 := time.Now()
		s, err := loadSite(ctx, cfg, a, prog)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "%s: %d weeks, %d intervals parsed, H_t built in %v\n",
			s.name, len(s.cover), s.links.intervals, time.Since(t0).Round(time.Millisecond))
		t1 := time.Now()
		r, err := evaluate(ctx, cfg, s)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "%s: algorithms evaluated in %v\n", s.name, time.Since(t1).Round(time.Millisecond))
		results = append(results, r)
	}
	sum := &Summary{}
	for _, r := range results {
		sum.Archives = append(sum.Archives, r.summary(cfg))
	}
	if err := write(cfg, results, sum, outDir); err != nil {
		return nil, err
	}
	sum.Took = time.Since(start)
	for _, a := range sum.Archives {
		worst, worstSame := 0.0, 0.0
		for _, g := range a.Gaps {
			worst = math.Max(worst, g.Points)
			worstSame = math.Max(worstSame, g.PointsSameRecrawls)
		}
		fmt.Fprintf(progress, "%s: %d new pages (%d orphans); OD-WIN at most %.1f coverage points behind the best "+
			"history-based algorithm (%.1f behind those with the same re-crawls; target %d)\n",
			a.Name, a.NewPages, a.Orphans, worst, worstSame, TargetPoints)
	}
	fmt.Fprintf(progress, "wrote %s in %v\n", outDir, sum.Took.Round(time.Millisecond))
	return sum, nil
}

// siteResult holds every measurement of one archive.
type siteResult struct {
	s *site
	// table[alg][i] is Table 3.2 at cfg.Budgets[i]; the history-based
	// algorithms are summed over cfg.TableRecrawlEvery.
	table map[string][]measure
	// curves[j][alg][i] is the coverage curve at cfg.FigureRecrawlEvery[j]
	// and cfg.CurveBudgets[i].
	curves []map[string][]measure
	// upper[j] is §3.6.5's bound at cfg.UpperBoundRecrawlEvery[j].
	upper   []measure
	partial []partialCover
	greedy  []float64 // fig. 3.2(b), percent covered at k = 1, 2, …
	// greedyCovered[k−1] of greedyTotal new pages are covered at k.
	greedyCovered []int
	greedyTotal   int
	top           []topCoverer
}

// tableOrder is the order of Table 3.2's blocks in the thesis, then ours.
var tableOrder = []string{"CLIQ-WIN", "COV", "OD-WIN", "OD-1", "Optimal", "OD-ALL", statsName, statsLearnName}

// curveOrder are the algorithms drawn in figs. 3.5 and 3.6.
var curveOrder = []string{"CLIQ-WIN", "COV", "OD-WIN", "OD-1", "Optimal"}

// historyOrder are the history-based algorithms OD-WIN is compared with.
var historyOrder = []string{"CLIQ-WIN", "COV", "OD-WIN", "OD-1", "OD-ALL"}

func evaluate(ctx context.Context, cfg Config, s *site) (*siteResult, error) {
	r := &siteResult{s: s, table: map[string][]measure{}}
	run := func(a algorithm, delta int, budgets []int) ([]measure, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := a.make(s, delta)
		if err != nil {
			return nil, err
		}
		ms := replay(s, p, delta, budgets)
		if sp, ok := p.(*statsPolicy); ok && sp.err != nil {
			return nil, fmt.Errorf("discoveryeval: %s: %w", s.name, sp.err)
		}
		return ms, nil
	}

	// Table 3.2.
	for _, a := range historyAlgorithms(cfg) {
		sum := make([]measure, len(cfg.Budgets))
		for _, delta := range cfg.TableRecrawlEvery {
			if a.perBudget {
				for i, k := range cfg.Budgets {
					ms, err := run(a, delta, []int{k})
					if err != nil {
						return nil, err
					}
					sum[i].merge(ms[0])
				}
				continue
			}
			ms, err := run(a, delta, cfg.Budgets)
			if err != nil {
				return nil, err
			}
			for i := range sum {
				sum[i].merge(ms[i])
			}
		}
		r.table[a.name] = sum
	}
	odAll := algorithm{name: "OD-ALL", make: func(*site, int) (discovery.Policy, error) { return discovery.NewODAll(cfg.Alpha), nil }}
	ms, err := run(odAll, 1, cfg.Budgets)
	if err != nil {
		return nil, err
	}
	r.table["OD-ALL"] = ms
	gains := greedyGains(s)
	r.table["Optimal"] = optimal(s, gains, cfg.Budgets)

	// Figs. 3.5 and 3.6. Optimal does not depend on Δ.
	curveOptimal := optimal(s, gains, cfg.CurveBudgets)
	for _, delta := range cfg.FigureRecrawlEvery {
		c := map[string][]measure{"Optimal": curveOptimal}
		for _, a := range historyAlgorithms(cfg) {
			if !slices.Contains(curveOrder, a.name) {
				continue
			}
			ms, err := run(a, delta, cfg.CurveBudgets)
			if err != nil {
				return nil, err
			}
			c[a.name] = ms
		}
		r.curves = append(r.curves, c)
	}

	// §3.6.5: every page that ever yielded, re-crawls every w weeks.
	everYielded := algorithm{name: "OD-WIN", make: func(*site, int) (discovery.Policy, error) { return discovery.NewODWin(1), nil }}
	for _, w := range cfg.UpperBoundRecrawlEvery {
		ms, err := run(everYielded, w, []int{Unlimited})
		if err != nil {
			return nil, err
		}
		r.upper = append(r.upper, ms[0])
	}

	r.partial = partialCovers(s, cfg.CoverFractions)
	r.greedyCovered, r.greedyTotal = greedyCurve(s, gains)
	for _, c := range r.greedyCovered {
		r.greedy = append(r.greedy, 100*ratio(c, r.greedyTotal))
	}
	r.top = topCoverers(s, 5)
	return r, nil
}

// summary turns the measurements into rows, the created-count check and
// the OD-WIN target.
func (r *siteResult) summary(cfg Config) SiteSummary {
	s := r.s
	out := SiteSummary{Name: s.name, Weeks: len(s.cover), ArchiveCreated: -1}
	for t := 1; t < len(s.weeks); t++ {
		w := s.weeks[t]
		out.Created += w.created
		out.NewPages += w.newPages
		out.Orphans += w.orphans
		out.Coverable += w.newPages - w.orphans
	}
	if cs := s.meta.Stats.CreatedSeries; len(cs) > 0 {
		out.ArchiveCreated = 0
		for _, c := range cs[1:] {
			out.ArchiveCreated += c
		}
	}
	row := func(exp, alg, delta string, budget int, m measure) Row {
		return Row{Experiment: exp, Algorithm: alg, RecrawlEvery: delta, Budget: budget, Weeks: m.weeks,
			Depth: m.depth(), OverheadPct: m.overhead(), CoveragePct: m.coverage(), Covered: m.covered, Coverable: m.coverable}
	}
	tableDelta := deltaList(cfg.TableRecrawlEvery)
	for _, alg := range tableOrder {
		delta := tableDelta
		switch alg {
		case "Optimal":
			delta = ""
		case "OD-ALL":
			delta = "1"
		}
		for i, k := range cfg.Budgets {
			out.Rows = append(out.Rows, row("table-3.2", alg, delta, k, r.table[alg][i]))
		}
	}
	for j, delta := range cfg.FigureRecrawlEvery {
		for _, alg := range curveOrder {
			d := fmt.Sprint(delta)
			if alg == "Optimal" {
				d = ""
			}
			for i, k := range cfg.CurveBudgets {
				out.Rows = append(out.Rows, row("coverage-curve", alg, d, k, r.curves[j][alg][i]))
			}
		}
	}
	for j, w := range cfg.UpperBoundRecrawlEvery {
		out.Rows = append(out.Rows, row("upper-bound", "every page that ever yielded", fmt.Sprint(w), Unlimited, r.upper[j]))
	}
	for _, pc := range r.partial {
		rw := row("partial-cover", "Optimal", "", 0, pc.m)
		rw.Rho = pc.rho
		out.Rows = append(out.Rows, rw)
	}
	for k, c := range r.greedy {
		out.Rows = append(out.Rows, Row{Experiment: "greedy-curve", Algorithm: "Optimal", Budget: k + 1,
			Weeks: len(s.cover) - 1, Depth: math.NaN(), OverheadPct: math.NaN(), CoveragePct: c,
			Covered: r.greedyCovered[k], Coverable: r.greedyTotal})
	}

	out.TargetMet, out.TargetMetSameRecrawls = true, true
	for i, k := range cfg.Budgets {
		g := Gap{Budget: k, ODWin: r.table["OD-WIN"][i].coverage(), Best: math.Inf(-1), BestSameRecrawls: math.Inf(-1)}
		for _, alg := range historyOrder {
			c := r.table[alg][i].coverage()
			if c > g.Best {
				g.Best, g.BestAlgorithm = c, alg
			}
			if alg != "OD-ALL" && c > g.BestSameRecrawls {
				g.BestSameRecrawls, g.BestSameRecrawlsAlgorithm = c, alg
			}
		}
		g.Points = g.Best - g.ODWin
		g.PointsSameRecrawls = g.BestSameRecrawls - g.ODWin
		out.TargetMet = out.TargetMet && g.Points <= TargetPoints
		out.TargetMetSameRecrawls = out.TargetMetSameRecrawls && g.PointsSameRecrawls <= TargetPoints
		out.Gaps = append(out.Gaps, g)
	}
	return out
}

// deltaList writes the Δs averaged in Table 3.2: "2-6" for a run of
// consecutive values, else comma-separated.
func deltaList(ds []int) string {
	consecutive := len(ds) > 1
	for i := 1; i < len(ds); i++ {
		if ds[i] != ds[i-1]+1 {
			consecutive = false
		}
	}
	if consecutive {
		return fmt.Sprintf("%d-%d", ds[0], ds[len(ds)-1])
	}
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(d)
	}
	return s
}
