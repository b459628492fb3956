package sentineleval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/deltaq/deltaq/eval/report"
	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/internal/querylog"
)

// Summary is what a run found, for the command's last lines.
type Summary struct {
	// Speedups are throughput ratios against the ungrouped run, keyed
	// "N/dist/group".
	Speedups map[string]float64
	Took     time.Duration
	rows     []throughputRow
}

// Run runs the throughput sweep and the accuracy replay and writes
// report.md, results.csv, split.csv, accuracy.csv and the plots into out.
// progress (a *progress.Tracker, or any writer; nil for none) gets the
// installs, checks and weeks done with an ETA, and a line per run.
func Run(ctx context.Context, cfg Config, out string, progress io.Writer) (Summary, error) {
	start := time.Now()
	sum := Summary{Speedups: map[string]float64{}}
	if err := cfg.Validate(); err != nil {
		return sum, err
	}
	prog := tracker.From(progress)
	tidy, err := report.OutDir(out)
	if err != nil {
		return sum, fmt.Errorf("sentinels: %w", err)
	}
	defer tidy() // after tmp is removed: out is left only if written to
	tmp, err := os.MkdirTemp(out, "tmp-")
	if err != nil {
		return sum, fmt.Errorf("sentinels: %w", err)
	}
	defer os.RemoveAll(tmp)
	queries, err := loadQueries(cfg.Queries)
	if err != nil {
		return sum, err
	}
	r := &evalRun{cfg: cfg, queries: queries, tmp: tmp, prog: prog, speedups: sum.Speedups}
	var rows []throughputRow
	if len(cfg.Sentinels) > 0 {
		s, err := serve(cfg.Archive)
		if err != nil {
			return sum, err
		}
		defer s.close() // on return, before tmp is removed
		if rows, err = r.throughput(ctx, s); err != nil {
			return sum, err
		}
	}
	acc, err := r.accuracy(ctx)
	if err != nil {
		return sum, err
	}
	sum.rows = rows
	if err := write(out, cfg, rows, acc); err != nil {
		return sum, err
	}
	sum.Took = time.Since(start)
	return sum, nil
}

// loadQueries is the words of each query of the log at path, for keyword
// sentinels; with no log, or no words in it, one two-word query.
func loadQueries(path string) ([][]string, error) {
	var queries [][]string
	if path != "" {
		qs, err := querylog.Load(path, querylog.FormatAuto)
		if err != nil {
			return nil, err
		}
		var texts []string
		for _, q := range qs {
			texts = append(texts, q.Text)
		}
		queries = queryWords(texts)
	}
	if len(queries) == 0 {
		queries = [][]string{{"plain", "language"}}
	}
	return queries, nil
}

// evalRun is the state Run's steps share: the settings, the queries
// keyword sentinels draw on, the scratch directory and the speedups found
// so far, which are the Summary's.
type evalRun struct {
	cfg      Config
	queries  [][]string
	tmp      string
	prog     *tracker.Tracker
	speedups map[string]float64
}

// throughput runs the sweep on s: every number of sentinels, spread by
// every dist, placed for every group size, on the pages of cfg.Week
// still there the week after.
func (r *evalRun) throughput(ctx context.Context, s *served) ([]throughputRow, error) {
	pages, err := r.pages(s)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(r.prog, "throughput: %s week %d → %d, %d pages\n", s.a.Name(), r.cfg.Week, r.cfg.Week+1, len(pages))
	var rows []throughputRow
	for _, n := range r.cfg.Sentinels {
		for _, dist := range r.cfg.Dists {
			rs, err := r.placements(ctx, s, pages, n, dist)
			if err != nil {
				return nil, err
			}
			rows = append(rows, rs...)
		}
	}
	return rows, nil
}

// pages are the pages of cfg.Week that the archive still holds in the
// week after, the checks' week; cfg.Week must leave such a week.
func (r *evalRun) pages(s *served) ([]*pageInfo, error) {
	if last := s.a.Weeks() - 2; r.cfg.Week > last {
		return nil, fmt.Errorf("sentinels: eval.sentinels.week = %d: must be ≤ %d, the last week of %s with a week after it to check", r.cfg.Week, last, r.cfg.Archive)
	}
	var pages []*pageInfo
	for _, p := range s.a.Week(r.cfg.Week) {
		if _, ok := s.a.Lookup(p.URL, r.cfg.Week+1); !ok {
			continue
		}
		pi, err := newPageInfo(s.host, p.URL, p.Body, extractLimits)
		if err != nil {
			return nil, err
		}
		pages = append(pages, pi)
	}
	return pages, nil
}

// placements runs n sentinels spread by dist once per placement, in
// throughputRuns' order, stopping between placements if ctx is done.
func (r *evalRun) placements(ctx context.Context, s *served, pages []*pageInfo, n int, dist string) ([]throughputRow, error) {
	var rows []throughputRow
	runs := throughputRuns(r.cfg.Groups)
	for len(runs) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The runs of one placement: its ungrouped baseline
		// and its grouped run, measured together.
		k := 1
		for k < len(runs) && runs[k].placement == runs[0].placement {
			k++
		}
		pr, err := runPlacement(ctx, s, pages, r.cfg, n, dist, runs[0].placement, runs[:k], r.queries, r.tmp, r.prog)
		if err != nil {
			return nil, err
		}
		runs = runs[k:]
		for _, row := range pr {
			r.record(n, dist, row)
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// record keeps a grouped run's speedup for the Summary, keyed
// "N/dist/group", and gives every run its line on prog.
func (r *evalRun) record(n int, dist string, row throughputRow) {
	if row.Group != "none" && row.Speedup > 0 {
		r.speedups[fmt.Sprintf("%d/%s/%s", n, dist, row.Group)] = row.Speedup
	}
	fmt.Fprintf(r.prog, "  N=%d %s group %s (placed for %d): %.0f sentinels/s (×%.1f, %.1f–%.1f over %d passes), install %.0f µs/sentinel, %.0f B read per check\n",
		n, dist, row.Group, row.Placement, row.PerSec, row.Speedup, row.SpeedupLow, row.SpeedupHigh, row.Passes, row.InstallUS, row.BytesCheck)
}

// accuracy runs the accuracy replay on each of cfg.AccuracyArchives in
// turn, each served only while it is replayed; with AccuracyPages 0 it
// runs none.
func (r *evalRun) accuracy(ctx context.Context) ([]accuracyRow, error) {
	if r.cfg.AccuracyPages <= 0 {
		return nil, nil
	}
	var acc []accuracyRow
	for _, dir := range r.cfg.AccuracyArchives {
		s, err := serve(dir)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(r.prog, "accuracy: %s, %d pages × %d types, %d transitions\n", s.a.Name(), r.cfg.AccuracyPages, 9, s.a.Weeks()-1)
		rows, err := runAccuracy(ctx, s, r.cfg, r.queries, r.tmp, r.prog)
		s.close()
		if err != nil {
			return nil, err
		}
		acc = append(acc, rows...)
	}
	return acc, nil
}

func write(out string, cfg Config, rows []throughputRow, acc []accuracyRow) error {
	tt := report.NewTable("Throughput against group size (WebCQ §7.3, Fig. 14–15)",
		"sentinels", "dist", "placed for group", "group", "pages", "groups", "mean page bytes", "install µs/sentinel", "passes", "check s (median)", "sentinels/s", "× ungrouped (median)", "× least", "× greatest", "repo bytes/check", "repo bytes/sentinel", "fired")
	for _, r := range rows {
		tt.Add(r.Sentinels, r.Dist, r.Placement, r.Group, r.Pages, r.Groups, int(r.PageBytes), r.InstallUS, r.Passes, r.CheckSec, r.PerSec, r.Speedup, r.SpeedupLow, r.SpeedupHigh, int(r.BytesCheck), int(r.BytesSent), r.Fired)
	}
	tt.Note("WebCQ (5,000 sentinels, uniform, 47 KB Yahoo pages): 80/s ungrouped; ×4.4 at group 5, ×8.9 at 10, ×46 at 100. " +
		"Targets here: ≥ 9× at group 10 and ≥ 46× at group 100. One engine, one check at a time, real HTTP on loopback from the replay server, " +
		"Pebble on disk. Each group size is divided by the same sentinels checked ungrouped (the none row placed for it: the same pages, objects and changes), " +
		"each sentinel with its own fetch, MD5, kept copy and diff (a kept copy, or the text kept beside it, is read, grouped or not, only for the page diff of an unscoped any-change sentinel); " +
		"a baseline on other pages would also measure how many of them changed. " +
		"The two runs' check passes alternate, each on its own checkpoint; × ungrouped is the median of the passes' ratios (ungrouped time over grouped), " +
		"with the least and the greatest beside it, and check s the median pass.")
	st := report.NewTable("Where a pass's time goes: checks that found their page changed, and the rest",
		"sentinels", "dist", "placed for group", "group", "checks", "checks finding a change", "share of the pass on them (median)", "× ungrouped on unchanged pages", "× ungrouped on changed pages", "× ungrouped")
	for _, r := range rows {
		st.Add(r.Sentinels, r.Dist, r.Placement, r.Group, r.Groups, r.ChangedChecks, r.Changed, r.SpeedupUnchanged, r.SpeedupChanged, r.Speedup)
	}
	st.Note("Each check is timed and counted under changed when the MD5 of the page it fetched differed from the kept one. " +
		"A page that did not change costs a fetch and an MD5, once per group or once per sentinel, so there grouping saves up to the group size; " +
		"on a changed page each table's extraction and each member's evaluation cost what they cost ungrouped, and only the fetch, the parse and the commit are shared, " +
		"so the overall × lies between the two, nearer the changed pages' the larger their share. " +
		"The two × columns are medians of per-pass ratios, as × ungrouped is.")
	at := report.NewTable("Detection against the archives' real changes, every transition (a table WebCQ lacks)",
		"archive", "type", "sentinels", "TP", "FP", "FN", "TN", "precision", "recall", "box must fail (cases 8–10)", "of which reported", "pages gone")
	for _, r := range acc {
		at.Add(r.Archive, string(r.Type), r.Sentinels, r.TP, r.FP, r.FN, r.TN, ratio(r.TP, r.TP+r.FP), ratio(r.TP, r.TP+r.FN), r.MustFail, r.MustFailReported, r.Gone)
	}
	at.Note("Truth: any change, the archive's body hash; phrase, the word alignment (go-diff) of consecutive copies, which follows the object " +
		"without the box; the other types, the object extracted from each week's archived copy directly, so their rows check the " +
		"check path (fetch, MD5 short cut, grouping, object cache) rather than the extractor. A phrase whose box changed next to the object " +
		"(WebCQ Fig. 5 cases 8–10, where the paper says the box must fail) is listed in its own column and not scored afterwards.")
	header := fmt.Sprintf("# Sentinels (WebCQ)\n\narchive %s, week %d → %d; sentinels %v; dists %v (zipf α = %g); groups %v; accuracy on %v, %d pages each; seed %d.\n",
		cfg.Archive, cfg.Week, cfg.Week+1, cfg.Sentinels, cfg.Dists, cfg.ZipfAlpha, cfg.Groups, cfg.AccuracyArchives, cfg.AccuracyPages, cfg.Seed)
	if err := report.WriteMarkdown(filepath.Join(out, "report.md"), header, tt, st, at); err != nil {
		return err
	}
	if err := tt.WriteCSV(filepath.Join(out, "results.csv")); err != nil {
		return err
	}
	if err := st.WriteCSV(filepath.Join(out, "split.csv")); err != nil {
		return err
	}
	if err := at.WriteCSV(filepath.Join(out, "accuracy.csv")); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	// Throughput against group size, one line per (N, dist) grouped and
	// one for the same sentinels ungrouped.
	tp := report.Plot{Title: "Sentinels checked per second against group size", X: "group size the sentinels were placed for", Y: "sentinels/s", LogX: true, LogY: true}
	is := report.Plot{Title: "Install cost per sentinel, per 1,000 installs", X: "sentinels installed", Y: "µs per install"}
	series := map[string]*report.Series{}
	var order []string
	for _, r := range rows {
		key := strconv.Itoa(r.Sentinels) + " " + r.Dist
		if r.Group == "none" {
			key += " ungrouped"
		}
		if series[key] == nil {
			series[key] = &report.Series{Name: key, Style: report.LinesPoints}
			order = append(order, key)
		}
		series[key].Add(float64(r.Placement), r.PerSec)
		if len(r.Windows) > 1 {
			s := report.Series{Name: fmt.Sprintf("%s group %s", key, r.Group), Style: report.Lines}
			for i, v := range r.Windows {
				s.Add(float64((i+1)*1000), v)
			}
			is.Series = append(is.Series, s)
		}
	}
	for _, k := range order {
		tp.Series = append(tp.Series, *series[k])
	}
	if err := tp.Write(filepath.Join(out, "throughput")); err != nil {
		return err
	}
	if len(is.Series) == 0 {
		return nil // no run reached 2,000 sentinels
	}
	is.LogY = true
	return is.Write(filepath.Join(out, "install"))
}
