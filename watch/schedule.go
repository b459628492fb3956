package watch

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Planner picks the groups to check with the fetches available now. The
// user's interval is a wish that sets a group's urgency, not a timer.
// Under a crawler, package monitor/poll's WIC picks instead, within the
// frontier's one budget; UrgencyPlanner is the stand-alone version.
type Planner interface {
	// Next returns at most budget group keys, most useful first.
	Next(now time.Time, budget int) []string
	// Checked tells the planner a group was checked at t.
	Checked(key string, t time.Time)
	// Failed tells the planner a group's check failed at t (the page
	// could not be fetched or read).
	Failed(key string, t time.Time)
}

// BackoffMax bounds the wait after failed checks: a failing page's wait
// doubles from its interval per consecutive failure up to the longer of
// its interval and BackoffMax, so that a page back up is seen within a day.
const BackoffMax = 24 * time.Hour

// UrgencyPlanner scores each group as WIC would with window urgency
// (MONITORING-DIGEST §1, WebCQ row of the demand table): the group's
// utility at now is Σ over its sentinels of min(1, (now − last check) /
// wished interval), so several sentinels on one page add their demands
// and share one fetch, and a page whose wishes have all come due is worth
// as much as it can be. Next is the greedy top-budget among the groups
// due: a group is not checked again before its shortest wished interval
// has passed since its last check, nor, after failed checks, before its
// back-off (Backoff) has passed since the last failure. Without a crawler
// nothing else spends the fetches, so checking sooner would only fetch
// the page more often than anyone asked. It holds one entry per group.
type UrgencyPlanner struct {
	mu struct {
		sync.Mutex
		groups map[string]*Group
		// failures are the groups whose last checks failed: how many in a
		// row and when the last one was. A check that succeeds clears it.
		failures map[string]failures
	}
}

// failures are a group's consecutive failed checks.
type failures struct {
	n    int
	last time.Time
}

// NewUrgencyPlanner returns a planner over groups (Engine.Groups).
func NewUrgencyPlanner(groups []Group) *UrgencyPlanner {
	p := &UrgencyPlanner{}
	p.mu.groups = make(map[string]*Group, len(groups))
	p.mu.failures = map[string]failures{}
	for i := range groups {
		p.mu.groups[groups[i].Key] = &groups[i]
	}
	return p
}

// Set adds or replaces a group (after an install or a removal).
func (p *UrgencyPlanner) Set(g Group) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(g.Every) == 0 {
		delete(p.mu.groups, g.Key)
		delete(p.mu.failures, g.Key)
		return
	}
	p.mu.groups[g.Key] = &g
}

// Refresh replaces the groups with the stored ones (installs and removals
// since), keeping the later of the stored and the remembered check time.
func (p *UrgencyPlanner) Refresh(groups []Group) {
	p.mu.Lock()
	defer p.mu.Unlock()
	next := make(map[string]*Group, len(groups))
	for i := range groups {
		g := &groups[i]
		if old, ok := p.mu.groups[g.Key]; ok && old.LastCheck.After(g.LastCheck) {
			g.LastCheck = old.LastCheck
		}
		next[g.Key] = g
	}
	for k := range p.mu.failures {
		if _, ok := next[k]; !ok {
			delete(p.mu.failures, k)
		}
	}
	p.mu.groups = next
}

// Utility is a group's utility at now.
func (g *Group) Utility(now time.Time) float64 {
	u := 0.0
	elapsed := now.Sub(g.LastCheck)
	for _, every := range g.Every {
		u += min(1, float64(elapsed)/float64(every))
	}
	return u
}

// Interval is the group's shortest wished interval: the soonest any of
// its sentinels asks for the page again.
func (g *Group) Interval() time.Duration {
	if len(g.Every) == 0 {
		return 0
	}
	return slices.Min(g.Every)
}

// Backoff is how long to wait after the n-th failed check in a row of a
// page checked about every interval: interval × 2^n, at most the longer
// of interval and BackoffMax.
func Backoff(interval time.Duration, n int) time.Duration {
	limit := max(interval, BackoffMax)
	wait := interval
	for range n {
		if wait >= limit/2 {
			return limit
		}
		wait *= 2
	}
	return min(wait, limit)
}

// due reports whether g may be checked at now: its interval has passed
// since its last check and, after failures, its back-off since the last.
func (p *UrgencyPlanner) due(g *Group, now time.Time) bool {
	every := g.Interval()
	if every <= 0 || now.Sub(g.LastCheck) < every {
		return false
	}
	f, failed := p.mu.failures[g.Key]
	return !failed || now.Sub(f.last) >= Backoff(every, f.n)
}

// Failures is how many checks of the group key have failed in a row.
func (p *UrgencyPlanner) Failures(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.failures[key].n
}

// Next implements Planner.
func (p *UrgencyPlanner) Next(now time.Time, budget int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	type scored struct {
		key string
		u   float64
	}
	var all []scored
	for k, g := range p.mu.groups {
		if p.due(g, now) {
			all = append(all, scored{k, g.Utility(now)})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.u, a.u); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	var out []string
	for _, s := range all[:min(budget, len(all))] {
		out = append(out, s.key)
	}
	return out
}

// Checked implements Planner.
func (p *UrgencyPlanner) Checked(key string, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g, ok := p.mu.groups[key]; ok {
		g.LastCheck = t
	}
	delete(p.mu.failures, key)
}

// Failed implements Planner. The group's last check time stays that of
// its last successful check; the back-off counts from t.
func (p *UrgencyPlanner) Failed(key string, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.mu.groups[key]; !ok {
		return
	}
	f := p.mu.failures[key]
	p.mu.failures[key] = failures{n: f.n + 1, last: t}
}
