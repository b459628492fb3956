package crawler

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/plural"
	"github.com/deltaq/deltaq/internal/urlnorm"
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
	excluded  atomic.Int64 // URLs kept out by crawler.include and crawler.exclude
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
	Requests, Robots, New, Changed, Unchanged, Admitted, Limited, Excluded int64
	Outcomes                                                               map[string]int64
	ByClass                                                                map[string]int64
}

// Snapshot copies the counters.
func (c *Counters) Snapshot() Snapshot {
	s := Snapshot{
		Requests: c.requests.Load(), Robots: c.robots.Load(), New: c.newPages.Load(),
		Changed: c.changed.Load(), Unchanged: c.unchanged.Load(), Admitted: c.admitted.Load(),
		Limited: c.limited.Load(), Excluded: c.excluded.Load(), Outcomes: map[string]int64{}, ByClass: map[string]int64{},
	}
	for i := range c.outcomes {
		s.Outcomes[repo.Outcome(i).String()] = c.outcomes[i].Load()
	}
	for i := range c.classes {
		s.ByClass[repo.QueueClass(i).String()] = c.classes[i].Load()
	}
	return s
}

// Fetched is the number of page fetch results committed, but for the
// URLs robots.txt disallowed, which make no request.
func (s Snapshot) Fetched() int64 { return sum(s.Outcomes) - s.Disallowed() }

// Answered is the number of page fetches that got an HTTP answer: those
// Fetched counts but for the ones that failed before any (a connection
// refused or reset, a time-out, an address the guard refused).
func (s Snapshot) Answered() int64 {
	return s.Fetched() - s.Outcomes[repo.OutcomeNetworkError.String()] - s.Outcomes[repo.OutcomeTimeout.String()] - s.Outcomes[repo.OutcomeRefused.String()]
}

// Errors counts the outcomes that are neither content nor not-modified
// nor a robots.txt refusal, which is the site's answer, not a failure.
func (s Snapshot) Errors() map[string]int64 {
	out := map[string]int64{}
	for k, v := range s.Outcomes {
		if k != "ok" && k != "not_modified" && k != "disallowed" && v > 0 {
			out[k] = v
		}
	}
	return out
}

// Disallowed is the URLs robots.txt did not let the crawl fetch.
func (s Snapshot) Disallowed() int64 { return s.Outcomes[repo.OutcomeDisallowed.String()] }

func (s Snapshot) minus(b Snapshot) Snapshot {
	d := Snapshot{
		Requests: s.Requests - b.Requests, Robots: s.Robots - b.Robots, New: s.New - b.New,
		Changed: s.Changed - b.Changed, Unchanged: s.Unchanged - b.Unchanged,
		Admitted: s.Admitted - b.Admitted, Limited: s.Limited - b.Limited, Excluded: s.Excluded - b.Excluded,
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
	// Queued is the URLs left in the queue when Run returned; Left says
	// why, as reason → URLs.
	Queued int
	Left   map[string]int64
	// Refused maps each host the address guard refused in this run to
	// why (its address and the kind of address); RefusedMore counts hosts
	// refused beyond those named. A crawler that runs again names in each
	// run only the hosts that run asked, here and in Unreachable.
	Refused     map[string]string
	RefusedMore int
	// Unreachable maps each host this run asked that does not answer to
	// why: one whose latest attempt got no whole HTTP answer (refused,
	// reset, malformed, timed out, cut short), having never answered, or
	// having failed its last three attempts in a row, in this run or
	// earlier ones (hostReach). Its why is the first error of those. A
	// host that answers its pages but one is not named: that page is
	// retried. UnreachableMore counts hosts beyond those named.
	Unreachable     map[string]string
	UnreachableMore int
	// StaleRobots maps each host this run crawled under the robots.txt
	// rules it fetched before, because a refresh found robots.txt
	// unreachable (crawler.robots.stale_for), to when those rules were
	// fetched and since when robots.txt is unreachable; StaleRobotsMore
	// counts hosts beyond those named.
	StaleRobots     map[string]string
	StaleRobotsMore int
}

// PagesPerSecond is committed page fetches per second of wall time.
func (s Summary) PagesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Fetched()) / s.Elapsed.Seconds()
}

// Deferred is how many URLs were left queued because their host did not
// answer for its robots.txt or asked to back off (429/503): a later run
// fetches them once the host is due again.
func (s Summary) Deferred() int64 { return s.Left[leftRobots] + s.Left[leftBackoff] }

// String renders the summary for the end of a command.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fetched %d pages in %s (%.1f pages/s): %d new, %d changed, %d unchanged\n",
		s.Fetched(), s.Elapsed.Round(time.Millisecond), s.PagesPerSecond(), s.New, s.Changed, s.Unchanged)
	fmt.Fprintf(&b, "requests %d (robots.txt %d); URLs admitted %d, dropped by limits %d, excluded by URL rules %d\n",
		s.Requests, s.Robots, s.Admitted, s.Limited, s.Excluded)
	fmt.Fprintf(&b, "budget spent: %s\n", kvList(s.ByClass))
	if n := s.Disallowed(); n > 0 {
		fmt.Fprintf(&b, "disallowed by robots.txt: %d URLs\n", n)
	}
	if e := s.Errors(); len(e) > 0 {
		fmt.Fprintf(&b, "not fetched or errors: %s\n", kvList(e))
	}
	switch {
	case s.Queued > 0 && len(s.Left) > 0:
		fmt.Fprintf(&b, "left queued: %d URLs (%s)\n", s.Queued, kvList(s.Left))
	case s.Queued > 0: // a run stopped without draining does not scan the queue for why
		fmt.Fprintf(&b, "left queued: %d URLs\n", s.Queued)
	}
	if len(s.Refused) > 0 {
		fmt.Fprintf(&b, "refused by the address guard (crawler.allow_private is false): %s\n", HostReasons(s.Refused, s.RefusedMore, 0))
	}
	if len(s.Unreachable) > 0 {
		fmt.Fprintf(&b, "unreachable: %s\n", HostReasons(s.Unreachable, s.UnreachableMore, maxUnreachableShown))
	}
	if len(s.StaleRobots) > 0 {
		fmt.Fprintf(&b, "robots.txt unreachable, cached rules obeyed (crawler.robots.stale_for): %s\n", HostReasons(s.StaleRobots, s.StaleRobotsMore, maxUnreachableShown))
	}
	return b.String()
}

// maxUnreachableShown is the most unreachable hosts a summary names: on a
// wide crawl some hosts always time out, and their count says enough.
const maxUnreachableShown = 5

// HostReasons lists hosts with why ("host: why; host: why"), sorted, at
// most limit of them when limit > 0, then how many more there were.
func HostReasons(hosts map[string]string, more, limit int) string {
	list := make([]string, 0, len(hosts))
	for h, why := range hosts {
		list = append(list, h+": "+why)
	}
	sort.Strings(list)
	if limit > 0 && len(list) > limit {
		more += len(list) - limit
		list = list[:limit]
	}
	out := strings.Join(list, "; ")
	if more > 0 {
		out += fmt.Sprintf(" and %d more hosts", more)
	}
	return out
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

// Reasons a URL is left in the queue at the end of a run, in the order
// they are looked for.
const (
	leftRefused    = "address refused"
	leftRobots     = "robots.txt unreachable, host deferred"
	leftBackoff    = "host backing off after 429/503"
	leftNotDue     = "not due yet"
	leftStopped    = "run stopped early"
	leftNotHeld    = "not among the URLs asked for" // frontier.Options.Only
	leftBudget     = "budget of the period spent"
	leftPoliteness = "waiting for the host's politeness delay"
)

// leftQueued counts the URLs still queued and says why each was not
// fetched. It scans the persisted queue once.
func (c *Crawler) leftQueued(ctx context.Context, f *frontier.Frontier, horizon time.Duration, stopped bool) (int, map[string]int64, error) {
	now := c.clock.Now()
	st := f.Stats()
	budgetSpent := st.BudgetLimit > 0 && st.BudgetUsed >= st.BudgetLimit
	left := map[string]int64{}
	n := 0
	for item, err := range c.db.AllQueued(ctx) {
		if err != nil {
			return 0, nil, fmt.Errorf("crawler: queue: %w", err)
		}
		n++
		host := urlnorm.Host(item.URL)
		info := c.hosts.peek(host)
		switch {
		case !f.Holds(item.URL):
			left[leftNotHeld]++
		case info != nil && info.refused:
			left[leftRefused]++
		case info != nil && now.Before(info.deferUntil):
			left[leftRobots]++
		case info != nil && now.Before(info.backoffUntil):
			left[leftBackoff]++
		case f.Due(item).After(now.Add(horizon)):
			left[leftNotDue]++
		case stopped:
			left[leftStopped]++
		case budgetSpent:
			left[leftBudget]++
		default:
			left[leftPoliteness]++
		}
	}
	return n, left, nil
}

// progress is the state of the progress line between two ticks.
type progress struct {
	last    int64         // fetches at the previous tick
	active  time.Duration // time in ticks that committed a fetch
	started bool
}

// robotsWait is how many hosts a 5xx or unreachable robots.txt defers
// (crawler.robots.error_defer), and when the first of them may go on.
type robotsWait struct {
	hosts int
	until time.Time
}

// line renders one progress line. The rate is over active time only, so it
// does not fall while the crawl waits for politeness or the next budget
// period; the ETA divides the queue by that rate. A crawl that waits says
// on what, naming hosts its robots.txt rule defers, as they wait far
// longer than a politeness delay; one with nothing queued waits for its
// requests in flight or for new URLs.
func (p *progress) line(s Summary, st frontier.Stats, deferred robotsWait, tick time.Duration) string {
	fetched := s.Fetched()
	if fetched > p.last {
		p.active += tick
	}
	waiting := fetched == p.last && p.started
	p.last, p.started = fetched, true
	rate := 0.0
	if p.active > 0 {
		rate = float64(fetched) / p.active.Seconds()
	}
	line := fmt.Sprintf("crawl: %d fetched (%.1f/s active), %d new, %d changed, %d unchanged, %d errors, %d disallowed; %d queued",
		fetched, rate, s.New, s.Changed, s.Unchanged, sum(s.Errors()), s.Disallowed(), st.Queued)
	switch {
	case waiting && st.BudgetLimit > 0 && st.BudgetUsed >= st.BudgetLimit:
		line += fmt.Sprintf(", waiting: budget of %d spent until %s", st.BudgetLimit, st.PeriodEnd.Format(time.TimeOnly))
	case waiting && st.Queued == 0 && st.InFlight > 0:
		line += ", waiting for " + plural.Count(st.InFlight, "request") + " in flight"
	case waiting && st.Queued == 0: // a run that does not drain: a cluster node, a continuous crawl
		line += ", waiting for new URLs"
	case waiting:
		line += ", waiting for hosts' politeness or back-off"
		switch {
		case deferred.hosts == 1:
			line += "; 1 host's robots.txt unreachable: deferred until " + deferred.until.Format(time.TimeOnly) + " (crawler.robots.error_defer)"
		case deferred.hosts > 1:
			line += fmt.Sprintf("; %d hosts' robots.txt unreachable: deferred, the first until %s (crawler.robots.error_defer)", deferred.hosts, deferred.until.Format(time.TimeOnly))
		}
	case rate > 0 && st.Queued > 0:
		eta := time.Duration(float64(st.Queued) / rate * float64(time.Second))
		line += ", ETA " + eta.Round(time.Second).String()
		if st.BudgetLimit > 0 && st.Queued > st.BudgetLimit-st.BudgetUsed {
			line += " (more than this period's budget left)"
		}
	}
	return line
}

// startProgress prints a progress line every ro.ProgressEvery until the
// returned function is called. On a terminal the line is rewritten in place.
func (c *Crawler) startProgress(f *frontier.Frontier, ro RunOptions, start time.Time, before Snapshot) func() {
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
		var p progress
		for {
			select {
			case <-stop:
				if tty {
					fmt.Fprintln(ro.Progress)
				}
				return
			case <-t.C:
				line := p.line(c.summary(start, before), f.Stats(), c.hosts.robotsDeferred(c.clock.Now()), ro.ProgressEvery)
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
