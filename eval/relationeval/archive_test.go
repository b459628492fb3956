package relationeval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
)

// tldrLike writes a six-week archive of command pages in the tldr layout
// and a log naming most of them. The git pages change every other week.
func tldrLike(t *testing.T) ArchiveConfig {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mini-tldr")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := func(cmd, platform, desc string, rev int) string {
		return fmt.Sprintf(`<!doctype html><html><head><title>%s - tldr pages (%s)</title><meta name="description" content="%s"></head><body><main><h1>%s</h1><p>%s</p><p>rev %d</p></main></body></html>`,
			cmd, platform, desc, cmd, desc, rev)
	}
	var ivs []archivetest.Interval
	var log []string
	for i := range 30 {
		cmd, desc := fmt.Sprintf("tool%02d", i), "Archive files."
		if i < 8 {
			cmd, desc = fmt.Sprintf("git-sub%d", i), "Git version control subcommand."
		}
		url := "/common/" + cmd + ".html"
		if i < 8 {
			for w := 0; w < 6; w += 2 {
				ivs = append(ivs, archivetest.Interval{URL: url, First: w, Last: w + 1, Body: page(cmd, "common", desc, w)})
			}
		} else {
			ivs = append(ivs, archivetest.Interval{URL: url, First: 0, Last: 5, Body: page(cmd, "common", desc, 0)})
		}
		if i%5 != 4 {
			log = append(log, fmt.Sprintf("%s\t%d", cmd, 1000-i*10))
		}
	}
	slices.SortStableFunc(ivs, func(a, b archivetest.Interval) int { return strings.Compare(a.URL, b.URL) })
	archivetest.Write(t, dir, archivetest.Fixture{Name: "mini-tldr", Weeks: 6, Intervals: ivs})
	logPath := filepath.Join(t.TempDir(), "installs.tsv")
	if err := os.WriteFile(logPath, []byte(strings.Join(log, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ArchiveConfig{Archive: dir, Log: logPath, Budgets: []int{3}, PageSize: 5, MaxResults: 20, MaxKeywords: 2, Pool: 10,
		Pools: []int{2, 10}, Naive2MaxRate: 1, RatePrior: 0.05, RatePriorWeight: 4}
}

func TestArchiveRunKeepsBudgetsAndTracksChanges(t *testing.T) {
	cfg := tldrLike(t)
	w, err := openWorld(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	if len(w.ids) != 24 {
		t.Fatalf("%d pages tracked, want the 24 the log names", len(w.ids))
	}
	runs, quality, changes, err := runArchive(t.Context(), w, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The 8 git pages change in weeks 2 and 4; the log drops git-sub4.
	if changes != 14 {
		t.Errorf("%d tracked page changes, want 7 git pages × 2", changes)
	}
	for _, r := range runs {
		if r.requests > r.budget*5 {
			t.Errorf("%s sent %d requests over 5 weeks at B = %d", r.method, r.requests, r.budget)
		}
		if len(r.weekly) != 5 || len(r.atSync) != 5 {
			t.Errorf("%s: %d weekly points, want 5", r.method, len(r.weekly))
		}
		if r.method == methodGreedy && r.viaSearch == 0 {
			t.Errorf("Greedy read nothing through the search")
		}
		if r.method == methodNaive1 && (r.viaSearch != 0 || r.viaID != r.budget*5) {
			t.Errorf("Naive 1: %d by search, %d by ID; want 0 and %d", r.viaSearch, r.viaID, r.budget*5)
		}
		if m := r.tracker.Mean(); m <= 0 {
			t.Errorf("%s: time-averaged F(L) = %v, want > 0 (pages changed between syncs)", r.method, m)
		}
	}
	if len(quality) != 4 {
		t.Fatalf("%d probe-quality points, want 2 methods × 2 pool sizes", len(quality))
	}
	for _, q := range quality {
		if q.method == 1 && q.pool == 10 && q.covered < 0.99 {
			t.Errorf("method 1 with k = 10 reached %.2f of the relation, want all of it", q.covered)
		}
	}
}

func TestRunArchiveWritesTheReport(t *testing.T) {
	cfg := tldrLike(t)
	out := t.TempDir()
	sum, err := RunArchive(t.Context(), cfg, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Targets) != 2 {
		t.Errorf("%d targets, want the F ratio and the coverage", len(sum.Targets))
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "ADDED search interface") {
		t.Error("the report does not label the search interface as added")
	}
	for _, f := range []string{"results.csv", "freshness-B3.svg", "probe-coverage.png", "probe-speedup.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
