package sentineleval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// throughputRow is one run: N sentinels, a placement, a group size.
type throughputRow struct {
	Sentinels   int
	Dist, Group string
	Placement   int     // the group size the sentinels were placed for
	Pages       int     // distinct pages watched
	Groups      int     // groups checked (pages, or sentinels when ungrouped)
	PageBytes   float64 // mean body size of the watched pages
	InstallUS   float64 // mean install cost per sentinel, µs
	Passes      int     // check passes timed
	CheckSec    float64 // median wall time of checking every group once
	PerSec      float64 // sentinels checked per second, at the median pass
	// Speedup is the median over the repetitions of the ungrouped pass's
	// time over the grouped pass's, on the same sentinels; Low and High
	// are the least and the greatest of those ratios.
	Speedup, SpeedupLow, SpeedupHigh float64
	BytesCheck                       float64 // repository bytes read per group check
	BytesSent                        float64 // repository bytes read per sentinel
	Fired                            int64
	// ChangedChecks are the checks of a pass that found their page
	// changed: pages grouped, sentinels on such pages ungrouped. Changed
	// is the median share of a pass's time those checks took, and
	// SpeedupUnchanged and SpeedupChanged are Speedup taken over the
	// checks that found their page unchanged and changed alone: grouping
	// saves a page's fetch and MD5 on every page, but on a changed page
	// each table and member costs what it costs ungrouped (WebCQ §6.1.2).
	ChangedChecks                    int
	Changed                          float64
	SpeedupUnchanged, SpeedupChanged float64
	// Windows are the mean install costs (µs) of each run of 1,000
	// consecutive installs, for the install-cost-versus-size plot.
	Windows []float64
}

// placement assigns n sentinels to pages: page indexes, one per sentinel.
// Uniform puts the group size g on each of ⌈n/g⌉ pages; zipf spreads them
// over the same pages with weight 1/i^α (WebCQ Fig. 13).
func placement(n, g, pages int, dist string, alpha float64, rng *rand.Rand) []int {
	u := min(pages, (n+g-1)/g)
	out := make([]int, n)
	if dist == "uniform" {
		for i := range out {
			out[i] = i % u
		}
		return out
	}
	cum := make([]float64, u)
	sum := 0.0
	for i := range cum {
		sum += 1 / math.Pow(float64(i+1), alpha)
		cum[i] = sum
	}
	for i := range out {
		x := rng.Float64() * sum
		j, _ := slices.BinarySearch(cum, x)
		out[i] = min(j, u-1)
	}
	// Every page at least once, so the page count matches the uniform run.
	for i := 0; i < u && i < n; i++ {
		out[i] = i
	}
	return out
}

// pass is one timed check pass: its time, and the checks that found
// their page changed and the part of the time they took.
type pass struct {
	all, changed  time.Duration
	changedChecks int
}

func (p pass) unchanged() time.Duration { return p.all - p.changed }

// checkPass opens a checkpoint and checks every group once, timing it;
// prog counts the checks.
func checkPass(ctx context.Context, s *served, dir string, gs []watch.Group, ungrouped bool, prog *tracker.Tracker) (pass, watch.Stats, error) {
	var p pass
	db, err := repo.Open(dir, repoConfig, repo.Options{})
	if err != nil {
		return p, watch.Stats{}, err
	}
	defer db.Close()
	e, err := watch.New(db, watchConfig(), nil, watch.Options{Fetcher: s.fetcher(), Ungrouped: ungrouped})
	if err != nil {
		return p, watch.Stats{}, err
	}
	defer e.Close()
	start := time.Now()
	for _, gr := range gs {
		t := time.Now()
		res, err := e.Check(ctx, gr.Key)
		if err != nil {
			return p, watch.Stats{}, interrupted(ctx, fmt.Errorf("sentinels: check %s: %w", gr.URL, err))
		}
		if !res.Unchanged {
			p.changed += time.Since(t)
			p.changedChecks++
		}
		prog.Step()
		prog.RunDone()
	}
	p.all = time.Since(start)
	return p, e.Stats(), nil
}

// installed is one run after its installs: its row so far, the groups to
// check and one checkpoint of the repository per check pass.
type installed struct {
	row       throughputRow
	ungrouped bool
	gs        []watch.Group
	cps       []string
	passes    []pass // one per checkpoint, in order
}

// runPlacement installs n sentinels placed for group size g on week
// cfg.Week once per run of runs (ungrouped: each sentinel its own group),
// moves the archive to the next week and checks every group once per
// repetition, timing installs and passes. The runs' passes alternate,
// each repetition in the order of the last one reversed, so that the
// ungrouped and grouped passes of one repetition run next to each other
// under the same load; the grouped row's speedup is the median of the
// repetitions' ratios (doc.go). The placement and the objects depend on
// (seed, n, g) only, so both runs watch the same sentinels.
func runPlacement(ctx context.Context, s *served, pages []*pageInfo, cfg Config, n int, dist string, g int, runs []throughputRun, queries [][]string, tmp string, prog *tracker.Tracker) ([]throughputRow, error) {
	var ins []*installed
	for _, run := range runs {
		in, err := install(ctx, s, pages, cfg, n, dist, g, run.ungrouped, queries, tmp, prog)
		if err != nil {
			return nil, err
		}
		defer func() {
			for _, cp := range in.cps {
				os.RemoveAll(cp)
			}
		}()
		ins = append(ins, in)
	}
	if err := s.rs.SetWeek(cfg.Week + 1); err != nil {
		return nil, err
	}
	checks := 0
	for _, in := range ins {
		checks += len(in.gs) * max(1, cfg.Repeats)
	}
	prog.Stage(fmt.Sprintf("sentinels: check N=%d %s placed for group %d", n, dist, g), checks, 1, "check")
	for r := range max(1, cfg.Repeats) {
		for k := range ins {
			in := ins[k]
			if r%2 == 1 {
				in = ins[len(ins)-1-k]
			}
			p, st, err := checkPass(ctx, s, in.cps[r], in.gs, in.ungrouped, prog)
			if err != nil {
				return nil, err
			}
			in.passes = append(in.passes, p)
			// Every pass checks the same copies: what it read and
			// fired is the same each time.
			in.row.BytesCheck = float64(st.BytesRead) / float64(len(in.gs))
			in.row.BytesSent = float64(st.BytesRead) / float64(n)
			in.row.Fired = st.Fired
			in.row.ChangedChecks = p.changedChecks
		}
	}
	var base *installed
	var rows []throughputRow
	for _, in := range ins {
		row := &in.row
		row.Passes = len(in.passes)
		row.CheckSec = median(apply(in.passes, func(p pass) float64 { return p.all.Seconds() }))
		row.PerSec = float64(n) / row.CheckSec
		row.Changed = median(apply(in.passes, func(p pass) float64 { return p.changed.Seconds() / p.all.Seconds() }))
		if in.ungrouped {
			base = in
			row.Speedup, row.SpeedupLow, row.SpeedupHigh = 1, 1, 1
			row.SpeedupUnchanged, row.SpeedupChanged = 1, 1
		} else if base != nil {
			// The ratio of the base's r-th pass to this run's, by part.
			speedup := func(part func(pass) time.Duration) []float64 {
				ratios := make([]float64, len(in.passes))
				for r, p := range in.passes {
					ratios[r] = part(base.passes[r]).Seconds() / part(p).Seconds()
				}
				return ratios
			}
			ratios := speedup(func(p pass) time.Duration { return p.all })
			row.Speedup = median(ratios)
			row.SpeedupLow, row.SpeedupHigh = slices.Min(ratios), slices.Max(ratios)
			row.SpeedupUnchanged = median(speedup(pass.unchanged))
			if row.ChangedChecks > 0 {
				row.SpeedupChanged = median(speedup(func(p pass) time.Duration { return p.changed }))
			}
		}
		rows = append(rows, *row)
	}
	return rows, nil
}

// apply is f of each pass.
func apply(ps []pass, f func(pass) float64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out
}

// median of xs (the mean of the middle two when their number is even).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// install installs n sentinels placed for group size g on week cfg.Week
// into a new repository and keeps cfg.Repeats checkpoints of it, one per
// check pass (a pass changes what it checks). prog counts the installs.
func install(ctx context.Context, s *served, pages []*pageInfo, cfg Config, n int, dist string, g int, ungrouped bool, queries [][]string, tmp string, prog *tracker.Tracker) (in *installed, err error) {
	group := strconv.Itoa(g)
	if ungrouped {
		group = "none"
	}
	in = &installed{ungrouped: ungrouped}
	row := &in.row
	*row = throughputRow{Sentinels: n, Dist: dist, Group: group, Placement: g}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(n)*31+uint64(g)))
	place := placement(n, g, len(pages), dist, cfg.ZipfAlpha, rng)
	if err := s.rs.SetWeek(cfg.Week); err != nil {
		return nil, err
	}
	db, done, err := tempRepo(tmp)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := done(); err == nil {
			err = cerr
		}
	}()
	e, err := watch.New(db, watchConfig(), nil, watch.Options{Fetcher: s.fetcher(), Ungrouped: ungrouped})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	prog.Stage(fmt.Sprintf("sentinels: install N=%d %s, group %s", n, dist, group), n, 1, "sentinel")
	seen := map[int]bool{}
	var total time.Duration
	var window time.Duration
	for i, pi := range place {
		p := pages[pi]
		if !seen[pi] {
			seen[pi] = true
			row.PageBytes += float64(len(p.body))
		}
		t := watch.Types[i%len(watch.Types)]
		spec, ok := specFor(t, p, queries, rng)
		if !ok {
			spec, _ = specFor(watch.Words, p, queries, rng)
		}
		start := time.Now()
		_, err := e.Install(ctx, spec)
		d := time.Since(start)
		if err != nil {
			if ctx.Err() != nil {
				// Interrupted: the fetch was cut short, the spec is fine.
				return nil, interrupted(ctx, err)
			}
			// A generated object the page does not have (a regex whose
			// word sits in markup): fall back to a words sentinel.
			spec, _ = specFor(watch.Words, p, queries, rng)
			start = time.Now()
			if _, err = e.Install(ctx, spec); err != nil {
				return nil, interrupted(ctx, fmt.Errorf("sentinels: install %d on %s: %w", i, p.url, err))
			}
			d = time.Since(start)
		}
		total += d
		window += d
		if (i+1)%1000 == 0 {
			row.Windows = append(row.Windows, float64(window.Microseconds())/1000)
			window = 0
		}
		prog.Step()
		prog.RunDone()
	}
	row.Pages = len(seen)
	row.PageBytes /= float64(len(seen))
	row.InstallUS = float64(total.Microseconds()) / float64(n)
	if in.gs, err = e.Groups(ctx); err != nil {
		return nil, err
	}
	row.Groups = len(in.gs)
	for r := range max(1, cfg.Repeats) {
		cp := filepath.Join(tmp, fmt.Sprintf("checkpoint-%d-%s-%s-%d-%d", n, dist, group, g, r))
		if err := db.Checkpoint(cp); err != nil {
			return nil, err
		}
		in.cps = append(in.cps, cp)
	}
	return in, nil
}
