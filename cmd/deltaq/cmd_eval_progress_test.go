package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/progress"
)

// interruptEval runs deltaq with args, cancelling its context once a
// progress line containing marker is written, as Ctrl-C would; it
// returns what was written to stderr and the error.
func interruptEval(t *testing.T, marker string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &cancelAfter{marker: marker, cancel: cancel}
	root := newRootCmd(&strings.Builder{}, w)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption; progress:\n%s", err, w.buf.String())
	}
	return w.buf.String(), err
}

func TestInterruptedEvalSentinelsSaysHowManyWereInstalled(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("eval:\n  sentinels:\n    queries: "+datasets.Path(t, "querylogs", "trec-mq.tsv")+
		"\n    accuracy_pages: 0\n    repeats: 1\n"), 0o644)
	out := filepath.Join(dir, "out", "sentinels")
	stderr, err := interruptEval(t, "sentinels: install N=300", "eval", "sentinels", "--config", cfg, "--out", out,
		"--archive", datasets.Path(t, "archives", "digitalgov-2023"), "--sentinels", "300", "--dist", "uniform", "--groups", "none,10")
	if !regexp.MustCompile(`interrupted \(sentinels: install N=300 uniform, group (none|10): \d+ of 300 sentinels done\)`).MatchString(err.Error()) {
		t.Errorf("the interruption does not say how far the installs got: %v", err)
	}
	if strings.Contains(err.Error(), "invalid sentinel") {
		t.Errorf("an install cut short is blamed on the sentinel: %v", err)
	}
	if !strings.Contains(stderr, "sentinels: install N=300 uniform, group") {
		t.Errorf("no install stage in the progress:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted evaluation left the output directory it created: %v", err)
	}
}

func TestAnInterruptionBeforeAnythingWasCountedNamesNoCount(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := interrupted(ctx, progress.New(io.Discard, nil, 0), ctx.Err())
	if want := "interrupted; nothing written, the report needs every run: context canceled"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestInterruptedEvalRankingCountsItsRunsInPlainEnglish(t *testing.T) {
	_, err := interruptEval(t, "ranksim: [1/", "eval", "ranking", "--quick", "--out", filepath.Join(t.TempDir(), "out"))
	if !regexp.MustCompile(`interrupted \(ranksim: [1-9]\d* of \d+ runs done\)`).MatchString(err.Error()) {
		t.Errorf("err = %v, want how many of the runs were done", err)
	}
}

func TestInterruptedEvalMonitorSaysHowFarItGot(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("eval:\n  monitor:\n    r: [0, 1]\n    weekly_c: [5]\n    synth_c: [4]\n    figure_c: 4\n    bids_sweep: [8]\n"+
		"    auction:\n      pages: 300\n      instants: 120\n"), 0o644)
	out := filepath.Join(dir, "out", "monitor")
	stderr, err := interruptEval(t, "monitor (real weekly: digitalgov-2023): 2 runs of 47 weeks", "eval", "monitor", "--config", cfg,
		"--archive", datasets.Path(t, "archives", "digitalgov-2023"), "--out", out)
	if !strings.Contains(err.Error(), "interrupted (monitor (real weekly: digitalgov-2023): 0 of 2 runs done)") {
		t.Errorf("err = %v, want how far the runs got\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted evaluation left the output directory it created: %v", err)
	}
}

func TestInterruptedEvalFeedsLeavesNoEmptyOutputDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("eval:\n  feeds:\n    seeds: 1\n    per_day: [1]\n    crawl_weeks: 0\n"), 0o644)
	mine := filepath.Join(dir, "mine")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, out string
		kept      string // the directory that must be there after
	}{
		{"a directory it made is removed", filepath.Join(dir, "out", "feeds"), dir},
		{"the user's own directory is kept", mine, mine},
	} {
		t.Run(c.name, func(t *testing.T) {
			interruptEval(t, "runs of", "eval", "feeds", "--config", cfg, "--feeds", datasets.Path(t, "feeds"), "--out", c.out)
			if _, err := os.Stat(c.kept); err != nil {
				t.Errorf("%s is gone: %v", c.kept, err)
			}
			if c.out != c.kept {
				if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the interrupted evaluation left the output directory it created: %v", err)
				}
			}
		})
	}
}

func TestInterruptedEvalSyncListsOnlyThePlotsItDrew(t *testing.T) {
	cfg := syncFixture(t, "    workers: 1\n")
	out := filepath.Join(t.TempDir(), "out")
	_, err := interruptEval(t, "[2/5]", "eval", "sync", "--config", cfg, "--out", out)
	report, rerr := os.ReadFile(filepath.Join(out, "report.md"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	line := regexp.MustCompile(`(?m)^Plots: .*$`).FindString(string(report))
	drawn, notDrawn, _ := strings.Cut(line, " Not drawn: ")
	listed := regexp.MustCompile(`[\w-]+\.svg`).FindAllString(drawn, -1)
	if len(listed) == 0 {
		t.Fatalf("report.md lists no plot:\n%s", report)
	}
	for _, f := range listed {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report.md lists %s, which was not written: %v", f, err)
		}
	}
	// Both finished runs are at B = 2: B = 1 has nothing to draw.
	if notDrawn != "q-per-week-B1.svg (no run at B = 1 finished)." {
		t.Errorf("report.md does not say q-per-week-B1 was not drawn and why:\n%s", line)
	}
	if !strings.Contains(err.Error(), "plots not drawn: q-per-week-B1.svg (no run at B = 1 finished)") || strings.Contains(err.Error(), "no series") {
		t.Errorf("the warning does not name the plot not drawn and why: %v", err)
	}
}

// README: interrupted, the evaluations other than sync and ir "say how far
// they got"; eval fanout returned the bare cancellation instead.
func TestInterruptedEvalFanoutSaysHowFarItGot(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out", "fanout")
	_, err := interruptEval(t, "index: ", "eval", "fanout", "--out", out,
		"--archive", datasets.Path(t, "archives", "tldr-en"), "--log", datasets.Path(t, "querylogs", "trec-mq.tsv"),
		"--shards", "2", "--partition", "host", "--max-queries", "20")
	if !regexp.MustCompile(`interrupted \(index: \d+ of \d+ index builds done\)`).MatchString(err.Error()) {
		t.Errorf("the interruption does not say how far the fan-out evaluation got: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted evaluation left the output directory it created: %v", err)
	}
}

// Interrupted before any run finished, eval sync writes nothing, and says
// so without the other evaluations' reason: its report would have held the
// runs that finished.
func TestInterruptedEvalSyncBeforeAnyRunSaysHowFarItGot(t *testing.T) {
	cfg := syncFixture(t, "    workers: 1\n")
	_, err := interruptEval(t, "runs of", "eval", "sync", "--config", cfg, "--out", filepath.Join(t.TempDir(), "out"))
	if !regexp.MustCompile(`^interrupted \(.*: 0 of \d+ runs done\): synceval: interrupted before any of \d+ runs finished; nothing written`).MatchString(err.Error()) {
		t.Errorf("err = %v, want how far the sweep got and that nothing was written", err)
	}
	if strings.Contains(err.Error(), "needs every run") {
		t.Errorf("err = %v: eval sync writes the runs that finished, its report does not need every run", err)
	}
}
