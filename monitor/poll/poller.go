package poll

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// Options are a Poller's collaborators. Feeds and Watches may be nil: then
// that kind of demand does not exist.
type Options struct {
	Feeds       *feeds.Store
	FeedsConfig feeds.Config
	Watches     *watch.Engine
	Clock       clock.Clock  // nil is the wall clock
	Logger      *slog.Logger // nil discards
	// Fired is called after ingestion queued notifications (to wake the
	// delivery service); nil for none.
	Fired func()
	// Seed seeds the clustering of the feeds' daily patterns
	// (feeds.PlanAll): `deltaq feeds explain` with the same seed shows this
	// poller's plan.
	Seed uint64
}

// Poller is the frontier's Monitor: every feed polled at its planned times
// (feeds.PlanAll), then WIC over every watch's demand, in instants of
// monitor.instant. It is safe for concurrent use.
type Poller struct {
	db       *repo.DB
	cfg      monitor.Config
	feeds    *feeds.Store
	feedsCfg feeds.Config
	watches  *watch.Engine
	clock    clock.Clock
	logger   *slog.Logger
	fired    func()
	seed     uint64
	wake     chan struct{}
	// installsRead and editsRead are the watches' Installs and the feeds'
	// Edits as of the last read of the demands.
	installsRead, editsRead atomic.Uint64
	// maxRedirects bounds the redirects a watched page's check follows in
	// a row (LimitRedirects).
	maxRedirects atomic.Int64

	mu struct {
		sync.Mutex
		sched *monitor.Scheduler
		at    time.Time // start of the scheduler's current instant
		d     *demands
		ids   map[string]monitor.DemandID // by demand key
		plan  *plan
		// lastFetch is each monitored URL's last fetch seen by Fetched,
		// which the stores may not show until Ingest.
		lastFetch map[string]time.Time
		// fetched holds the monitored URLs fetched since the last Ingest:
		// at most one entry per monitored URL.
		fetched map[string]time.Time
		// awaited holds, per target of a feed's temporary redirect the
		// crawler has not fetched since the feed's poll
		// (feeds.Update.Awaits), the feeds that read it once fetched:
		// Pick asks for it, and Ingest hands its fetch to them.
		awaited waits
		// awaitedChecks is awaited for watches: per redirect target a
		// watched page's check waits for (watchredirect.go), the watched
		// URLs checked again once it is fetched.
		awaitedChecks waits
		// checkSince is, per watched URL whose check awaits targets,
		// when the fetch that found its redirect was made: the targets'
		// copies must be as new (throughRedirects).
		checkSince map[string]time.Time
	}
	stats struct {
		picked, ingested, newItems, fired, failed atomic.Int64
	}
}

// New reads every feed and watch from the stores, plans the feeds and
// rebuilds WIC's state from the repository, so that a restart goes on where
// the last run stopped: a feed whose last planned poll came after its last
// fetch is due at once, and each watched URL's g is replayed from its last
// fetch (at most monitor.max_lookback instants back).
func New(ctx context.Context, db *repo.DB, cfg monitor.Config, opts Options) (*Poller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Feeds != nil {
		if err := opts.FeedsConfig.Validate(); err != nil {
			return nil, err
		}
	}
	p := &Poller{db: db, cfg: cfg, feeds: opts.Feeds, feedsCfg: opts.FeedsConfig, watches: opts.Watches,
		clock: opts.Clock, logger: opts.Logger, fired: opts.Fired, seed: opts.Seed, wake: make(chan struct{}, 1)}
	p.maxRedirects.Store(feeds.DefaultMaxRedirects)
	if p.clock == nil {
		p.clock = clock.Real{}
	}
	if p.logger == nil {
		p.logger = slog.New(slog.DiscardHandler)
	}
	p.logger = p.logger.With("component", "poll")
	now := p.clock.Now()
	d, err := p.read(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.rebuild(d, now); err != nil {
		return nil, err
	}
	pl, err := p.makePlan(ctx, d, now)
	if err != nil {
		return nil, err
	}
	pl.owe(func(u string) time.Time { return d.seen[u] })
	p.mu.plan = pl
	// A fetch committed but not yet ingested when the last run ended
	// (kill -9 between the two) is ingested by the first Ingest: feeds
	// absorb only what is newer than their last poll, and a watch whose
	// kept copy matches stops at its MD5. A watched page's check that
	// waited for its redirect's targets judges them against the redirect's
	// first sighting again.
	maps.Copy(p.mu.fetched, d.crawled)
	since, err := p.loadWaits(ctx, d.groups)
	if err != nil {
		return nil, err
	}
	maps.Copy(p.mu.checkSince, since)
	p.logger.Info("monitoring demands loaded", "feeds", len(d.feeds), "watch_demands", len(d.byKey), "urls", p.Watched())
	return p, nil
}

// rebuild starts WIC over d at the instant containing now, replaying the
// instants since the oldest last fetch so each URL's g is what continuous
// running would have left.
func (p *Poller) rebuild(d *demands, now time.Time) error {
	sched, err := monitor.NewScheduler(p.cfg.MaxLookback)
	if err != nil {
		return err
	}
	inst := p.cfg.Instant
	cur := now.Truncate(inst)
	// Replay from the oldest last fetch (a URL never fetched: the whole
	// lookback), so that every URL's prev falls inside the replay.
	replay := 0
	for _, t := range d.seen {
		if t.IsZero() {
			replay = p.cfg.MaxLookback
			break
		}
		replay = max(replay, int(cur.Sub(t.Truncate(inst))/inst))
	}
	replay = min(replay, p.cfg.MaxLookback)
	ids := make(map[string]monitor.DemandID, len(d.byKey))
	for _, k := range slices.Sorted(maps.Keys(d.byKey)) {
		if ids[k], err = sched.Add(d.byKey[k]); err != nil {
			return fmt.Errorf("poll: demand %s: %w", k, err)
		}
	}
	// URLs in order of their last fetch, to reset each as the replay
	// passes it.
	type last struct {
		url string
		at  time.Time
	}
	var order []last
	for u, t := range d.seen {
		order = append(order, last{u, t})
	}
	slices.SortFunc(order, func(a, b last) int { return a.at.Compare(b.at) })
	at := cur.Add(-time.Duration(replay) * inst)
	for len(order) > 0 && order[0].at.Before(at.Add(inst)) {
		order = order[1:] // fetched before the replay starts: they start at its start
	}
	for range replay {
		at = at.Add(inst)
		sched.Advance(pagesOnly)
		for len(order) > 0 && order[0].at.Before(at.Add(inst)) {
			sched.Fetched(order[0].url)
			order = order[1:]
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.sched, p.mu.at, p.mu.d, p.mu.ids = sched, at, d, ids
	if p.mu.fetched == nil {
		p.mu.fetched = map[string]time.Time{}
		p.mu.lastFetch = map[string]time.Time{}
		p.mu.awaited = waits{}
		p.mu.awaitedChecks = waits{}
		p.mu.checkSince = map[string]time.Time{}
	}
	return nil
}

// Refresh reads the demands again: new installs join from the current
// instant on, removed ones leave. The feeds are planned anew when the feed
// set changed (a subscription added or removed, a weight or bound changed)
// or the plan is monitor.replan old.
func (p *Poller) Refresh(ctx context.Context) error {
	now := p.clock.Now()
	d, err := p.read(ctx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	old := p.mu.plan
	p.mu.Unlock()
	var pl *plan
	if feedSet(d.feeds) != old.set || now.Sub(old.at) >= p.cfg.Replan {
		// Planning learns over every feed's history: outside the lock, so
		// picks and fetches go on meanwhile.
		if pl, err = p.makePlan(ctx, d, now); err != nil {
			return err
		}
		p.logger.Info("feeds planned", "feeds", len(d.feeds), "at", now)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl != nil {
		// What is owed is settled under the lock, so a fetch made while
		// planning serves the new plan too.
		pl.owe(func(u string) time.Time { return clock.Later(d.seen[u], p.mu.lastFetch[u]) })
		p.mu.plan = pl
	}
	for k, id := range p.mu.ids {
		if _, ok := d.byKey[k]; !ok {
			if err := p.mu.sched.Remove(id); err != nil {
				return fmt.Errorf("poll: demand %s: %w", k, err)
			}
			delete(p.mu.ids, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d.byKey)) {
		if _, ok := p.mu.ids[k]; ok {
			continue
		}
		if p.mu.ids[k], err = p.mu.sched.Add(d.byKey[k]); err != nil {
			return fmt.Errorf("poll: demand %s: %w", k, err)
		}
	}
	var ended []string
	for u := range p.mu.checkSince {
		if len(d.groups[u]) == 0 {
			delete(p.mu.checkSince, u) // no longer watched: its wait ends with it
			ended = append(ended, u)
		}
	}
	p.mu.d = d
	return p.endWaits(ctx, ended...)
}

// advanceLocked moves WIC to the instant containing now, folding each
// instant's π in. After a pause longer than monitor.max_lookback instants
// only the last max_lookback are folded in: older π would be dropped.
func (p *Poller) advanceLocked(now time.Time) {
	inst := p.cfg.Instant
	cur := now.Truncate(inst)
	if skip := cur.Add(-time.Duration(p.cfg.MaxLookback) * inst); p.mu.at.Before(skip) {
		p.mu.at = skip
	}
	for p.mu.at.Before(cur) {
		p.mu.at = p.mu.at.Add(inst)
		p.mu.sched.Advance(pagesOnly)
	}
}

// Pick implements frontier.Monitor: up to n URLs not skipped. First the
// feed URLs with a planned poll due by now, the longest overdue first:
// the plan already weighs every feed (Combined's w·λ·delay), so a poll
// owed longest is the one the plan wanted earliest, and a slow feed's
// rare planned poll cannot be outranked by a fast feed's next ones, as
// pending postings (w·λ·elapsed) would outrank it. Then watched URLs by
// summed utility (WIC's greedy choice), each worth at least
// monitor.min_utility.
func (p *Poller) Pick(_ context.Context, now time.Time, n int, skip func(url string) bool) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.advanceLocked(now)
	var out []string
	picked := map[string]bool{}
	for _, u := range p.mu.plan.overdue(now) {
		if len(out) == n {
			break
		}
		if !skip(u) {
			out = append(out, u)
			picked[u] = true
			p.logger.Debug("poll picked", "url", u, "planned", p.mu.plan.due[u][0])
		}
	}
	// Then the targets of redirects feeds and watches wait for: the poll
	// that found the redirect is not done until the target is read.
	for _, u := range p.awaitedTargetsLocked() {
		if len(out) == n {
			break
		}
		if !picked[u] && !skip(u) {
			out = append(out, u)
			picked[u] = true
			p.logger.Debug("poll picked", "url", u, "awaited_by", slices.Concat(p.mu.awaited[u], p.mu.awaitedChecks[u]))
		}
	}
	s := p.mu.sched
	for _, c := range s.Pick(n-len(out), func(u string) bool { return !picked[u] && s.Utility(u) >= p.cfg.MinUtility && !skip(u) }) {
		out = append(out, c.URL)
		p.logger.Debug("poll picked", "url", c.URL, "utility", c.Utility)
	}
	p.stats.picked.Add(int64(len(out)))
	return out, nil
}

// Fetched implements frontier.Monitor: a fetch of a monitored URL, for
// whatever reason, resets its demands and queues it for Ingest.
func (p *Poller) Fetched(url string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.monitoredLocked(url) {
		if p.awaitedLocked(url) {
			p.mu.fetched[url] = at
			p.wakeLocked()
		}
		return
	}
	p.advanceLocked(at) // the fetch resets the demands at its own instant
	p.mu.sched.Fetched(url)
	p.mu.plan.served(url, at)
	p.mu.lastFetch[url] = clock.Later(p.mu.lastFetch[url], at)
	p.mu.fetched[url] = at
	p.wakeLocked()
}

// wakeLocked wakes Run to ingest.
func (p *Poller) wakeLocked() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Watched implements frontier.Monitor: the monitored URLs (feeds and
// watches).
func (p *Poller) Watched() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.urlsLocked()
}

func (p *Poller) urlsLocked() int {
	n := len(p.mu.d.groups)
	for u := range p.mu.d.feedIDs {
		if len(p.mu.d.groups[u]) == 0 {
			n++
		}
	}
	for _, u := range p.awaitedTargetsLocked() {
		if !p.monitoredLocked(u) {
			n++
		}
	}
	return n
}

// Plans returns the feeds' current plan: what `deltaq feeds explain`
// shows (feeds.PlanAll with the same seed) as of the plan's making.
func (p *Poller) Plans() []feeds.Planned {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.mu.plan.byFeed)
}

// Due returns the planned polls feed URL url is still owed, oldest first.
func (p *Poller) Due(url string) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.mu.plan.due[url])
}

func (p *Poller) monitoredLocked(url string) bool {
	d := p.mu.d
	return len(d.feedIDs[url]) > 0 || len(d.groups[url]) > 0
}

// Utility is url's summed utility g(prev, j) at the current instant.
func (p *Poller) Utility(url string) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.advanceLocked(p.clock.Now())
	return p.mu.sched.Utility(url)
}

// Ingested is what one Ingest did.
type Ingested struct {
	URLs     int // monitored URLs whose fetch was read
	NewItems int // feed items seen for the first time
	Fired    int // sentinel triggers that held
	Failed   int // feeds or checks that could not use the fetch (logged)
	// Awaited counts the feeds whose URL answered a temporary redirect,
	// and the watched URLs that answered a redirect, to a target not
	// fetched since: Pick asks for the target, and the next Ingest after
	// its fetch hands it to them.
	Awaited int
	// Moved counts the feeds a permanent redirect moved to a new URL
	// (logged; feeds.Update.Moves): the demands are read again at the
	// next instant, and the feed is polled at its new URL from then on.
	Moved int
}

// Ingest hands every monitored URL the crawler fetched since the last call
// to its feeds (feeds.Store.Absorb: the same path `deltaq feeds poll`
// takes) and its watch groups (watch.Engine.CheckFetched, on the copy the
// crawler stored, through the redirects the URL answered:
// watchredirect.go), and a redirect target fetched to the feeds and
// watched URLs that awaited it. A feed that does not parse or a page that
// cannot be checked is logged and counted; repository errors end the call.
func (p *Poller) Ingest(ctx context.Context) (Ingested, error) {
	p.mu.Lock()
	fetched := p.mu.fetched
	p.mu.fetched = map[string]time.Time{}
	d := p.mu.d
	feedsAwaiting := p.mu.awaited.take(fetched)
	checksAwaiting := p.mu.awaitedChecks.take(fetched)
	p.mu.Unlock()
	var in Ingested
	// The watched URLs to check: those fetched, and those whose check
	// awaited a target fetched; each once, however many of its chain's
	// pages were fetched.
	check := map[string]bool{}
	for _, u := range slices.SortedFunc(maps.Keys(fetched), cmp.Compare[string]) {
		if err := ctx.Err(); err != nil {
			return in, err
		}
		in.URLs++
		ids := d.feedIDs[u]
		for _, id := range feedsAwaiting[u] {
			if !slices.Contains(ids, id) {
				ids = append(slices.Clip(ids), id)
			}
		}
		for _, id := range ids {
			up, _, err := p.feeds.Absorb(ctx, id)
			if err != nil {
				in.Failed++
				p.logger.Warn("feed poll not absorbed", "url", u, "err", err)
			}
			in.NewItems += len(up.New)
			for _, m := range up.Moves {
				in.Moved++
				p.logger.Info("feed moved by a permanent redirect", "id", id, "from", m.From, "to", m.To, "status", m.Status)
			}
			if up.Awaits != "" {
				in.Awaited++
				p.await(up.Awaits, id)
				p.logger.Debug("feed awaits the target of a temporary redirect", "id", id, "from", u, "target", up.Awaits)
			}
		}
		for _, w := range append([]string{u}, checksAwaiting[u]...) {
			if len(d.groups[w]) > 0 {
				check[w] = true
			}
		}
	}
	for _, u := range slices.Sorted(maps.Keys(check)) {
		if err := ctx.Err(); err != nil {
			return in, err
		}
		if err := p.check(ctx, u, d.groups[u], &in); err != nil {
			return in, err
		}
	}
	p.stats.ingested.Add(int64(in.URLs))
	p.stats.newItems.Add(int64(in.NewItems))
	p.stats.fired.Add(int64(in.Fired))
	p.stats.failed.Add(int64(in.Failed))
	if in.Fired > 0 && p.fired != nil {
		p.fired()
	}
	return in, nil
}

// check runs watch groups on watched URL u over the crawler's copy
// (stored), or has them wait for the redirect target the copy is behind.
func (p *Poller) check(ctx context.Context, u string, groups []string, in *Ingested) error {
	p.mu.Lock()
	since := p.mu.checkSince[u]
	p.mu.Unlock()
	c, err := p.stored(ctx, u, since)
	if err != nil {
		return err
	}
	if len(c.awaits) > 0 {
		in.Awaited++
		p.logger.Debug("watched page awaits the targets of its redirects", "url", u, "targets", c.awaits)
		if p.awaitCheck(c.awaits, u, c.seen) {
			return p.keepWait(ctx, u, c.seen)
		}
		return nil
	}
	for _, key := range groups {
		var res watch.CheckResult
		var err error
		if c.failure != nil {
			err = p.watches.FetchFailed(ctx, key, c.failure)
		} else if c.page != nil {
			res, err = p.watches.CheckFetched(ctx, key, *c.page)
		}
		if err != nil {
			in.Failed++
			p.logger.Warn("watch check failed", "url", u, "err", err)
		}
		in.Fired += res.Fired
	}
	if since.IsZero() {
		return nil
	}
	p.mu.Lock()
	delete(p.mu.checkSince, u)
	p.mu.Unlock()
	return p.endWaits(ctx, u)
}

// waits is, per redirect target the crawler has not fetched since the
// poll that found the redirect, who reads its next fetch (feed ids, or
// watched URLs): one entry per target and reader.
type waits map[string][]string

func (w waits) add(target, who string) {
	if !slices.Contains(w[target], who) {
		w[target] = append(w[target], who)
	}
}

// take removes the targets fetched and returns who waited for them.
func (w waits) take(fetched map[string]time.Time) waits {
	out := waits{}
	for u := range fetched {
		if who := w[u]; len(who) > 0 {
			out[u] = who
			delete(w, u)
		}
	}
	return out
}

// await has feed id wait for the crawler's next fetch of target.
func (p *Poller) await(target, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.awaited.add(target, id)
}

// awaitCheck has the watches on URL u wait for the crawler's next fetch
// of targets, pages u's redirects lead to; seen is when the redirect was
// first seen, kept until the wait ends. It reports whether seen is new,
// to be kept in the repository (keepWait).
func (p *Poller) awaitCheck(targets []string, u string, seen time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range targets {
		p.mu.awaitedChecks.add(t, u)
	}
	if p.mu.checkSince[u].Equal(seen) {
		return false
	}
	p.mu.checkSince[u] = seen
	return true
}

// awaitedLocked reports whether a feed or a watched URL waits for url.
func (p *Poller) awaitedLocked(url string) bool {
	return len(p.mu.awaited[url]) > 0 || len(p.mu.awaitedChecks[url]) > 0
}

// awaitedTargetsLocked is every URL a feed or watched URL waits for, in
// order.
func (p *Poller) awaitedTargetsLocked() []string {
	all := slices.Concat(slices.Collect(maps.Keys(p.mu.awaited)), slices.Collect(maps.Keys(p.mu.awaitedChecks)))
	slices.Sort(all)
	return slices.Compact(all)
}

// storedCopy is what the crawler's last fetch of a watched URL gives its
// watches: the copy to check, why there is none (failure, for the
// watches' histories), or the redirect targets to fetch first (awaits,
// their copies to be as new as seen). All zero: no copy yet.
type storedCopy struct {
	page    *watch.Fetched
	failure error
	awaits  []string
	seen    time.Time
}

// stored is the copy of u the crawler keeps, if its last fetch reached the
// page (an answer, changed or not); if u answered a redirect, the copy of
// the page its redirects lead to (throughRedirects, since the redirect
// was seen at since, if not zero, or later). If the fetch did not
// reach it (an error status, no answer, robots.txt, a redirect not
// followed), failure says why; a page the repository no longer holds, or
// with no copy yet, gives neither.
func (p *Poller) stored(ctx context.Context, u string, since time.Time) (storedCopy, error) {
	pg, err := p.db.Page(u)
	if errors.Is(err, repo.ErrNotFound) {
		return storedCopy{}, nil
	}
	if err != nil {
		return storedCopy{}, fmt.Errorf("poll: page %s: %w", u, err)
	}
	if pg.LastOutcome == repo.OutcomeRedirect {
		end, c, err := p.throughRedirects(pg, since)
		if err != nil || c.failure != nil || len(c.awaits) > 0 {
			return c, err
		}
		pg = end
	}
	switch {
	case pg.LastOutcome != repo.OutcomeOK && pg.LastOutcome != repo.OutcomeNotModified:
		p.logger.Debug("no copy to check", "url", u, "fetched", pg.URL, "outcome", pg.LastOutcome)
		failure := crawlFailure(pg)
		if pg.URL != u {
			failure = fmt.Errorf("%w (watched page %s redirects there)", failure, u)
		}
		return storedCopy{failure: failure}, nil
	case pg.Version.IsZero():
		return storedCopy{}, nil
	}
	v, err := p.db.LatestVersion(ctx, pg.URL)
	if err != nil {
		return storedCopy{}, fmt.Errorf("poll: copy of %s: %w", pg.URL, err)
	}
	return storedCopy{page: &watch.Fetched{Status: 200, ContentType: v.ContentType, Body: v.Body}}, nil
}

// crawlFailure says why the crawler's last fetch of pg, not a redirect,
// brought no copy: an answer's status as the watches' own fetches report
// it, else the outcome.
func crawlFailure(pg repo.Page) error {
	if pg.HTTPStatus >= 300 {
		return &watch.StatusError{URL: pg.URL, Status: pg.HTTPStatus}
	}
	return fmt.Errorf("poll: crawler fetch of %s: %s", pg.URL, pg.LastOutcome)
}

// edited reports whether watches or feeds changed since the demands were
// last read.
func (p *Poller) edited() bool {
	return p.watches != nil && p.watches.Installs() != p.installsRead.Load() ||
		p.feeds != nil && p.feeds.Edits() != p.editsRead.Load()
}

// Run ingests fetches as they complete and refreshes the demands (and
// sends due watch digests) every monitor.refresh, until ctx ends. Watches
// installed or removed and feeds subscribed, changed or removed meanwhile
// (through the API, in this process) are read again at the next instant,
// not the next refresh.
func (p *Poller) Run(ctx context.Context) error {
	next := p.clock.Now().Add(p.cfg.Refresh)
	for {
		if _, err := p.Ingest(ctx); err != nil {
			return err
		}
		now := p.clock.Now()
		if p.edited() || !now.Before(next) {
			next = now.Add(p.cfg.Refresh)
			if err := p.Refresh(ctx); err != nil {
				return err
			}
			if p.watches != nil {
				if n, err := p.watches.FlushDigests(ctx); err != nil {
					return err
				} else if n > 0 && p.fired != nil {
					p.fired()
				}
			}
		}
		until := next
		if p.watches != nil || p.feeds != nil {
			until = clock.Earlier(next, now.Add(p.cfg.Instant))
		}
		wctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-p.wake:
				cancel()
			case <-wctx.Done():
			}
		}()
		// Woken by the clock or early by a fetch: either way, look again.
		if err := p.clock.WaitUntil(wctx, until); err != nil && ctx.Err() != nil {
			cancel()
			return ctx.Err()
		}
		cancel()
	}
}

// Stats are counters since New.
type Stats struct {
	Demands, URLs                             int
	Picked, Ingested, NewItems, Fired, Failed int64
}

// Stats returns the counters.
func (p *Poller) Stats() Stats {
	p.mu.Lock()
	s := Stats{Demands: len(p.mu.ids) + len(p.mu.d.feeds), URLs: p.urlsLocked()}
	p.mu.Unlock()
	s.Picked, s.Ingested, s.NewItems = p.stats.picked.Load(), p.stats.ingested.Load(), p.stats.newItems.Load()
	s.Fired, s.Failed = p.stats.fired.Load(), p.stats.failed.Load()
	return s
}
