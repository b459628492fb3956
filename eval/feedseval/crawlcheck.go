package feedseval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/feedreplay"
	"github.com/deltaq/deltaq/eval/feedtrace"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// CrawlConfigs are the real components' settings the check starts from;
// it points the crawler at the replay server and gives the frontier room.
type CrawlConfigs struct {
	Crawler  crawler.Config
	Frontier frontier.Config
	Repo     repo.Config
}

// CrawlResult compares the delays measured through the real crawler with
// the trace-driven figure for the same schedule and postings.
type CrawlResult struct {
	Weeks  int
	PerDay float64
	// Polls asked of the crawler, and what it came back with.
	Polls, Fetched, NotModified int
	// Postings made in the window whose next poll falls inside it; Seen of
	// them were found by the crawler; Missed dropped out of a feed's latest
	// Items before a poll came (a burst of more than Items postings between
	// two polls: the trace-driven model cannot see that loss).
	Postings, Seen, Missed int
	// TraceMean is the trace-driven mean delay of all those postings under
	// the same schedule, TraceMeanSeen of the ones the crawler saw, and
	// CrawlMean the delay the crawler measured for those; Ratio is
	// CrawlMean/TraceMeanSeen.
	TraceMean, TraceMeanSeen, CrawlMean time.Duration
	Ratio                               float64
	// Items is how many postings each replayed feed showed.
	Items int
}

// Within reports whether the measured mean delay is within tol (0.05 = 5 %)
// of the trace-driven one for the same postings.
func (r CrawlResult) Within(tol float64) bool {
	return r.Seen > 0 && r.Ratio >= 1-tol && r.Ratio <= 1+tol
}

// CrawlCheck plays the combined schedule (learned once, perDay polls per
// feed per day) for weeks through the real crawler, frontier and Pebble
// repository against feedreplay on loopback, on a manual clock: at each
// planned poll time the clock is set, the polls are queued in the frontier
// and the crawler runs until it drains. Each feed's stored body is then
// parsed and every item seen for the first time is dated by that poll.
func CrawlCheck(ctx context.Context, cfg Config, fcfg feeds.Config, cc CrawlConfigs, tr *feedtrace.Trace, weeks int, perDay float64, items int, progress io.Writer) (CrawlResult, error) {
	res := CrawlResult{Weeks: weeks, PerDay: perDay, Items: items}
	if weeks < 1 {
		return res, fmt.Errorf("feedseval: crawl check weeks = %d: must be ≥ 1", weeks)
	}
	if progress == nil {
		progress = io.Discard
	}
	sum, s, err := planOnce(cfg, fcfg, tr, Combined, perDay)
	if err != nil {
		return res, err
	}
	from, to := sum.EvalFrom, sum.EvalFrom.Add(time.Duration(weeks)*feeds.Period)
	polls, times := pollTimes(s, len(tr.Feeds), from, to)

	clk := clock.NewManual(from.Add(-time.Second))
	srv, err := feedreplay.New(tr, feedreplay.Options{Now: clk.Now, Items: items})
	if err != nil {
		return res, err
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	rc, err := cc.forReplay(ts.Listener.Addr())
	if err != nil {
		return res, err
	}
	db, err := repo.Open("", rc.Repo, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		return res, err
	}
	defer db.Close()
	c, err := newCrawlCheck(ctx, rc, fcfg, db, clk, tr, srv)
	if err != nil {
		return res, err
	}
	if err := c.prime(ctx); err != nil {
		return res, err
	}
	for n, t := range times {
		if err := c.poll(ctx, &res, polls[t], t); err != nil {
			return res, err
		}
		if n%100 == 0 {
			fmt.Fprintf(progress, "feeds crawl check: %s, %d of %d poll times, %d fetched, %d not modified\n",
				t.Format(time.DateTime), n+1, len(times), res.Fetched, res.NotModified)
		}
	}
	res.tally(tr, s, c.firstSeen, from, to)
	return res, nil
}

// pollTimes groups the polls s plans for feeds 0 to n-1 in [from, to) by
// time and returns those times in order: all the feeds due at one instant
// are queued together, so one crawl fetches them on one clock reading.
func pollTimes(s *schedule, n int, from, to time.Time) (map[time.Time][]int, []time.Time) {
	polls := map[time.Time][]int{}
	for i := range n {
		for t := range s.pollsIn(i, from, to) {
			polls[t] = append(polls[t], i)
		}
	}
	return polls, slices.SortedFunc(maps.Keys(polls), time.Time.Compare)
}

// forReplay points the configs at the replay server listening on addr.
// Every feed is on the one replay host, so the crawler resolves it to
// loopback, may fetch there, fetches no sitemaps and lets the host take
// several fetches at once with no delay between them; the frontier's budget
// is too large to hold a poll back, all of it goes to recrawls, and nothing
// is spread over the period, so each poll is fetched when it is planned.
// The lists are cloned so that the caller's configs are left as they were.
func (cc CrawlConfigs) forReplay(addr net.Addr) (CrawlConfigs, error) {
	_, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return CrawlConfigs{}, err
	}
	c := &cc.Crawler
	c.AllowPrivate = true
	c.Sitemaps = false
	c.Resolve = append(slices.Clone(c.Resolve), feedreplay.Host+"=127.0.0.1:"+port)
	c.Politeness.Overrides = append(slices.Clone(c.Politeness.Overrides),
		crawler.HostOverride{Host: feedreplay.Host, MinDelay: 0, PerHost: 4})
	c.Politeness.Global = 4
	f := &cc.Frontier
	f.Budget = frontier.BudgetConfig{Fetches: 1 << 20, Period: feeds.Period}
	f.Split = frontier.SplitConfig{Recrawl: 1}
	f.Spread = false
	return cc, nil
}

// crawlCheck is the crawl side of CrawlCheck: the crawler and frontier on
// the manual clock over the check's repository, each feed's URL, and what
// the stored copies have shown so far.
type crawlCheck struct {
	fcfg feeds.Config
	clk  *clock.Manual
	db   *repo.DB
	cr   *crawler.Crawler
	fr   *frontier.Frontier
	urls []string // feed i's normalised replay URL
	// known holds the item keys each feed's stored copies have shown, and
	// firstSeen the poll time of those that first showed after prime.
	known     []map[string]bool
	firstSeen map[string]time.Time
}

// newCrawlCheck builds the crawler and frontier over db from configs already
// pointed at the replay server srv. It closes nothing, even on an error:
// db and the test server behind srv belong to CrawlCheck, which closes
// them when it returns.
func newCrawlCheck(ctx context.Context, cc CrawlConfigs, fcfg feeds.Config, db *repo.DB, clk *clock.Manual, tr *feedtrace.Trace, srv *feedreplay.Server) (*crawlCheck, error) {
	cr, err := crawler.New(cc.Crawler, db, crawler.Options{Clock: clk})
	if err != nil {
		return nil, err
	}
	policy, err := frontier.NewPolicy(cc.Frontier.Policy, cc.Frontier, nil)
	if err != nil {
		return nil, err
	}
	fr, err := frontier.New(ctx, db, cc.Frontier, cr.Gate(), policy, frontier.Options{Clock: clk})
	if err != nil {
		return nil, err
	}
	urls := make([]string, len(tr.Feeds))
	for i, f := range tr.Feeds {
		if urls[i], err = urlnorm.Normalize(srv.URL(f.Name)); err != nil {
			return nil, err
		}
	}
	known := make([]map[string]bool, len(tr.Feeds))
	for i := range known {
		known[i] = map[string]bool{}
	}
	return &crawlCheck{fcfg: fcfg, clk: clk, db: db, cr: cr, fr: fr, urls: urls, known: known, firstSeen: map[string]time.Time{}}, nil
}

// prime fetches every feed once just before the window and marks what the
// stored copies show as known: what is out by then is history, not a
// posting to measure, so no later poll may date it.
func (c *crawlCheck) prime(ctx context.Context) error {
	if _, err := c.cr.Seed(ctx, c.fr, c.urls); err != nil {
		return err
	}
	if _, err := c.drain(ctx); err != nil {
		return err
	}
	for i, url := range c.urls {
		if err := observe(ctx, c.db, url, c.fcfg, c.known[i], nil, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// drain runs the crawler until the frontier has nothing left due, so that
// every queued poll is fetched and stored before its copy is read.
func (c *crawlCheck) drain(ctx context.Context) (crawler.Summary, error) {
	return c.cr.Run(ctx, c.fr, crawler.RunOptions{Drain: true})
}

// poll plays the polls of the feeds due at t: it sets the clock to t, queues
// them, drains the crawler and dates the items their stored copies show for
// the first time by t. It counts into res as it goes, so that a check that
// fails part way still reports the polls made up to the failure.
func (c *crawlCheck) poll(ctx context.Context, res *CrawlResult, due []int, t time.Time) error {
	c.clk.Set(t)
	items, err := c.enqueue(ctx, due, t)
	if err != nil {
		return err
	}
	c.fr.Publish(items...)
	run, err := c.drain(ctx)
	if err != nil {
		return err
	}
	res.Polls += len(due)
	res.Fetched += int(run.Fetched())
	for _, i := range due {
		if err := observe(ctx, c.db, c.urls[i], c.fcfg, c.known[i], c.firstSeen, t); err != nil {
			return err
		}
		log, err := c.db.FetchLog(ctx, c.urls[i])
		if err != nil {
			return err
		}
		if len(log) > 0 && log[len(log)-1].Outcome == repo.OutcomeNotModified {
			res.NotModified++
		}
	}
	return nil
}

// enqueue queues a recrawl of each feed due at t in one batch and returns
// the committed entries, which the frontier hands out only once published.
// The batch is closed on every path before the caller publishes.
func (c *crawlCheck) enqueue(ctx context.Context, due []int, t time.Time) ([]repo.QueueItem, error) {
	b := c.db.NewBatch(ctx)
	defer b.Close()
	var items []repo.QueueItem
	for _, i := range due {
		it, err := c.fr.Enqueue(b, c.urls[i], repo.ReasonRecrawl, t)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return items, nil
}

// tally compares, over the postings made in [from, to) whose next poll
// under s falls inside the window, the trace-driven delay to that poll with
// the delay firstSeen gives for the postings the crawler saw, and fills in
// r's posting counts, means and ratio. The delays are summed in seconds,
// as measure does, since a long window's sum overflows a Duration.
func (r *CrawlResult) tally(tr *feedtrace.Trace, s *schedule, firstSeen map[string]time.Time, from, to time.Time) {
	var traceSum, traceSeen, crawlSum float64
	for i, f := range tr.Feeds {
		for k, p := range f.Postings {
			if p.Before(from) || !p.Before(to) {
				continue
			}
			next, ok := s.nextPoll(i, p)
			if !ok || !next.Before(to) {
				continue
			}
			r.Postings++
			traceSum += next.Sub(p).Seconds()
			seen, ok := firstSeen[fmt.Sprintf("g:urn:deltaq:feed:%s:%d", f.Name, k)]
			if !ok {
				r.Missed++
				continue
			}
			r.Seen++
			traceSeen += next.Sub(p).Seconds()
			crawlSum += seen.Sub(p).Seconds()
		}
	}
	if r.Postings > 0 {
		r.TraceMean = seconds(traceSum / float64(r.Postings))
	}
	if r.Seen > 0 {
		r.CrawlMean = seconds(crawlSum / float64(r.Seen))
		r.TraceMeanSeen = seconds(traceSeen / float64(r.Seen))
	}
	if traceSeen > 0 {
		r.Ratio = crawlSum / traceSeen
	}
}

// observe parses the stored copy of a feed and dates the items it has not
// seen before by at (when firstSeen is given).
func observe(ctx context.Context, db *repo.DB, url string, fcfg feeds.Config, known map[string]bool, firstSeen map[string]time.Time, at time.Time) error {
	v, err := db.LatestVersion(ctx, url)
	if errors.Is(err, repo.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !strings.Contains(v.ContentType, "atom") {
		return fmt.Errorf("feedseval: %s stored as %q", url, v.ContentType)
	}
	p, err := feeds.Parse(v.Body, fcfg.MaxBytes, fcfg.MaxItems)
	if err != nil {
		return fmt.Errorf("feedseval: stored copy of %s: %w", url, err)
	}
	for _, it := range p.Items {
		if !known[it.Key] {
			known[it.Key] = true
			if firstSeen != nil {
				firstSeen[it.Key] = at
			}
		}
	}
	return nil
}

// planOnce learns on the learning weeks and plans one policy at one budget
// for the first evaluation week, as Run's "once" pass does with the first
// seed.
func planOnce(cfg Config, fcfg feeds.Config, tr *feedtrace.Trace, policy string, perDay float64) (*Summary, *schedule, error) {
	c := cfg
	c.PerDay, c.WICHorizons, c.Relearn = []float64{perDay}, nil, false
	sum, grid, bounds, err := prepare(c, fcfg, tr)
	if err != nil {
		return nil, nil, err
	}
	models, _ := learnModels(fcfg, postingTimes(tr), sum, cfg.Seed)
	total := feeds.WeeklyPolls(perDay, len(tr.Feeds))
	pl, err := newPlanner(policy, fcfg, grid, bounds, total, 0, rand.New(rand.NewPCG(cfg.Seed, 2)))
	if err != nil {
		return nil, nil, err
	}
	s := &schedule{start: sum.EvalFrom, step: grid.Step}
	if err := pl.week(s, sum.EvalFrom, models); err != nil {
		return nil, nil, err
	}
	return sum, s, nil
}
