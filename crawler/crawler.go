package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Options are the non-configuration inputs of New.
type Options struct {
	Clock  clock.Clock // nil means the wall clock
	Logger *slog.Logger
	// OnCommit is called after each committed batch that appended to the
	// change feed, so the index can follow without polling.
	OnCommit func()
	// OnYield is called after commit with what each fetch revealed of new
	// pages, N(x) of the old page x it is attributed to (thesis §3.2): every
	// re-fetch of an old page (an empty list is an observation too), and
	// every first fetch of a new page that found more, credited to the old
	// page at the root of its chain. discovery.Stats.Record takes it.
	OnYield func(x string, y repo.DiscoveryYield)
	// Dial, when set, opens every connection in place of the network: an
	// in-process network such as the one the politeness tests run inside a
	// testing/synctest bubble. crawler.resolve still maps the address; the
	// guard against non-public addresses applies to the network only.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Route, if set, says whether this crawler fetches a URL's host: a
	// node of a cluster owns the hosts of some shards (package cluster).
	// A URL found here and routed elsewhere is not admitted but handed to
	// Handoff once the batch that found it commits (Admit does not route
	// again); a queued job routed elsewhere is put back for RouteWait and
	// not fetched.
	Route     func(url string) bool
	Handoff   func(Handoff)
	RouteWait time.Duration
	// HandOwn sends every URL new to this crawler to Handoff, those of its
	// own hosts too, so that only Admit queues: a cluster node records its
	// queue in the cluster that way, where another node finds it if this
	// one dies. It needs Route.
	HandOwn bool
	// OnFetched is called after commit with the URLs whose fetches the
	// batch recorded.
	OnFetched func(urls []string)
}

// Crawler fetches what the frontier hands out and commits every result to
// the repository. Create one with New, build the frontier with its Gate,
// then Seed and Run.
type Crawler struct {
	cfg      Config
	db       *repo.DB
	clock    clock.Clock
	logger   *slog.Logger
	fetch    *fetcher
	robots   *fetcher // follows redirects, as RFC 9309 asks for robots.txt
	hosts    *hostCache
	gate     *politeness
	onCommit func()
	onYield  func(string, repo.DiscoveryYield)
	counters Counters
	// reach follows which hosts answer, across runs (noteReach); runs
	// numbers the runs, whose own notes (runNotes) their summaries read.
	reach hostReach
	runs  atomic.Uint64
	scope *scope
	// robotsWaits doubles the deferral of a host whose robots.txt fails
	// again (robotsBackoff).
	robotsWaits robotsBackoff

	// A cluster node's routing (Options.Route).
	route     func(string) bool
	handoff   func(Handoff)
	routeWait time.Duration
	handOwn   bool
	onFetched func([]string)
	// commitMu makes the writer and Admit, the two committers of a Run,
	// take turns, so each sees the other's admissions.
	commitMu sync.Mutex
}

// New builds a crawler over db.
func New(cfg Config, db *repo.DB, opts Options) (*Crawler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := newDialer(cfg)
	if err != nil {
		return nil, err
	}
	d.through = opts.Dial
	c := &Crawler{cfg: cfg, db: db, clock: opts.Clock, logger: opts.Logger, onCommit: opts.OnCommit, onYield: opts.OnYield}
	c.route, c.handoff, c.routeWait = opts.Route, opts.Handoff, opts.RouteWait
	c.handOwn, c.onFetched = opts.HandOwn, opts.OnFetched
	if (c.route == nil) != (c.handoff == nil) || c.route != nil && c.routeWait <= 0 || c.handOwn && c.route == nil {
		return nil, errors.New("crawler: Options.Route, Handoff and a positive RouteWait go together, and HandOwn needs them")
	}
	if c.clock == nil {
		c.clock = clock.Real{}
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.logger = c.logger.With("component", "crawler")
	transport := newTransport(cfg, d)
	c.fetch = newFetcher(cfg, transport, c.clock, false)
	c.robots = newFetcher(cfg, transport, c.clock, true)
	c.hosts = newHostCache(db, cfg.UserAgent, cfg.Robots.MaxCapacity)
	c.gate = newPoliteness(cfg.Politeness, c.hosts)
	if c.scope, err = loadScope(db, cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// Gate is the politeness the frontier must respect for this crawler.
func (c *Crawler) Gate() frontier.Gate { return c.gate }

// Counters returns the crawler's live counters.
func (c *Crawler) Counters() *Counters { return &c.counters }

// SeedError is a start URL Seed refuses, with why.
type SeedError struct {
	URL string
	Err error
}

func (e *SeedError) Error() string {
	return fmt.Sprintf("crawler: seed %s: %v", urlnorm.Quote(e.URL), e.Err)
}
func (e *SeedError) Unwrap() error { return e.Err }

// Seed admits start URLs: each URL not yet known is recorded and queued,
// its host added to the crawl's scope. It returns how many were new. A
// URL that cannot be crawled is a *SeedError, and then none is admitted.
// It may run beside Run: a running crawl takes the new seeds in turn.
func (c *Crawler) Seed(ctx context.Context, f *frontier.Frontier, urls []string) (int, error) {
	norm, err := NormalizeSeeds(urls)
	if err != nil {
		return 0, err
	}
	seeds := make([]admission, 0, len(norm))
	for _, u := range norm {
		seeds = append(seeds, admission{src: &repo.Page{Depth: -1}, url: u, reason: repo.ReasonSeed})
	}
	return c.admitAll(ctx, f, "seed", false, seeds,
		func(b *repo.Batch) error { return c.scope.addSeeds(b, norm) },
		func() { c.scope.publish(norm) })
}

// NormalizeSeeds returns urls normalized as Seed admits them, or a
// *SeedError for the first that is not a URL the crawler can fetch: a
// caller can refuse bad seeds before it opens or creates anything. Seeds
// are given, not found in pages (urlnorm.NormalizeGiven): one holding a
// control character is refused, not taken for the URL without it. One
// with port 0 is refused too: nothing can be fetched there, and it would
// stay queued, unreachable, run after run.
func NormalizeSeeds(urls []string) ([]string, error) {
	norm := make([]string, 0, len(urls))
	for _, raw := range urls {
		u, err := urlnorm.NormalizeGiven(raw)
		if err != nil {
			return nil, &SeedError{URL: raw, Err: err}
		}
		if _, port, err := net.SplitHostPort(urlnorm.Host(u)); err == nil && port == "0" {
			return nil, &SeedError{URL: raw, Err: errors.New("port 0: no server can be reached there; give the site's port, or none for the scheme's default")}
		}
		norm = append(norm, u)
	}
	return norm, nil
}

// RunOptions say when Run stops.
type RunOptions struct {
	// Drain stops the crawl when nothing is in flight and nothing queued
	// could be fetched within DrainHorizon (a one-pass crawl). Without it
	// Run continues until ctx ends, waiting for new work.
	Drain        bool
	DrainHorizon time.Duration
	// MaxPages stops the crawl once this many page fetches have committed,
	// starting no more than that (robots.txt fetches aside); 0 means no
	// limit.
	MaxPages int
	// Progress, if set, receives a progress line every ProgressEvery.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Rounds commits page results a round at a time, in queue order
	// (frontier.CompareJobs), so that what the crawl admits and credits
	// does not depend on the order fetches end (see the package doc).
	// A round ends when every job handed out has its result and nothing
	// queued may start; a result waits for its round's end before it
	// commits, so MaxPages may be passed by up to a round.
	Rounds bool
}

// Run crawls until the frontier drains (RunOptions.Drain), MaxPages is
// reached, or ctx ends. It returns a summary of what it did. A cancelled
// ctx is not an error: work in flight is put back in the queue and what was
// already fetched is committed.
func (c *Crawler) Run(ctx context.Context, f *frontier.Frontier, ro RunOptions) (Summary, error) {
	start := c.clock.Now()
	before := c.counters.Snapshot()
	notes := &runNotes{seq: c.runs.Add(1)}
	// nextCtx stops workers from taking new jobs (MaxPages reached); ctx
	// also aborts the fetches in flight.
	nextCtx, stopTaking := context.WithCancel(ctx)
	defer stopTaking()
	results := make(chan *result, c.cfg.Politeness.Global)
	w := c.newWriter(context.WithoutCancel(ctx), f)
	var committed atomic.Int64
	w.onPage = func() {
		if n := committed.Add(1); ro.MaxPages > 0 && n >= int64(ro.MaxPages) {
			stopTaking()
		}
	}
	slots := &pageSlots{limit: int64(ro.MaxPages)}

	g, gctx := errgroup.WithContext(ctx)
	var workers sync.WaitGroup
	for range c.cfg.Politeness.Global {
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			return c.work(nextCtx, gctx, notes, f, results, slots, frontier.NextOptions{Drain: ro.Drain, Horizon: ro.DrainHorizon})
		})
	}
	g.Go(func() error {
		workers.Wait()
		close(results)
		return nil
	})
	g.Go(func() error {
		if ro.Rounds {
			return w.runRounds(results)
		}
		return w.run(results)
	})
	stopProgress := c.startProgress(f, ro, start, before)
	err := g.Wait()
	stopProgress()
	sum := c.summary(start, before)
	sum.Refused, sum.RefusedMore = notes.refused.snapshot()
	sum.Unreachable, sum.UnreachableMore = c.reach.unreachable(notes.seq)
	sum.StaleRobots, sum.StaleRobotsMore = notes.stale.snapshot()
	if err != nil && !errors.Is(err, context.Canceled) {
		return sum, err
	}
	if !ro.Drain {
		// A long-running crawl stops on a signal; its queue is whatever is
		// left, and scanning it all would hold up the shutdown.
		sum.Queued = f.Stats().Queued
		return sum, nil
	}
	stopped := ctx.Err() != nil || nextCtx.Err() != nil
	var qerr error
	sum.Queued, sum.Left, qerr = c.leftQueued(context.WithoutCancel(ctx), f, ro.DrainHorizon, stopped)
	return sum, qerr
}

// pageSlots bounds the page jobs under way or done to RunOptions.MaxPages
// (0: no bound), so that a run fetches MaxPages pages and not MaxPages
// plus those in flight when the last committed. A job that ends without a
// page fetched (deferred, a robots.txt fetch, disallowed, cut short) gives
// its slot back.
type pageSlots struct {
	limit int64
	taken atomic.Int64
}

func (s *pageSlots) take() bool {
	if s.limit <= 0 {
		return true
	}
	if s.taken.Add(1) > s.limit {
		s.taken.Add(-1)
		return false
	}
	return true
}

func (s *pageSlots) giveBack() {
	if s.limit > 0 {
		s.taken.Add(-1)
	}
}

// work takes jobs until told to stop.
func (c *Crawler) work(nextCtx, ctx context.Context, notes *runNotes, f *frontier.Frontier, out chan<- *result, slots *pageSlots, next frontier.NextOptions) error {
	for {
		if !slots.take() {
			return nil // MaxPages: the rest are under way or done
		}
		job, err := f.Next(nextCtx, next)
		if err == nil && nextCtx.Err() != nil {
			// Told to stop as this job was handed out: it goes back to the
			// queue unfetched, or the frontier would count it in flight
			// for ever and the next run on it would never drain.
			f.Defer(job, time.Time{})
			return nil
		}
		if errors.Is(err, frontier.ErrDrained) || nextCtx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		r, err := c.handle(ctx, notes, f, job)
		if err != nil {
			f.Defer(job, time.Time{})
			return err
		}
		if r == nil {
			slots.giveBack()
			continue // deferred
		}
		if ctx.Err() != nil && r.job != nil {
			// Shutting down: this fetch was cut short; it goes back to the
			// queue rather than into the record as a timeout.
			f.Defer(*r.job, time.Time{})
			return nil
		}
		if ctx.Err() != nil && r.res.err != nil {
			// A robots.txt fetch cut short by the stop says nothing of the
			// host: recorded, it would defer the host in the next run as a
			// failed robots.txt does. The next run asks again.
			return nil
		}
		if r.job == nil || r.res.outcome == repo.OutcomeDisallowed {
			// A robots.txt fetch (the job waits for its turn), or a page
			// robots.txt disallows: neither is a page fetched.
			slots.giveBack()
		}
		if r.job != nil && r.res.outcome != repo.OutcomeThrottled {
			// The request is over: its host slot need not wait for the
			// commit. A 429's back-off is only known after it, so that
			// slot is held until Done brings it.
			f.Release(*r.job)
		}
		out <- r
	}
}
