package frontier

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// budget counts the fetches of the current period. Re-fetches planned for
// the period hold a reservation, so first fetches of new URLs cannot spend
// the budget before the planned re-fetches come due; whatever a plan does
// not reserve is free for new URLs.
type budget struct {
	limit  int
	period time.Duration
	// share is the period's quota per class: what its plans may reserve
	// for re-fetches and monitoring polls (share[repo.ClassNew] is what
	// is left for new URLs before unused shares flow to them).
	share Quota
	// quota, if set (Options.Quota), gives each period's share; asked
	// says whether it has been asked for the current period.
	quota    func(start time.Time) Quota
	asked    bool
	start    time.Time
	used     int
	reserved [repo.NumClasses]int // planned entries of this period not yet handed out
	byClass  [repo.NumClasses]int // handed out this period, per class
	// hold keeps the monitoring share of the period's instants still to
	// come from new URLs; each instant releases what its picks leave
	// (monitor.go).
	hold int
}

// Quota is one period's fetches per class: Recrawl, Discovery and
// Monitor are the shares the period's plans and monitoring instants may
// reserve, New what is left for first fetches of new URLs (which also
// take whatever the other classes leave unused). Total is the period's
// limit.
type Quota [repo.NumClasses]int

// Total is the fetches the period allows, all classes together.
func (q Quota) Total() int {
	n := 0
	for _, v := range q {
		n += v
	}
	return n
}

// QuotaOf is the period's quota that cfg configures:
// frontier.budget.fetches split by frontier.split, the rest to new URLs.
// A frontier without Options.Quota spends it every period; a cluster
// divides it among its nodes.
func QuotaOf(cfg Config) Quota {
	var q Quota
	q[repo.ClassRecrawl] = int(cfg.Split.Recrawl * float64(cfg.Budget.Fetches))
	q[repo.ClassDiscovery] = int(cfg.Split.Discovery * float64(cfg.Budget.Fetches))
	q[repo.ClassMonitor] = int(cfg.Split.Monitor * float64(cfg.Budget.Fetches))
	q[repo.ClassNew] = max(0, cfg.Budget.Fetches-q[repo.ClassRecrawl]-q[repo.ClassDiscovery]-q[repo.ClassMonitor])
	return q
}

// roll starts a new period if now is past the current one, and asks the
// quota function for the period's share the first time it is called in
// a period (New sets the function after its own roll, so that the
// question waits until the frontier is first used). It reports whether
// anything changed. Periods are aligned to multiples of the period length.
func (b *budget) roll(now time.Time) bool {
	changed := false
	if b.start.IsZero() || !now.Before(b.start.Add(b.period)) {
		b.start = now.Truncate(b.period)
		b.used = 0
		b.reserved = [repo.NumClasses]int{}
		b.byClass = [repo.NumClasses]int{}
		b.hold = 0
		b.asked = false
		changed = true
	}
	if b.quota != nil && !b.asked {
		b.share = b.quota(b.start)
		b.limit = b.share.Total()
		b.asked = true
		changed = true
	}
	return changed
}

// end is when the current period ends.
func (b *budget) end() time.Time { return b.start.Add(b.period) }

// admits reports whether an entry of class may be handed out now.
func (b *budget) admits(c repo.QueueClass) bool {
	if b.used >= b.limit {
		return false
	}
	return c != repo.ClassNew || b.free() > 0
}

// free is what is left of the period's budget after fetches and
// reservations.
func (b *budget) free() int {
	free := b.limit - b.used - b.hold
	for _, r := range b.reserved {
		free -= r
	}
	return free
}

// take counts a fetch of class c handed out, and reports whether it
// consumed one of the class's reservations.
func (b *budget) take(c repo.QueueClass) (reserved bool) {
	b.used++
	b.byClass[c]++
	if b.reserved[c] > 0 {
		b.reserved[c]--
		return true
	}
	return false
}

// give back a fetch that did not happen (a deferred job), with the
// reservation it consumed: otherwise a first fetch of a new URL could take
// the slot of the planned re-fetch that is still queued, and which of the
// two a period fetches would depend on timing.
func (b *budget) giveBack(c repo.QueueClass, reserved bool) {
	if b.used > 0 {
		b.used--
	}
	if b.byClass[c] > 0 {
		b.byClass[c]--
	}
	if reserved {
		b.reserved[c]++
	}
}

// reserve holds n fetches of this period for planned entries of class c,
// capped so that reservations never exceed what is left.
func (b *budget) reserve(c repo.QueueClass, n int) {
	b.reserved[c] += max(0, min(n, b.free()))
}

// usage is the persisted count of committed fetches per class in the period
// starting at start.
type usage struct {
	start   time.Time
	byClass [repo.NumClasses]int
}

func (u usage) encode() []byte {
	b := binary.AppendVarint(nil, u.start.UnixNano())
	for _, n := range u.byClass {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

func decodeUsage(b []byte) (usage, error) {
	var u usage
	start, n := binary.Varint(b)
	if n <= 0 {
		return u, errors.New("bad period start")
	}
	u.start = time.Unix(0, start).UTC()
	b = b[n:]
	for c := range u.byClass {
		if len(b) == 0 {
			break // written before a class was added: it counted nothing
		}
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return u, errors.New("bad count")
		}
		u.byClass[c] = int(v)
		b = b[n:]
	}
	return u, nil
}

// Demand is what a frontier would spend in one period per class if the
// budget allowed (each capped at what QuotaOf gives the class, new URLs
// at the whole budget): first fetches of the new URLs queued; once Plan
// has run (RunPlanner), re-fetches of the pages fetched at least once,
// the candidates a recrawl plan and, with a Discoverer, a discovery plan
// choose from (a crawl that never plans demands none); with a Monitor, a
// poll of each URL watched at each of the period's instants. A cluster
// divides its budget among its nodes by their demands.
type Demand [repo.NumClasses]int

// Demand is the frontier's demand now. It reads counters kept as the
// queue changes; the count of pages fetched is kept only with
// Options.Quota (elsewhere nothing asks), from a scan of the repository at
// New.
func (f *Frontier) Demand() Demand {
	watched := 0
	if f.monitor != nil {
		watched = f.monitor.Watched() // outside the lock, as PlanMonitor asks
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	limit := QuotaOf(f.cfg)
	var d Demand
	d[repo.ClassNew] = min(f.mu.queuedNew, f.cfg.Budget.Fetches)
	if f.mu.planned {
		d[repo.ClassRecrawl] = min(f.mu.fetched, limit[repo.ClassRecrawl])
		if f.discoverer != nil {
			d[repo.ClassDiscovery] = min(f.mu.fetched, limit[repo.ClassDiscovery])
		}
	}
	if f.monitor != nil {
		instants := max(1, int(f.cfg.Budget.Period/f.monitorInstant))
		d[repo.ClassMonitor] = min(watched*instants, limit[repo.ClassMonitor])
	}
	return d
}

// countFetched counts the pages fetched at least once, for Demand.
func (f *Frontier) countFetched(ctx context.Context) error {
	n := 0
	for p, err := range f.db.Pages(ctx) {
		if err != nil {
			return fmt.Errorf("frontier: count fetched pages: %w", err)
		}
		if p.Fetches > 0 {
			n++
		}
	}
	f.mu.Lock()
	f.mu.fetched = n
	f.mu.Unlock()
	return nil
}
