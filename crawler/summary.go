package crawler

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Counters count what the crawl did; they only grow. Hot paths add to
// them; the progress line, the summary and the metrics read them.
type Counters struct {
	requests  atomic.Int64 // page requests sent
	robots    atomic.Int64 // robots.txt requests sent
	newPages  atomic.Int64 // first successful fetches
	changed   atomic.Int64 // re-fetches that found a different body
	unchanged atomic.Int64 // re-fetches that found the same body, or 304
	admitted  atomic.Int64 // URLs newly recorded and queued
	limited   atomic.Int64 // URLs dropped by depth, length, per-host or redirect limits
	outcomes  [repo.NumOutcomes]atomic.Int64
	classes   [repo.NumClasses]atomic.Int64
}

func (c *Counters) outcome(o repo.Outcome) {
	if int(o) < len(c.outcomes) {
		c.outcomes[o].Add(1)
	}
}

func (c *Counters) class(k repo.QueueClass) {
	if int(k) < len(c.classes) {
		c.classes[k].Add(1)
	}
}

// Snapshot is a copy of the counters at one moment.
type Snapshot struct {
	Requests, Robots, New, Changed, Unchanged, Admitted, Limited int64
	Outcomes                                                     map[string]int64
	ByClass                                                      map[string]int64
}

// Snapshot copies the counters.
func (c *Counters) Snapshot() Snapshot {
	s := Snapshot{
		Requests: c.requests.Load(), Robots: c.robots.Load(), New: c.newPages.Load(),
		Changed: c.changed.Load(), Unchanged: c.unchanged.Load(), Admitted: c.admitted.Load(),
		Limited: c.limited.Load(), Outcomes: map[string]int64{}, ByClass: map[string]int64{},
	}
	for i := range c.outcomes {
		s.Outcomes[repo.Outcome(i).String()] = c.outcomes[i].Load()
	}
	for i := range c.classes {
		s.ByClass[repo.QueueClass(i).String()] = c.classes[i].Load()
	}
	return s
}

// Fetched is the number of page fetch results committed.
func (s Snapshot) Fetched() int64 { return sum(s.Outcomes) }

// Errors counts the outcomes that are neither content nor not-modified.
func (s Snapshot) Errors() map[string]int64 {
	out := map[string]int64{}
	for k, v := range s.Outcomes {
		if k != "ok" && k != "not_modified" && v > 0 {
			out[k] = v
		}
	}
	return out
}

func (s Snapshot) minus(b Snapshot) Snapshot {
	d := Snapshot{
		Requests: s.Requests - b.Requests, Robots: s.Robots - b.Robots, New: s.New - b.New,
		Changed: s.Changed - b.Changed, Unchanged: s.Unchanged - b.Unchanged,
		Admitted: s.Admitted - b.Admitted, Limited: s.Limited - b.Limited,
		Outcomes: map[string]int64{}, ByClass: map[string]int64{},
	}
	for k, v := range s.Outcomes {
		d.Outcomes[k] = v - b.Outcomes[k]
	}
	for k, v := range s.ByClass {
		d.ByClass[k] = v - b.ByClass[k]
	}
	return d
}

// Summary is what one Run did.
type Summary struct {
	Snapshot
	Elapsed time.Duration
}

// PagesPerSecond is committed page fetches per second of wall time.
func (s Summary) PagesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Fetched()) / s.Elapsed.Seconds()
}

// String renders the summary for the end of a command.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fetched %d pages in %s (%.1f pages/s): %d new, %d changed, %d unchanged\n",
		s.Fetched(), s.Elapsed.Round(time.Millisecond), s.PagesPerSecond(), s.New, s.Changed, s.Unchanged)
	fmt.Fprintf(&b, "requests %d (robots.txt %d); URLs admitted %d, dropped by limits %d\n",
		s.Requests, s.Robots, s.Admitted, s.Limited)
	fmt.Fprintf(&b, "budget spent: %s\n", kvList(s.ByClass))
	if e := s.Errors(); len(e) > 0 {
		fmt.Fprintf(&b, "not fetched or errors: %s\n", kvList(e))
	}
	return b.String()
}

func kvList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (c *Crawler) summary(start time.Time, before Snapshot) Summary {
	return Summary{Snapshot: c.counters.Snapshot().minus(before), Elapsed: c.clock.Now().Sub(start)}
}

// startProgress prints a progress line every ro.ProgressEvery until the
// returned function is called. On a terminal the line is rewritten in place.
func (c *Crawler) startProgress(ro RunOptions, start time.Time, before Snapshot) func() {
	if ro.Progress == nil || ro.ProgressEvery <= 0 {
		return func() {}
	}
	tty := isTerminal(ro.Progress)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ro.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				if tty {
					fmt.Fprintln(ro.Progress)
				}
				return
			case <-t.C:
				s := c.summary(start, before)
				line := fmt.Sprintf("crawl: %d fetched (%.0f/s), %d new, %d changed, %d unchanged, %d errors, %d admitted",
					s.Fetched(), s.PagesPerSecond(), s.New, s.Changed, s.Unchanged, sum(s.Errors()), s.Admitted)
				if tty {
					fmt.Fprintf(ro.Progress, "\r\033[K%s", line)
				} else {
					fmt.Fprintln(ro.Progress, line)
				}
			}
		}
	}()
	return func() { close(stop); <-done }
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
