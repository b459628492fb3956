package progress

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/plural"
)

// DefaultEvery is how often From's trackers print.
const DefaultEvery = 5 * time.Second

// Tracker prints the progress of a job's current stage. Its methods are
// safe for concurrent use (runs go in parallel) and do nothing on a nil
// Tracker.
type Tracker struct {
	w     io.Writer
	clock clock.Clock
	every time.Duration
	mu    struct {
		sync.Mutex
		stage       string
		unit        string
		runs        int // runs in the stage
		perRun      int // units per run
		runsDone    int
		unitsDone   int
		start, last time.Time
		// printed is the count of units and runs the last line showed,
		// so that a run's end, forced after a timed line that showed
		// the same counts, is not printed twice.
		printed [2]int
	}
}

// New returns a tracker writing to w, a line at most every every.
func New(w io.Writer, clk clock.Clock, every time.Duration) *Tracker {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Tracker{w: w, clock: clk, every: every}
}

// From returns w itself if it is a Tracker, or a Tracker over w printing
// every DefaultEvery: an evaluation takes the io.Writer it always took and
// reports weeks through it either way.
func From(w io.Writer) *Tracker {
	if t, ok := w.(*Tracker); ok {
		return t
	}
	if w == nil {
		w = io.Discard
	}
	return New(w, clock.Real{}, DefaultEvery)
}

// Write passes a line of the job's own through.
func (t *Tracker) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w.Write(p)
}

// Stage starts a stage of runs runs of perRun units each; unit names them
// ("week"). With one unit per run (a simulation, a topic) the runs are the
// units. It prints the stage's first line.
func (t *Tracker) Stage(name string, runs, perRun int, unit string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	t.mu.stage, t.mu.unit, t.mu.runs, t.mu.perRun = name, unit, runs, perRun
	t.mu.runsDone, t.mu.unitsDone = 0, 0
	t.mu.start, t.mu.last = now, now
	t.mu.printed = [2]int{}
	if perRun > 1 {
		fmt.Fprintf(t.w, "%s: %s of %s\n", name, plural.Count(runs, "run"), plural.Count(perRun, unit))
	} else {
		fmt.Fprintf(t.w, "%s: %s\n", name, plural.Count(runs, unit))
	}
}

// Step counts one unit done, printing a line if Every has passed.
func (t *Tracker) Step() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mu.unitsDone++
	t.printLocked(false)
}

// RunDone counts a run done.
func (t *Tracker) RunDone() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mu.runsDone++
	t.printLocked(t.mu.runsDone == t.mu.runs)
}

func (t *Tracker) printLocked(force bool) {
	now := t.clock.Now()
	counts := [2]int{t.mu.unitsDone, t.mu.runsDone}
	if t.mu.perRun <= 1 {
		counts[1] = 0 // the runs are the units: the line shows only these
	}
	if counts == t.mu.printed || !force && now.Sub(t.mu.last) < t.every {
		return
	}
	t.mu.last, t.mu.printed = now, counts
	fmt.Fprintln(t.w, t.lineLocked(now))
}

// Line is the current progress line.
func (t *Tracker) Line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lineLocked(t.clock.Now())
}

func (t *Tracker) lineLocked(now time.Time) string {
	total := t.mu.runs * t.mu.perRun
	elapsed := now.Sub(t.mu.start)
	line := fmt.Sprintf("%s: %s %d/%d", t.mu.stage, t.mu.unit, t.mu.unitsDone, total)
	if t.mu.perRun > 1 {
		line = fmt.Sprintf("%s: %d/%d runs done, %s %d/%d", t.mu.stage, t.mu.runsDone, t.mu.runs, t.mu.unit, t.mu.unitsDone, total)
	}
	if total > 0 {
		line += fmt.Sprintf(" (%.1f%%)", 100*float64(t.mu.unitsDone)/float64(total))
	}
	line += ", " + elapsed.Round(time.Second).String()
	if left := total - t.mu.unitsDone; t.mu.unitsDone > 0 && left > 0 {
		eta := time.Duration(float64(elapsed) / float64(t.mu.unitsDone) * float64(left))
		line += ", ETA " + eta.Round(time.Second).String()
	}
	return line
}

// Status says how far the current stage got, for the message of an
// interrupted job: "adsim: 12 of 40 simulations done"; "" before a stage
// of anything to count has started.
func (t *Tracker) Status() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mu.runs == 0 {
		return ""
	}
	if t.mu.perRun > 1 {
		return fmt.Sprintf("%s: %d of %d runs done", t.mu.stage, t.mu.runsDone, t.mu.runs)
	}
	return fmt.Sprintf("%s: %d of %s done", t.mu.stage, t.mu.unitsDone, plural.Count(t.mu.runs, t.mu.unit))
}
