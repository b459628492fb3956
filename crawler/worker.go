package crawler

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/crawler/robots"
	"github.com/deltaq/deltaq/crawler/shingle"
	"github.com/deltaq/deltaq/crawler/sitemap"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// result is what a worker hands the writer: a page fetch (job set), or a
// robots.txt fetch for a host (robotsHost set).
type result struct {
	job *frontier.Job
	res response

	// Parsed content of a successful page fetch.
	doc      *extract.Document // HTML
	feed     *sitemap.Result   // sitemap or feed
	sig      []byte            // marshalled shingle signature of title+text
	textHash uint64            // exact-text hash from the signature
	bodyHash uint64
	noIndex  bool
	noFollow bool
	// asFeed marks a fetch of a subscribed feed's URL (frontier.Feed),
	// made as a feed reader makes it (fetcher.fetchAs).
	asFeed bool

	// A robots.txt fetch.
	robotsHost     string
	robotsScheme   string
	robotsSitemaps []string       // the Sitemap lines, parsed in the worker
	robotsState    repo.HostState // the record's robots.txt fields the fetch sets (robotsState)
}

// handle does one job: the host's robots.txt first if it is unknown or
// stale, then the robots check, the fetch and the parse. It returns nil if
// the job was deferred (put back) without a fetch. notes are its run's.
func (c *Crawler) handle(ctx context.Context, notes *runNotes, f *frontier.Frontier, job frontier.Job) (*result, error) {
	now := c.clock.Now()
	if c.route != nil && !c.route(job.URL) {
		// Its shard is not this crawler's now (a lease lapsed or moved):
		// the job waits here rather than being fetched twice.
		f.Defer(job, now.Add(c.routeWait))
		return nil, nil
	}
	info, err := c.hosts.get(job.Host)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(job.URL)
	if err != nil {
		return nil, fmt.Errorf("crawler: queued URL %q: %w", job.URL, err)
	}
	stale := info.rules == nil && info.deferUntil.IsZero() || !info.expires.IsZero() && now.After(info.expires)
	if stale && !c.cfg.Robots.Obey {
		info = &hostInfo{rules: robots.AllowAll().Group(c.cfg.UserAgent), expires: now.Add(c.cfg.Robots.CacheTTL),
			backoffUntil: info.backoffUntil, backoffs: info.backoffs}
		c.hosts.put(job.Host, info)
	} else if stale {
		// The robots.txt request takes this job's politeness slot; the job
		// waits for the next one.
		r, err := c.fetchRobots(ctx, notes, job.Host, u.Scheme)
		if err != nil {
			return nil, err
		}
		f.Defer(job, now.Add(c.gate.Interval(job.Host)))
		return r, nil
	}
	if now.Before(info.deferUntil) {
		f.Defer(job, info.deferUntil)
		return nil, nil
	}
	if now.Before(info.backoffUntil) {
		f.Defer(job, info.backoffUntil)
		return nil, nil
	}
	r := &result{job: &job}
	if !info.rules.Allowed(u.RequestURI()) {
		r.res = response{url: job.URL, outcome: repo.OutcomeDisallowed}
		return r, nil
	}
	var validators http.Header
	if !job.Reason.IsFirstFetch() {
		// A URL queued for its first fetch has no stored copy to
		// revalidate: admit queues only URLs the repository did not know.
		// A monitoring poll may be the first fetch of a watched URL.
		page, err := c.db.Page(job.URL)
		switch {
		case err == nil:
			validators = conditional(&page)
		case job.Reason != repo.ReasonMonitor || !errors.Is(err, repo.ErrNotFound):
			return nil, fmt.Errorf("crawler: page %s: %w", job.URL, err)
		}
	}
	c.counters.requests.Add(1)
	r.asFeed = f.Feed(job.URL)
	r.res = c.fetch.fetchAs(ctx, job.URL, validators, r.asFeed)
	c.noteReach(ctx, notes, job.Host, &r.res)
	if r.res.outcome == repo.OutcomeOK {
		c.parse(r, u)
	}
	return r, nil
}

// conditional returns the validators of the stored copy, if the web last
// served it. A page that went 404 and came back with the same body would
// otherwise answer 304 and stay gone.
func conditional(p *repo.Page) http.Header {
	if p.Version.IsZero() || p.State != repo.StateLive {
		return nil
	}
	h := http.Header{}
	if p.ETag != "" {
		h.Set("If-None-Match", p.ETag)
	}
	if p.LastModified != "" {
		h.Set("If-Modified-Since", p.LastModified)
	}
	return h
}

// fetchRobots fetches a host's robots.txt and publishes what it says to the
// host cache at once, so the host's other jobs see it before the writer
// commits it.
func (c *Crawler) fetchRobots(ctx context.Context, notes *runNotes, host, scheme string) (*result, error) {
	c.counters.robots.Add(1)
	res := c.robots.fetch(ctx, scheme+"://"+host+"/robots.txt", nil)
	if res.err != nil && res.status >= 200 && res.status < 300 {
		// A 2xx whose body was cut short (a reset, a time-out mid-body)
		// or did not decode (bad_encoding) was not read: its rules are
		// unknown, which RFC 9309 §2.3.1.4 reads as unreachable (the host
		// waits), not as the empty file that allows everything.
		res.status = 0
	}
	c.noteReach(ctx, notes, host, &res)
	prev := repo.HostState{Host: host}
	if !robotsKnown(res.status) {
		// Only a failure may keep the rules fetched before, which the
		// host's record holds (the cache holds them parsed).
		switch stored, err := c.db.Host(host); {
		case err == nil:
			prev = stored
		case !errors.Is(err, repo.ErrNotFound):
			return nil, fmt.Errorf("crawler: host %s: %w", host, err)
		}
	}
	wait := c.robotsWaits.next(host, !robotsKnown(res.status), c.cfg.Robots.ErrorDefer, prev.RobotsRetryWait)
	st := c.robotsState(&prev, &res, c.clock.Now(), wait)
	notes.noteStale(&st)
	h := c.hosts.fromState(&st)
	h.refused = res.outcome == repo.OutcomeRefused
	if old := c.hosts.peek(host); old != nil {
		h.backoffUntil, h.backoffs = old.backoffUntil, old.backoffs
	}
	c.hosts.put(host, h)
	return &result{res: res, robotsHost: host, robotsScheme: scheme, robotsSitemaps: h.sitemaps, robotsState: st}, nil
}

// robotsState is the host record's robots.txt fields after a fetch that
// got res, given the record before it (prev); wait is how long a failed
// one defers the host.
func (c *Crawler) robotsState(prev *repo.HostState, res *response, now time.Time, wait time.Duration) repo.HostState {
	st := repo.HostState{Host: prev.Host, RobotsStatus: res.status, RobotsFetched: now}
	if !robotsKnown(res.status) {
		if kept, ok := c.keepRules(prev, res, now, wait); ok {
			kept.RobotsRetryWait = wait
			return kept
		}
		st.RobotsExpires, st.RobotsRetryWait = now.Add(wait), wait
		return st
	}
	st.RobotsExpires = now.Add(c.cfg.Robots.CacheTTL)
	if res.status < 300 {
		st.RobotsBody = res.body
	}
	return st
}

// keepRules is prev's robots.txt fields kept after a refresh that found
// robots.txt unreachable, and whether they are: RFC 9309 §2.4 lets a
// crawler use its cached copy past a day while the file is unreachable,
// so a host that gave rules before is crawled under them, and asked again
// after wait (doubled per failure, robotsBackoff), for up to
// crawler.robots.stale_for from the first failed refresh. A host that
// gave none, or whose rules are past that, is deferred (ok false); so is
// one the address guard refused, which this run may not ask at all.
func (c *Crawler) keepRules(prev *repo.HostState, res *response, now time.Time, wait time.Duration) (repo.HostState, bool) {
	if res.outcome == repo.OutcomeRefused || prev.RobotsFetched.IsZero() || !robotsKnown(prev.RobotsStatus) {
		return repo.HostState{}, false
	}
	since := prev.RobotsUnreachableSince
	if since.IsZero() {
		since = now
	}
	if now.Sub(since) >= c.cfg.Robots.StaleFor {
		return repo.HostState{}, false
	}
	end := since.Add(c.cfg.Robots.StaleFor) // the last refresh comes no later than the bound
	return repo.HostState{Host: prev.Host, RobotsStatus: prev.RobotsStatus, RobotsBody: prev.RobotsBody,
		RobotsFetched: prev.RobotsFetched, RobotsExpires: clock.Earlier(now.Add(wait), end), RobotsUnreachableSince: since}, true
}

// maxRobotsDefer bounds the doubled deferral of a host whose robots.txt
// keeps failing, unless crawler.robots.error_defer is longer still.
const maxRobotsDefer = 24 * time.Hour

// robotsBackoff remembers, per host whose robots.txt failed last time, how
// long that failure deferred it, so that each failure in a row defers it
// twice as long: a host that stays down is asked less and less often, and
// a one-pass crawl, which waits for hosts deferred less than its horizon,
// comes to an end however short crawler.robots.error_defer is. The host's
// record keeps the wait too (RobotsRetryWait), which a restart goes on
// from.
type robotsBackoff struct {
	mu   sync.Mutex
	last map[string]time.Duration
}

// next is how long host is deferred after a robots.txt fetch, failed or
// not (0 when it did not fail), given base, crawler.robots.error_defer,
// and stored, the wait its record holds, used when this process has
// none.
func (b *robotsBackoff) next(host string, failed bool, base, stored time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !failed {
		delete(b.last, host)
		return 0
	}
	d := base
	prev, ok := b.last[host]
	if !ok && stored > 0 {
		prev, ok = stored, true
	}
	if ok {
		d = min(2*prev, max(base, maxRobotsDefer))
	}
	if b.last == nil {
		b.last = make(map[string]time.Duration)
	}
	b.last[host] = d
	return d
}

// parse extracts what the writer needs from a body fetched from base; it
// runs in the worker so the single writer only does repository work.
func (c *Crawler) parse(r *result, base *url.URL) {
	h := fnv.New64a()
	h.Write(r.res.body)
	r.bodyHash = h.Sum64()
	mt, _, _ := mime.ParseMediaType(r.res.contentType)
	// A feed's body served with a type only a feed is fetched with
	// (text/plain, application/octet-stream, a sniffed one), or one that
	// looks like XML whatever its type, is read as a feed, never indexed
	// as a page.
	xmlFeed := r.asFeed && (!c.fetch.accepts(r.res.contentType) || sniffXML(r.res.body))
	switch {
	case xmlFeed, mt == "application/xml", mt == "text/xml", mt == "application/rss+xml", mt == "application/atom+xml":
		r.noIndex = true
		feed, err := sitemap.Parse(r.res.body, c.cfg.Sitemap)
		r.feed = feed // never nil: what was read before an error
		switch {
		case errors.Is(err, sitemap.ErrFeedTooLarge):
			// The feed aggregator refuses it whole; no link of it is offered.
			c.logger.Info("feed over feeds.max_bytes: its links not offered", "url", r.job.URL, "err", err)
		case err != nil:
			c.logger.Debug("sitemap or feed unreadable", "url", r.job.URL, "err", err)
		}
		return
	}
	// A misconfigured server sends a PDF or an image as text/html: parsed,
	// its bytes would be indexed as words. (A sitemap or feed above may be
	// gzip: its parser decompresses it.)
	if bt := extract.BinaryType(r.res.body); bt != "" {
		r.res.outcome, r.res.body = repo.OutcomeNotText, nil
		r.res.err = fmt.Errorf("the body is %s, not the %q it was sent as", bt, r.res.contentType)
		return
	}
	doc, err := extract.HTML(r.res.body, r.res.contentType, base, c.cfg.Extract)
	if err != nil {
		c.logger.Debug("extract failed", "url", r.job.URL, "err", err)
		r.noIndex = true
		return
	}
	doc.Robots = doc.Robots.Union(extract.RobotsTag(r.res.header.Values("X-Robots-Tag")...))
	r.doc = doc
	r.noIndex = doc.Robots.NoIndex
	r.noFollow = doc.Robots.NoFollow
	sig := shingle.Compute(doc.Title+"\n"+doc.Text, c.cfg.Shingle)
	r.textHash = sig.Exact
	if b, err := sig.MarshalBinary(); err == nil {
		r.sig = b
	}
}
