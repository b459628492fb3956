package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
)

func TestTrackerPrintsRunsWeeksAndETAAtMostEveryInterval(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var out bytes.Buffer
	p := New(&out, clk, 10*time.Second)
	p.Stage("sweep", 2, 4, "week")
	var lines []string
	take := func() {
		for l := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			lines = append(lines, l)
		}
		out.Reset()
	}
	take()
	// Each week takes 5 s: a line every second week.
	for range 4 {
		clk.Advance(5 * time.Second)
		p.Step()
	}
	p.RunDone()
	take()
	for range 4 {
		clk.Advance(5 * time.Second)
		p.Step()
	}
	p.RunDone() // the last run: always printed
	take()
	want := []string{
		"sweep: 2 runs of 4 weeks",
		"sweep: 0/2 runs done, week 2/8 (25.0%), 10s, ETA 30s",
		"sweep: 0/2 runs done, week 4/8 (50.0%), 20s, ETA 20s",
		"sweep: 1/2 runs done, week 6/8 (75.0%), 30s, ETA 10s",
		"sweep: 1/2 runs done, week 8/8 (100.0%), 40s",
		"sweep: 2/2 runs done, week 8/8 (100.0%), 40s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestFromKeepsATrackerAndWrapsAWriter(t *testing.T) {
	var out bytes.Buffer
	p := New(&out, nil, time.Second)
	if From(p) != p {
		t.Error("From wrapped a Tracker instead of returning it")
	}
	w := From(&out)
	if _, err := w.Write([]byte("a run's own line\n")); err != nil || out.String() != "a run's own line\n" {
		t.Errorf("lines written through a Tracker: %q, %v", out.String(), err)
	}
	var nilTracker *Tracker
	nilTracker.Stage("x", 1, 1, "week") // no-ops, no panic
	nilTracker.Step()
	nilTracker.RunDone()
}

func TestOneUnitPerRunCountsTheRunsAsUnits(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var out bytes.Buffer
	p := New(&out, clk, time.Second)
	p.Stage("adsim", 4, 1, "simulation")
	clk.Advance(3 * time.Second)
	p.Step()
	p.RunDone()
	for range 3 { // each printed by Step, its RunDone adding nothing new
		clk.Advance(3 * time.Second)
		p.Step()
		p.RunDone()
	}
	p.Stage("ranksim", 1, 1, "run")
	want := "adsim: 4 simulations\nadsim: simulation 1/4 (25.0%), 3s, ETA 9s\n" +
		"adsim: simulation 2/4 (50.0%), 6s, ETA 6s\nadsim: simulation 3/4 (75.0%), 9s, ETA 3s\nadsim: simulation 4/4 (100.0%), 12s\n" +
		"ranksim: 1 run\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestStatusIsEmptyUntilAStageCountsSomething: an interruption before any
// stage, or in a stage of nothing, has no count to report, rather than
// ": 0 of 0 s done".
func TestStatusIsEmptyUntilAStageCountsSomething(t *testing.T) {
	var out strings.Builder
	p := New(&out, nil, time.Second)
	if st := p.Status(); st != "" {
		t.Errorf("Status before a stage = %q, want empty", st)
	}
	p.Stage("empty", 0, 1, "run")
	if st := p.Status(); st != "" {
		t.Errorf("Status of a stage of nothing = %q, want empty", st)
	}
	p.Stage("sims", 4, 1, "simulation")
	p.Step()
	if st, want := p.Status(), "sims: 1 of 4 simulations done"; st != want {
		t.Errorf("Status = %q, want %q", st, want)
	}
	if st := (*Tracker)(nil).Status(); st != "" {
		t.Errorf("a nil Tracker's Status = %q, want empty", st)
	}
}
