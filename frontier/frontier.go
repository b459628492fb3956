package frontier

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// ErrDrained is returned by Next in drain mode when nothing is in flight and
// nothing queued may be fetched now.
var ErrDrained = errors.New("frontier: drained")

// Gate is the politeness the scheduler must respect, provided by the crawler.
type Gate interface {
	// Capacity is how many requests may be in flight to host at once.
	Capacity(host string) int
	// Interval is the least time between the starts of two requests to host.
	Interval(host string) time.Duration
}

// Job is one fetch handed out by Next. The crawler commits its result in a
// batch that also passes through Complete, and then calls Done; it may call
// Release before, when the request has ended.
type Job struct {
	URL    string
	Reason repo.Reason
	Due    time.Time
	Host   string
	Class  repo.QueueClass
	key    string
	// period is the start of the budget period the job was counted in, and
	// reserved whether it consumed a reservation there (budget.take): a
	// Defer in the same period gives both back.
	period   time.Time
	reserved bool
}

// Options are the non-configuration inputs of New.
type Options struct {
	Clock  clock.Clock // nil means the wall clock
	Logger *slog.Logger
	// Discoverer, if set, plans the discovery re-fetches of each period
	// (frontier.split.discovery of the budget).
	Discoverer Discoverer
	// Monitor, if set, picks the monitoring polls of each instant of
	// MonitorInstant (frontier.split.monitor of the budget; monitor.go).
	Monitor        Monitor
	MonitorInstant time.Duration
	// Quota, if set, gives each period's budget (budget.go), asked once
	// per period when the frontier is first used in it, holding the
	// frontier's lock: it must answer without waiting long. A node of a
	// cluster sets it to its share of the cluster's budget; nil spends
	// QuotaOf(cfg) every period.
	Quota func(start time.Time) Quota
	// Arrival, required by frontier.split.adaptive, is what a new page's
	// first indexing added (split.go).
	Arrival Arrival
	// Only, if set, confines the frontier to the queued URLs it reports:
	// the others stay in the persisted queue, untouched, for a frontier
	// without it. A poll of a few URLs sets it, so that what they link to
	// is queued for a crawl and not fetched by the poll.
	Only func(url string) bool
	// DueNow hands out every entry queued before the frontier was made as
	// if it were due now, politeness and the budget still applying: a poll
	// asked for now is not held back by a re-fetch of the same URL planned
	// for later in the period. A retry queued after a failure in the run
	// still waits out its back-off.
	DueNow bool
	// Feed, if set, reports whether url is a subscribed feed's, which the
	// crawler fetches as a feed reader does (Frontier.Feed). Without it a
	// Monitor that is a FeedMonitor says.
	Feed func(url string) bool
}

// Frontier decides what to fetch next. It is safe for concurrent use.
type Frontier struct {
	db         *repo.DB
	cfg        Config
	clock      clock.Clock
	gate       Gate
	policy     Policy
	discoverer Discoverer
	arrival    Arrival
	only       func(url string) bool // nil: the whole queue
	dueNow     bool
	// started is when the frontier was made: Options.DueNow holds for the
	// entries queued by then, not for those this run queues later (a retry
	// waits out its back-off).
	started time.Time
	feed    func(url string) bool // nil: no URL is a feed's
	logger  *slog.Logger
	// monitor picks monitoring polls every monitorInstant (monitor.go).
	monitor        Monitor
	monitorInstant time.Duration

	mu struct {
		sync.Mutex
		hosts    map[string]*hostQueue
		ready    hostHeap // hosts that may have a job to hand out, by readyAt
		inflight int
		queued   int // entries in the persisted queue, buffered or not
		budget   budget
		usage    usage // committed fetches of the budget's period, as persisted
		// pending holds the URLs queued for a re-fetch (recrawl or
		// discovery) and not yet done, so a plan never queues one twice.
		pending map[string]struct{}
		changed chan struct{}           // closed and replaced whenever a waiter should look again
		full    map[string]*fullRecrawl // discovery: sites being fully re-crawled
		split   splitState              // frontier.split.adaptive (split.go)

		// queuedNew counts the queued entries of class new, and fetched
		// the pages fetched at least once (kept only with Options.Quota);
		// planned says whether Plan has run. For Demand.
		queuedNew, fetched int
		planned            bool
	}
}

// New builds a frontier over db and loads the queue persisted there.
func New(ctx context.Context, db *repo.DB, cfg Config, gate Gate, policy Policy, opts Options) (*Frontier, error) {
	if err := cfg.Validate(Policies()); err != nil {
		return nil, err
	}
	f := &Frontier{db: db, cfg: cfg, clock: opts.Clock, gate: gate, policy: policy, discoverer: opts.Discoverer, arrival: opts.Arrival, only: opts.Only, dueNow: opts.DueNow, logger: opts.Logger,
		monitor: opts.Monitor, monitorInstant: opts.MonitorInstant, feed: opts.Feed}
	if fm, ok := opts.Monitor.(FeedMonitor); ok && f.feed == nil {
		f.feed = fm.Feed
	}
	if cfg.Split.Adaptive && f.arrival == nil {
		return nil, errors.New("frontier.split.adaptive = true: needs the index's measure of new pages (Options.Arrival), which a crawl without the index lacks")
	}
	f.mu.split.share = nextShare(cfg.Split.Discovery, gainRates{recrawlCap: -1, discoveryCap: -1}, cfg.Split)
	if f.monitor != nil && (f.monitorInstant <= 0 || f.monitorInstant > cfg.Budget.Period) {
		return nil, fmt.Errorf("monitor.instant = %v: must be > 0 and at most frontier.budget.period (%v)", f.monitorInstant, cfg.Budget.Period)
	}
	if f.clock == nil {
		f.clock = clock.Real{}
	}
	f.started = f.clock.Now()
	if f.logger == nil {
		f.logger = slog.New(slog.DiscardHandler)
	}
	f.logger = f.logger.With("component", "frontier")
	f.mu.hosts = make(map[string]*hostQueue)
	f.mu.pending = make(map[string]struct{})
	f.mu.full = make(map[string]*fullRecrawl)
	f.mu.changed = make(chan struct{})
	f.mu.budget = budget{limit: cfg.Budget.Fetches, period: cfg.Budget.Period, share: QuotaOf(cfg)}
	f.mu.budget.roll(f.clock.Now())
	f.mu.budget.quota = opts.Quota
	if err := f.loadUsage(); err != nil {
		return nil, err
	}
	if policy != nil {
		if err := recordPolicy(ctx, db, policy.Name()); err != nil {
			return nil, err
		}
	}
	if err := f.load(ctx); err != nil {
		return nil, err
	}
	if opts.Quota != nil {
		if err := f.countFetched(ctx); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// load rebuilds the in-memory heads from the persisted queue.
func (f *Frontier) load(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for item, err := range f.db.AllQueued(ctx) {
		if err != nil {
			return fmt.Errorf("frontier: load queue: %w", err)
		}
		f.addLocked(item)
		n++
		if item.Reason.Class() == repo.ClassNew {
			f.mu.queuedNew++
		}
	}
	f.mu.queued = n
	for _, h := range f.mu.hosts {
		f.fixLocked(h)
	}
	f.logger.Info("queue loaded", "n", n, "hosts", len(f.mu.hosts))
	return nil
}

// Holds reports whether the frontier may hand out url (Options.Only).
func (f *Frontier) Holds(url string) bool { return f.only == nil || f.only(url) }

// Due is when the frontier would hand out a queued item, politeness and
// the budget aside: when it is due, or at once under Options.DueNow if
// it was queued before the frontier was made.
func (f *Frontier) Due(item repo.QueueItem) time.Time {
	if f.dueAtOnce(item.Enqueued) {
		return time.Time{}
	}
	return item.Due
}

// dueAtOnce reports whether an entry queued at enqueued is handed out as
// if due now (Options.DueNow): one queued before the frontier was made.
// A retry this run queues after a failure waits out its back-off.
func (f *Frontier) dueAtOnce(enqueued time.Time) bool {
	return f.dueNow && !enqueued.After(f.started)
}

// addLocked buffers a committed queue entry in its host's queue, if the
// frontier holds it, and, for a re-fetch, marks its URL pending. It
// returns the host's queue.
func (f *Frontier) addLocked(item repo.QueueItem) *hostQueue {
	host := urlnorm.Host(item.URL)
	h, ok := f.mu.hosts[host]
	if !ok {
		h = newHostQueue(host)
		f.mu.hosts[host] = h
	}
	if f.Holds(item.URL) {
		h.insert(entryOf(item), f.cfg.HostBuffer)
	}
	if item.Reason.Class() != repo.ClassNew {
		f.mu.pending[item.URL] = struct{}{}
	}
	return h
}

// Enqueue writes an entry into the caller's batch. It becomes visible to
// Next when the caller, after the batch committed, passes the returned item
// to Publish.
func (f *Frontier) Enqueue(b *repo.Batch, url string, reason repo.Reason, due time.Time) (repo.QueueItem, error) {
	return b.Enqueue(&repo.QueueEntry{URL: url, Reason: reason, Enqueued: f.clock.Now()}, due)
}

// Publish makes committed entries available to Next.
func (f *Frontier) Publish(items ...repo.QueueItem) {
	if len(items) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mu.queued += len(items)
	for _, item := range items {
		f.fixLocked(f.addLocked(item))
		if item.Reason.Class() == repo.ClassNew {
			f.mu.queuedNew++
		}
	}
	f.wakeLocked()
}

// TryNext returns a job if one may start now, without waiting.
func (f *Frontier) TryNext() (Job, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	if f.mu.budget.roll(now) {
		f.refixAllLocked()
	}
	_, job, ok := f.popLocked(now)
	return job, ok
}

// Drained reports whether nothing is in flight and no queued entry could
// start within horizon: what makes Next return ErrDrained in drain mode.
func (f *Frontier) Drained(horizon time.Duration) bool { return f.DrainedExcept(horizon, nil) }

// DrainedExcept is Drained leaving out the entries of the hosts skip
// reports (nil skips none): a cluster node has nothing left to do when
// all it holds queued belongs to hosts another node fetches now.
func (f *Frontier) DrainedExcept(horizon time.Duration, skip func(host string) bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mu.inflight == 0 && !f.anyReadyLocked(f.clock.Now().Add(horizon), skip)
}

// NextOptions say how long Next waits.
type NextOptions struct {
	// Drain makes Next return ErrDrained instead of waiting when nothing is
	// in flight and no queued entry could start within Horizon (none is due
	// by then, its host must wait longer, or the budget is spent). It ends
	// a one-pass crawl; hosts deferred beyond the horizon stay queued.
	Drain   bool
	Horizon time.Duration
}

// Next blocks until a job may start and returns it.
func (f *Frontier) Next(ctx context.Context, opts NextOptions) (Job, error) {
	for {
		f.mu.Lock()
		now := f.clock.Now()
		if f.mu.budget.roll(now) {
			f.refixAllLocked()
		}
		wait, job, ok := f.popLocked(now)
		if ok {
			f.mu.Unlock()
			return job, nil
		}
		if opts.Drain && f.mu.inflight == 0 && !f.anyReadyLocked(now.Add(opts.Horizon), nil) {
			f.mu.Unlock()
			return Job{}, ErrDrained
		}
		if f.mu.budget.used >= f.mu.budget.limit && (wait.IsZero() || wait.After(f.mu.budget.end())) {
			wait = f.mu.budget.end()
		}
		changed := f.mu.changed
		f.mu.Unlock()
		if err := f.waitFor(ctx, wait, changed); err != nil {
			return Job{}, err
		}
	}
}

// waitFor sleeps until the clock reaches t (if t is set), the frontier
// changes, or ctx ends.
func (f *Frontier) waitFor(ctx context.Context, t time.Time, changed <-chan struct{}) error {
	if t.IsZero() {
		select {
		case <-changed:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-changed:
			cancel()
		case <-wctx.Done():
		}
	}()
	// Woken by the clock or by a change: either way the caller looks again.
	if err := f.clock.WaitUntil(wctx, t); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// popLocked hands out the best job if one may start at now. Otherwise it
// returns the earliest time one might (zero if none is queued).
func (f *Frontier) popLocked(now time.Time) (time.Time, Job, bool) {
	for f.mu.ready.Len() > 0 {
		h := f.mu.ready[0]
		// The heap key may be stale if the budget changed what is admissible.
		at, class, ok := f.readyLocked(h)
		if !ok {
			f.fixLocked(h)
			continue
		}
		if at != h.readyAt {
			h.readyAt = at
			heap.Fix(&f.mu.ready, int(h.index))
			continue
		}
		if at > now.UnixNano() {
			return time.Unix(0, at), Job{}, false
		}
		e := h.buf[class][0]
		h.buf[class][0] = entry{}
		h.buf[class] = h.buf[class][1:]
		// In flight before any refill, so the refill skips it.
		e.requesting = true
		h.requests++
		h.inflight = append(h.inflight, e)
		if len(h.buf[class]) == 0 && h.more[class] {
			if err := f.refillLocked(h, class, e.key); err != nil {
				// The entry stays on disk; the next start-up will load it.
				f.logger.Error("queue refill failed", "host", h.host, "err", err)
				h.more[class] = false
			}
		}
		h.notBefore = now.Add(f.gate.Interval(h.host)).UnixNano()
		f.mu.inflight++
		reserved := f.mu.budget.take(class)
		f.fixLocked(h)
		return time.Time{}, Job{URL: e.url, Reason: e.reason, Due: e.due(), Host: h.host, Class: class, key: e.key, period: f.mu.budget.start, reserved: reserved}, true
	}
	return time.Time{}, Job{}, false
}

// readyLocked computes when host h may next start a job (unix ns), and of
// which class: the earliest-due admissible head, no earlier than the
// politeness bound. ok is false if h has nothing it may hand out.
func (f *Frontier) readyLocked(h *hostQueue) (int64, repo.QueueClass, bool) {
	if h.requests >= f.gate.Capacity(h.host) {
		return 0, 0, false
	}
	var best int64
	var class repo.QueueClass
	found := false
	for c := range h.buf {
		if len(h.buf[c]) == 0 || !f.mu.budget.admits(repo.QueueClass(c)) {
			continue
		}
		head := h.buf[c][0]
		due := head.due().UnixNano()
		if f.dueAtOnce(head.enqueued) {
			due = 0
		}
		if !found || due < best {
			best, class, found = due, repo.QueueClass(c), true
		}
	}
	if !found {
		return 0, 0, false
	}
	return max(best, h.notBefore), class, true
}

// fixLocked puts h in, moves it within, or takes it out of the ready heap.
func (f *Frontier) fixLocked(h *hostQueue) {
	at, _, ok := f.readyLocked(h)
	switch {
	case !ok && h.index >= 0:
		heap.Remove(&f.mu.ready, int(h.index))
	case ok && h.index >= 0:
		h.readyAt = at
		heap.Fix(&f.mu.ready, int(h.index))
	case ok:
		h.readyAt = at
		heap.Push(&f.mu.ready, h)
	}
	if !ok && h.empty() {
		delete(f.mu.hosts, h.host)
	}
}

// refixAllLocked re-keys every host, after a budget period rolled over.
func (f *Frontier) refixAllLocked() {
	for _, h := range f.mu.hosts {
		f.fixLocked(h)
	}
	f.wakeLocked()
}

// anyReadyLocked reports whether some host skip does not report (nil
// skips none) could start an admissible entry by t.
func (f *Frontier) anyReadyLocked(t time.Time, skip func(host string) bool) bool {
	for _, h := range f.mu.hosts {
		if skip != nil && skip(h.host) {
			continue
		}
		if at, _, ok := f.readyLocked(h); ok && at <= t.UnixNano() {
			return true
		}
	}
	return false
}

// refillLocked loads the next entries of a class from disk, skipping those
// in flight (they stay on disk until their result commits). It reads from
// after last, the key of the buffer's last entry, just handed out: while
// Pebble holds more than the buffer, the buffer is the prefix of the class
// up to its last entry (insert keeps it so, taking in every published or
// deferred entry that sorts before it), so nothing waiting sorts at or
// before last. Not re-reading that prefix keeps a refill's cost from
// growing with the deletion marks of the entries already done.
func (f *Frontier) refillLocked(h *hostQueue, class repo.QueueClass, last string) error {
	h.more[class] = false
	limit := f.cfg.HostBuffer + len(h.inflight) + 1
	for {
		read, held := 0, 0
		for item, err := range f.db.QueueAfter(context.Background(), h.host, class, []byte(last), limit) {
			if err != nil {
				return err
			}
			read++
			last = string(item.Key())
			if f.Holds(item.URL) {
				held++
				h.insert(entryOf(item), f.cfg.HostBuffer)
			}
		}
		if read < limit {
			return nil
		}
		if held > 0 {
			h.more[class] = true
			return nil
		}
		// All read were entries the frontier does not hold (Options.Only):
		// an empty buffer marked as having more would never refill.
	}
}

// usageKey names the metadata record of the current period's committed
// fetches, so a restart does not grant a fresh budget.
const usageKey = "frontier.usage"

// Complete removes a job's entry from the queue and, if it was fetched,
// counts the fetch in the period's persisted usage, both inside the
// caller's batch (the one that commits the fetch result). Call Done after
// the batch committed, with DoneInfo.Unfetched as !fetched.
func (f *Frontier) Complete(b *repo.Batch, job Job, fetched bool) error {
	if err := b.Dequeue([]byte(job.key)); err != nil {
		return err
	}
	if !fetched {
		return nil
	}
	f.mu.Lock()
	u := &f.mu.usage
	if !u.start.Equal(f.mu.budget.start) {
		*u = usage{start: f.mu.budget.start}
	}
	u.byClass[job.Class]++
	v := u.encode()
	f.mu.Unlock()
	return b.PutMeta(usageKey, v)
}

func (f *Frontier) loadUsage() error {
	v, err := f.db.Meta(usageKey)
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("frontier: load usage: %w", err)
	}
	u, err := decodeUsage(v)
	if err != nil {
		return fmt.Errorf("frontier: load usage: %w", err)
	}
	if u.start.Equal(f.mu.budget.start) {
		f.mu.usage = u
		for c, n := range u.byClass {
			f.mu.budget.used += n
			f.mu.budget.byClass[c] += n
		}
	}
	return nil
}

// DoneInfo reports how a job ended.
type DoneInfo struct {
	// NotBefore pushes the host's next start later, e.g. a Crawl-delay or a
	// back-off after 429. Zero keeps the politeness interval set at Next.
	NotBefore time.Time
	// Unfetched says no request was made (robots.txt disallows the URL):
	// the fetch taken from the budget at Next is given back, as for a
	// deferred job, but not the reservation of a planned re-fetch, whose
	// entry is gone.
	Unfetched bool
}

// Done returns a job's host slot after its result (including the removal of
// its queue entry) committed.
func (f *Frontier) Done(job Job, info DoneInfo) {
	if f.monitor != nil {
		defer f.monitor.Fetched(job.URL, f.clock.Now()) // after the unlock below
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	h, _, ok := f.takeInflightLocked(job, "done for a job not in flight")
	if !ok {
		return
	}
	f.mu.queued-- // Complete's dequeue has committed
	if info.Unfetched && job.period.Equal(f.mu.budget.start) {
		f.mu.budget.giveBack(job.Class, false)
	}
	if job.Class == repo.ClassNew {
		f.mu.queuedNew--
		f.mu.fetched++
	}
	if !info.NotBefore.IsZero() {
		h.notBefore = max(h.notBefore, info.NotBefore.UnixNano())
	}
	if job.Class != repo.ClassNew {
		delete(f.mu.pending, job.URL)
	}
	if job.Class == repo.ClassDiscovery && f.discoverer != nil {
		f.discoveryDoneLocked(job.URL)
	}
	if f.cfg.Split.Adaptive {
		f.mu.split.noteLocked(job)
	}
	f.fixLocked(h)
	f.wakeLocked()
}

// Release frees a job's politeness slot once its request has ended and
// left the host's next start as it was (no back-off to record): another
// job to the host may start while this one's result commits. The job
// stays in flight, its entry on disk, until Done.
func (f *Frontier) Release(job Job) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.mu.hosts[job.Host]
	if !ok {
		return
	}
	for i := range h.inflight {
		if h.inflight[i].key == job.key {
			h.release(&h.inflight[i])
			f.fixLocked(h)
			f.wakeLocked()
			return
		}
	}
}

// Defer puts a job back without a fetch having happened (robots.txt had to
// be fetched first, or the host is backing off); it does not count against
// the budget of the period it was handed out in. The host waits until
// notBefore.
func (f *Frontier) Defer(job Job, notBefore time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, e, ok := f.takeInflightLocked(job, "defer of a job not in flight")
	if !ok {
		return
	}
	if job.period.Equal(f.mu.budget.start) {
		f.mu.budget.giveBack(job.Class, job.reserved)
	}
	if !notBefore.IsZero() {
		h.notBefore = max(h.notBefore, notBefore.UnixNano())
	}
	h.insert(e, f.cfg.HostBuffer)
	f.fixLocked(h)
	f.wakeLocked()
}

// takeInflightLocked removes job from its host's in-flight entries. A job
// that is not in flight is logged with msg and ok is false.
func (f *Frontier) takeInflightLocked(job Job, msg string) (h *hostQueue, e entry, ok bool) {
	if h, ok = f.mu.hosts[job.Host]; ok {
		e, ok = h.removeInflight(job.key)
	}
	if !ok {
		f.logger.Error(msg, "url", job.URL)
		return nil, entry{}, false
	}
	f.mu.inflight--
	return h, e, true
}

func (f *Frontier) wakeLocked() {
	close(f.mu.changed)
	f.mu.changed = make(chan struct{})
}

// Plan queues this period's re-fetches: a share frontier.split.recrawl of
// the budget chosen by the recrawl policy (synchronization, thesis ch. 4)
// and a share frontier.split.discovery chosen by the Discoverer (thesis ch.
// 3); with frontier.split.adaptive their pool is split by the gains the
// last periods' fetches measured (split.go). With frontier.spread their
// due times are spread over the period, otherwise all are due at once. It
// returns how many were queued.
func (f *Frontier) Plan(ctx context.Context) (int, error) {
	f.mu.Lock()
	now := f.clock.Now()
	if f.mu.budget.roll(now) {
		f.refixAllLocked()
	}
	quota, limit := f.mu.budget.share, f.mu.budget.limit
	f.mu.planned = true
	pending := make(map[string]struct{}, len(f.mu.pending))
	for u := range f.mu.pending {
		pending[u] = struct{}{}
	}
	f.mu.Unlock()
	// The period's quota (a cluster node's share of the cluster's budget)
	// fixes the re-crawl and discovery fetches; the adaptive split divides
	// their pool of the period's budget by its own share instead.
	nRecrawl, nDiscovery := quota[repo.ClassRecrawl], quota[repo.ClassDiscovery]
	if f.cfg.Split.Adaptive {
		var err error
		if nRecrawl, nDiscovery, err = f.adaptSplit(ctx, limit); err != nil {
			return 0, fmt.Errorf("frontier: adaptive split: %w", err)
		}
	}
	disc, err := f.planDiscovery(ctx, now, nDiscovery, pending)
	if err != nil {
		return 0, fmt.Errorf("frontier: discovery plan: %w", err)
	}
	for _, u := range disc {
		pending[u] = struct{}{}
	}
	var sync []string
	if nRecrawl > 0 {
		plan := Plan{Now: now, N: nRecrawl, Period: f.cfg.Budget.Period}
		if sync, err = f.policy.Select(ctx, plan, candidates{db: f.db, exclude: pending}); err != nil {
			return 0, fmt.Errorf("frontier: policy %s: %w", f.policy.Name(), err)
		}
	}
	if f.cfg.Split.Adaptive {
		f.mu.Lock()
		f.mu.split.plannedLocked(disc)
		f.mu.split.plannedLocked(sync)
		f.mu.Unlock()
	}
	n1, err := f.queue(ctx, disc, repo.ReasonDiscovery, now, f.cfg.Spread)
	if err != nil {
		return 0, err
	}
	n2, err := f.queue(ctx, sync, repo.ReasonRecrawl, now, f.cfg.Spread)
	return n1 + n2, err
}

// queue commits re-fetch entries for urls and publishes them, due now or,
// with spread, spread over the period.
func (f *Frontier) queue(ctx context.Context, urls []string, reason repo.Reason, now time.Time, spread bool) (int, error) {
	if len(urls) == 0 {
		return 0, nil
	}
	b := f.db.NewBatch(ctx)
	defer b.Close()
	items := make([]repo.QueueItem, 0, len(urls))
	step := time.Duration(0)
	if spread {
		step = f.cfg.Budget.Period / time.Duration(len(urls))
	}
	for i, u := range urls {
		item, err := f.Enqueue(b, u, reason, now.Add(time.Duration(i)*step))
		if err != nil {
			return 0, err
		}
		items = append(items, item)
	}
	if err := b.Commit(); err != nil {
		return 0, fmt.Errorf("frontier: queue plan: %w", err)
	}
	f.mu.Lock()
	f.mu.budget.reserve(reason.Class(), len(items))
	f.mu.Unlock()
	f.Publish(items...)
	return len(items), nil
}

// RunPlanner plans re-fetches at the start of every budget period until ctx
// ends. The evaluation harness calls Plan itself instead.
func (f *Frontier) RunPlanner(ctx context.Context) error {
	for {
		n, err := f.Plan(ctx)
		if err != nil {
			return err
		}
		f.logger.Info("recrawl planned", "n", n, "policy", f.policy.Name())
		f.mu.Lock()
		end := f.mu.budget.end()
		f.mu.Unlock()
		if err := f.clock.WaitUntil(ctx, end); err != nil {
			return err
		}
	}
}

// Stats is a snapshot of the frontier for progress reports and metrics.
type Stats struct {
	Hosts         int
	Queued        int // entries in the queue, in memory and on disk
	Buffered      [repo.NumClasses]int
	InFlight      int
	BudgetUsed    int
	BudgetLimit   int
	PeriodByClass [repo.NumClasses]int
	PeriodStart   time.Time
	PeriodEnd     time.Time // when the budget renews
}

// Stats returns a snapshot.
func (f *Frontier) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Stats{
		Hosts: len(f.mu.hosts), Queued: f.mu.queued, InFlight: f.mu.inflight,
		BudgetUsed: f.mu.budget.used, BudgetLimit: f.mu.budget.limit,
		PeriodByClass: f.mu.budget.byClass, PeriodStart: f.mu.budget.start, PeriodEnd: f.mu.budget.end(),
	}
	for _, h := range f.mu.hosts {
		for c := range h.buf {
			s.Buffered[c] += len(h.buf[c])
		}
	}
	return s
}

// candidates narrows the repository to pages a policy may choose: fetched
// at least once and not already queued for a re-fetch.
type candidates struct {
	db      *repo.DB
	exclude map[string]struct{}
}

func (c candidates) Candidates(ctx context.Context) iter.Seq2[repo.Page, error] {
	return func(yield func(repo.Page, error) bool) {
		for p, err := range c.db.Pages(ctx) {
			if err != nil {
				yield(repo.Page{}, err)
				return
			}
			if p.Fetches == 0 || p.State == repo.StateQueued {
				continue
			}
			if _, ok := c.exclude[p.URL]; ok {
				continue
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

func (c candidates) FetchLog(ctx context.Context, url string) ([]repo.FetchRecord, error) {
	return c.db.FetchLog(ctx, url)
}

func (c candidates) DeltaQs(ctx context.Context, url string) ([]repo.DeltaQ, error) {
	return c.db.DeltaQs(ctx, url)
}

// RoundOver reports whether a round of a crawl that commits in rounds
// (crawler.RunOptions.Rounds) is over: every job handed out has its
// result with the caller (delivered counts them) or was put back, and no
// queued entry may start now, so nothing more joins the round until its
// results commit. changed is closed at the frontier's next change, when
// the answer may differ.
func (f *Frontier) RoundOver(delivered int) (over bool, changed <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mu.inflight == delivered && !f.anyReadyLocked(f.clock.Now(), nil), f.mu.changed
}

// CompareJobs orders jobs as their queue entries are ordered (host,
// class, due time, then the order they were queued in): an order that
// depends on what was queued and in which order, not on when the jobs'
// fetches ended.
func CompareJobs(a, b Job) int { return strings.Compare(a.key, b.key) }
