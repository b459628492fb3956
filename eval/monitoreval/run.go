package monitoreval

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/bounds"
	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/monitor"
)

// Config is eval.monitor in configs/default.yaml.
type Config struct {
	// Archive is the weekly archive of the real setting ("" skips it).
	Archive string `mapstructure:"archive"`
	Seed    uint64 `mapstructure:"seed"`
	// FPN and Sigma are the paper's estimation noise (§5.2), Sigma in
	// instants; WeeklySigma is the spread on the weekly setting, where one
	// instant is a week.
	FPN         float64 `mapstructure:"fpn"`
	Sigma       float64 `mapstructure:"sigma"`
	WeeklySigma float64 `mapstructure:"weekly_sigma"`
	// R are the urgency decays r compared.
	R []float64 `mapstructure:"r"`
	// WeeklyC and SynthC are the monitorings per instant swept.
	WeeklyC []int `mapstructure:"weekly_c"`
	SynthC  []int `mapstructure:"synth_c"`
	// SynthLives are the lives the synthetic web is run with, one setting
	// each: append (Unbounded-Append, the paper's Figs. 7–9) and overwrite
	// (for which §5.3 reports "similar results").
	SynthLives []string      `mapstructure:"synth_lives"`
	Auction    AuctionConfig `mapstructure:"auction"`
	// BidsSweep are the mean numbers of bids per auction the synthetic web
	// is also drawn with, each run at FigureC with r = 0 and 1: the
	// paper's auction data is not available, so its load is not known.
	BidsSweep []float64 `mapstructure:"bids_sweep"`
	// FigureC is the C of the delay histogram and the r sweep (Figs. 8, 9).
	FigureC int `mapstructure:"figure_c"`
}

// Upper bounds, far beyond the paper's settings (configs/default.yaml).
const (
	// maxSigma bounds the noise's spread in instants: each change is
	// spread over 2·⌈3σ⌉+1 instants.
	maxSigma = 1000
	// maxC bounds the monitorings per instant: each pick keeps a heap of
	// C choices.
	maxC = 100_000
)

// Validate names every bad key, its value and the limit.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.monitor.")
	report.Add("fpn", c.FPN, bounds.Within(c.FPN, 0, 1))
	report.Add("sigma", c.Sigma, bounds.Within(c.Sigma, 0, maxSigma))
	report.Add("weekly_sigma", c.WeeklySigma, bounds.Within(c.WeeklySigma, 0, maxSigma))
	if len(c.R) == 0 {
		report.Add("r", c.R, "give at least one r")
	}
	for _, r := range c.R {
		report.Add("r", r, bounds.Within(r, 0, 1))
	}
	for i, v := range c.WeeklyC {
		report.Add(fmt.Sprintf("weekly_c[%d]", i), v, bounds.Within(v, 1, maxC))
	}
	for i, v := range c.SynthC {
		report.Add(fmt.Sprintf("synth_c[%d]", i), v, bounds.Within(v, 1, maxC))
	}
	if len(c.SynthLives) == 0 {
		report.Add("synth_lives", c.SynthLives, "give at least one of append, overwrite")
	}
	for _, l := range c.SynthLives {
		if _, ok := synthLives[l]; !ok {
			report.Add("synth_lives", l, "must be append or overwrite")
		}
	}
	for _, b := range c.BidsSweep {
		validMeanBids(report, "bids_sweep", b)
	}
	c.Auction.validate(report)
	report.Add("figure_c", c.FigureC, bounds.Within(c.FigureC, 1, maxC))
	return report.Err()
}

// synthLives are the lives eval.monitor.synth_lives may name.
var synthLives = map[string]monitor.Life{
	"append":    {Kind: monitor.UnboundedAppend},
	"overwrite": {Kind: monitor.Overwrite},
}

// lifeTitle is a life as the paper names it.
func lifeTitle(l monitor.Life) string {
	switch l.Kind {
	case monitor.UnboundedAppend:
		return "Unbounded-Append"
	case monitor.Overwrite:
		return "Overwrite"
	}
	return l.String()
}

// Result is WIC at one C and one r on one instance.
type Result struct {
	Setting string
	C       int
	R       float64 // −1 for the round-robin baseline
	// Captured is the fraction of all changes captured before they left the
	// page or the epoch ended; ZeroDelay the fraction of those captured in
	// the instant they happened; Utility Σ r^delay over all changes.
	Captured, ZeroDelay, Utility float64
	// Delays[d] counts captured changes with delay d instants (the last
	// bucket: d ≥ len−1).
	Delays  [11]int
	Changes int
}

// Summary is what Run measured.
type Summary struct {
	Results                  []Result
	Pages, Changes, Instants map[string]int
	// Weekly names the weekly setting ("" if not run), Synthetic the
	// synthetic web's, one per life of eval.monitor.synth_lives.
	Weekly    string
	Synthetic []string
	// WeeklyLists counts the weekly setting's list pages (lifeOf):
	// digitalgov's paths, which another archive need not have.
	WeeklyLists int
	// Exact is, per synthetic setting, r=0 and r=1 at figure_c with exact
	// π (no FPN, no spread): how much of r=0's delayed captures the noise
	// protocol causes, and how much the web itself.
	Exact map[string]*Exact
	// Sweep is the synthetic web at figure_c for each mean number of bids
	// of eval.monitor.bids_sweep, under each life.
	Sweep   []SweepRow
	Elapsed time.Duration
}

// SweepRow is r=0 and r=1 at figure_c on the synthetic web drawn with one
// mean number of bids per auction, under one life.
type SweepRow struct {
	MeanBids float64
	Life     string
	// PerInstant is the mean number of pages changing in a minute.
	PerInstant float64
	R0, R1     Result
}

// Exact is WIC on the synthetic web with π the exact 0/1 change indicators.
type Exact struct {
	C      int
	Life   monitor.Life // every page's life
	R0, R1 Result
	// PerInstant is the mean number of pages changing in an instant, and
	// Crowded the share of instants at which more than C pages change: then
	// even exact π cannot fetch them all in the instant, and a change
	// skipped there is captured later, with a delay, at the page's next fetch.
	PerInstant, Crowded float64
}

// Run sweeps C and r on the real weekly archive (if given) and on the
// SYNTHETIC auction web. progress (a *progress.Tracker, or any writer; nil
// for none) gets a line per run and, every few seconds, the runs and
// instants of the current setting done with an ETA.
func Run(ctx context.Context, cfg Config, progress io.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	prog := tracker.From(progress)
	start := time.Now()
	sum := &Summary{Pages: map[string]int{}, Changes: map[string]int{}, Instants: map[string]int{}, Exact: map[string]*Exact{}}
	type setting struct {
		in    *instance
		cs    []int
		sigma float64
		unit  string        // what an instant is: a week, or the synthetic web's minute
		exact *monitor.Life // the life of figure_c's exact-π runs, if any
	}
	var settings []setting
	if cfg.Archive != "" {
		a, err := archive.Open(cfg.Archive)
		if err != nil {
			return nil, err
		}
		w := weekly(a)
		settings = append(settings, setting{in: w, cs: cfg.WeeklyC, sigma: cfg.WeeklySigma, unit: "week"})
		sum.Weekly = w.name
		for _, pg := range w.pages {
			if pg.life.Kind == monitor.ChangeWindowAppend {
				sum.WeeklyLists++
			}
		}
	}
	for _, l := range cfg.SynthLives {
		// The same seed for every life: one web, scored under each.
		life := synthLives[l]
		synth := auction(cfg.Auction, life, rand.New(rand.NewPCG(cfg.Seed, 7)))
		st := setting{in: synth, cs: cfg.SynthC, sigma: cfg.Sigma, unit: "instant"}
		if slices.Contains(cfg.SynthC, cfg.FigureC) {
			st.exact = &life
		}
		settings = append(settings, st)
		sum.Synthetic = append(sum.Synthetic, synth.name)
	}
	for _, st := range settings {
		in := st.in
		sum.Pages[in.name] = len(in.pages)
		sum.Changes[in.name] = in.totalChanges()
		sum.Instants[in.name] = in.n
		// One stage per setting: its runs share its number of instants,
		// so the ETA counts instants, the runs' real cost.
		runs := len(st.cs) * len(cfg.R)
		if st.exact != nil {
			runs += 2
		}
		prog.Stage("monitor ("+in.name+")", runs, in.n, st.unit)
		if st.exact != nil {
			x, err := exact(ctx, in, cfg.FigureC, prog)
			if err != nil {
				return nil, err
			}
			x.Life = *st.exact
			sum.Exact[in.name] = x
		}
		est := estimates(in, cfg.FPN, st.sigma, cfg.Seed)
		for _, c := range st.cs {
			for _, r := range cfg.R {
				res, err := runWIC(ctx, in, est, c, r, prog)
				if err != nil {
					return nil, err
				}
				sum.Results = append(sum.Results, res)
				fmt.Fprintf(prog, "monitor: %-40s C=%-4d r=%-5g captured %.3f, zero-delay %.3f\n", in.name, c, r, res.Captured, res.ZeroDelay)
				prog.RunDone()
			}
			rr := roundRobin(in, c)
			sum.Results = append(sum.Results, rr)
		}
	}
	var err error
	if sum.Sweep, err = sweepBids(ctx, cfg, prog); err != nil {
		return nil, err
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// estimates are in's π through the noise protocol, drawn from seed.
func estimates(in *instance, fpn, sigma float64, seed uint64) []estimate {
	rng := rand.New(rand.NewPCG(seed, 11))
	est := make([]estimate, len(in.pages))
	for i, p := range in.pages {
		est[i] = noisy(p, in.n, fpn, sigma, rng)
	}
	return est
}

// sweepBids runs r=0 and r=1 at figure_c on the synthetic web drawn anew
// with each mean number of bids of eval.monitor.bids_sweep, under each
// life: how busy a web has to be for the paper's figures at C=8 to hold.
func sweepBids(ctx context.Context, cfg Config, prog *tracker.Tracker) ([]SweepRow, error) {
	var out []SweepRow
	if len(cfg.BidsSweep) > 0 {
		prog.Stage("monitor (bids sweep)", 2*len(cfg.BidsSweep)*len(cfg.SynthLives), cfg.Auction.Instants, "instant")
	}
	for _, bids := range cfg.BidsSweep {
		a := cfg.Auction
		a.MeanBids = bids
		for _, l := range cfg.SynthLives {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			in := auction(a, synthLives[l], rand.New(rand.NewPCG(cfg.Seed, 7)))
			est := estimates(in, cfg.FPN, cfg.Sigma, cfg.Seed)
			row := SweepRow{MeanBids: bids, Life: lifeTitle(synthLives[l]), PerInstant: float64(in.totalChanges()) / float64(in.n)}
			var err error
			if row.R0, err = runWIC(ctx, in, est, cfg.FigureC, 0, prog); err != nil {
				return nil, err
			}
			prog.RunDone()
			if row.R1, err = runWIC(ctx, in, est, cfg.FigureC, 1, prog); err != nil {
				return nil, err
			}
			prog.RunDone()
			fmt.Fprintf(prog, "monitor: sweep, mean bids %-4g %-16s C=%-4d r=1/r=0 captured %.2f, zero-delay r=0 %.3f\n", bids, row.Life, cfg.FigureC, captureRatio(row.R0, row.R1), row.R0.ZeroDelay)
			out = append(out, row)
		}
	}
	return out, nil
}

// exact runs r=0 and r=1 at C with exact π and counts how crowded the
// instants are; prog counts the two runs.
func exact(ctx context.Context, in *instance, c int, prog *tracker.Tracker) (*Exact, error) {
	est := make([]estimate, len(in.pages))
	changing := make([]int, in.n+1)
	for i, p := range in.pages {
		est[i] = noisy(p, in.n, 0, 0, nil)
		for _, k := range p.changes {
			changing[k]++
		}
	}
	x := &Exact{C: c, PerInstant: float64(in.totalChanges()) / float64(in.n)}
	for _, v := range changing[1:] {
		if v > c {
			x.Crowded++
		}
	}
	x.Crowded /= float64(in.n)
	var err error
	if x.R0, err = runWIC(ctx, in, est, c, 0, prog); err != nil {
		return nil, err
	}
	prog.RunDone()
	if x.R1, err = runWIC(ctx, in, est, c, 1, prog); err != nil {
		return nil, err
	}
	prog.RunDone()
	return x, nil
}

// runWIC schedules in with the monitor package's WIC (urgency r^t) from
// the noisy estimates and scores the schedule against the real changes.
// prog counts its instants; the caller counts the run done.
func runWIC(ctx context.Context, in *instance, est []estimate, c int, r float64, prog *tracker.Tracker) (Result, error) {
	s, err := monitor.NewScheduler(in.n + 1)
	if err != nil {
		return Result{}, err
	}
	index := make(map[string]int, len(in.pages))
	for i, p := range in.pages {
		index[p.url] = i
		if _, err := s.Add(monitor.Demand{URL: p.url, Life: p.life, Urgency: monitor.Urgency{Kind: monitor.Exponential, R: r}, Weight: 1}); err != nil {
			return Result{}, err
		}
	}
	cursor := make([]int, len(in.pages))
	fetches := make([][]int, len(in.pages))
	for j := 1; j <= in.n; j++ {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		s.Advance(func(url string) float64 {
			i := index[url]
			e := est[i]
			for cursor[i] < len(e.at) && e.at[cursor[i]] < j {
				cursor[i]++
			}
			if cursor[i] < len(e.at) && e.at[cursor[i]] == j {
				return e.pi[cursor[i]]
			}
			return 0
		})
		for _, ch := range s.Pick(c, nil) {
			i := index[ch.URL]
			fetches[i] = append(fetches[i], j)
		}
		prog.Step()
	}
	return score(in, fetches, c, r), nil
}

// roundRobin fetches c pages an instant in a fixed cycle.
func roundRobin(in *instance, c int) Result {
	fetches := make([][]int, len(in.pages))
	next := 0
	for j := 1; j <= in.n; j++ {
		for range min(c, len(in.pages)) {
			fetches[next] = append(fetches[next], j)
			next = (next + 1) % len(in.pages)
		}
	}
	return score(in, fetches, c, -1)
}

// score counts, for every real change at k, the first fetch j ≥ k, and
// whether the change was still on the page then (life with the real
// changes: no later change for Overwrite, fewer than Z for the windows).
func score(in *instance, fetches [][]int, c int, r float64) Result {
	res := Result{Setting: in.name, C: c, R: r, Changes: in.totalChanges()}
	captured, zero := 0, 0
	util := 0.0
	for i, p := range in.pages {
		f := fetches[i]
		fi := 0
		for ci, k := range p.changes {
			for fi < len(f) && f[fi] < k {
				fi++
			}
			if fi == len(f) {
				break
			}
			j := f[fi]
			later := 0 // real changes in (k, j]
			for _, k2 := range p.changes[ci+1:] {
				if k2 > j {
					break
				}
				later++
			}
			alive := true
			switch p.life.Kind {
			case monitor.Overwrite:
				alive = later == 0
			case monitor.ChangeWindowAppend:
				alive = later < p.life.Window
			case monitor.TimeWindowAppend:
				alive = j-k <= p.life.Window
			}
			if !alive {
				continue
			}
			d := j - k
			captured++
			if d == 0 {
				zero++
			}
			res.Delays[min(d, len(res.Delays)-1)]++
			if r >= 0 {
				util += math.Pow(r, float64(d))
			}
		}
	}
	if res.Changes > 0 {
		res.Captured = float64(captured) / float64(res.Changes)
		res.Utility = util / float64(res.Changes)
	}
	if captured > 0 {
		res.ZeroDelay = float64(zero) / float64(captured)
	}
	return res
}
