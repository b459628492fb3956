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
}

// UrgencyPlanner scores each group as WIC would with window urgency
// (MONITORING-DIGEST §1, WebCQ row of the demand table): the group's
// utility at now is Σ over its sentinels of min(1, (now − last check) /
// wished interval), so several sentinels on one page add their demands
// and share one fetch, and a page whose wishes have all come due is worth
// as much as it can be. Next is the greedy top-budget among positive
// utilities. It holds one entry per group.
type UrgencyPlanner struct {
	mu struct {
		sync.Mutex
		groups map[string]*Group
	}
}

// NewUrgencyPlanner returns a planner over groups (Engine.Groups).
func NewUrgencyPlanner(groups []Group) *UrgencyPlanner {
	p := &UrgencyPlanner{}
	p.mu.groups = make(map[string]*Group, len(groups))
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
		if u := g.Utility(now); u > 0 {
			all = append(all, scored{k, u})
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
}
