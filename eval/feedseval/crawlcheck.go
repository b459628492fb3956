package feedseval

import (
	"context"
	"errors"
	"fmt"
	"io"
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

	// The polls, grouped by time.
	polls := map[time.Time][]int{}
	for i := range tr.Feeds {
		for t, ok := s.nextPoll(i, from); ok && t.Before(to); t, ok = s.nextPoll(i, t.Add(time.Nanosecond)) {
			polls[t] = append(polls[t], i)
		}
	}
	times := make([]time.Time, 0, len(polls))
	for t := range polls {
		times = append(times, t)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })

	clk := clock.NewManual(from.Add(-time.Second))
	srv, err := feedreplay.New(tr, feedreplay.Options{Now: clk.Now, Items: items})
	if err != nil {
		return res, err
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	_, port, err := net.SplitHostPort(ts.Listener.Addr().String())
	if err != nil {
		return res, err
	}
	ccfg := cc.Crawler
	ccfg.AllowPrivate = true
	ccfg.Sitemaps = false
	ccfg.Resolve = append(slices.Clone(ccfg.Resolve), feedreplay.Host+"=127.0.0.1:"+port)
	ccfg.Politeness.Overrides = append(slices.Clone(ccfg.Politeness.Overrides),
		crawler.HostOverride{Host: feedreplay.Host, MinDelay: 0, PerHost: 4})
	ccfg.Politeness.Global = 4
	frcfg := cc.Frontier
	frcfg.Budget = frontier.BudgetConfig{Fetches: 1 << 20, Period: feeds.Period}
	frcfg.Split = frontier.SplitConfig{Recrawl: 1}
	frcfg.Spread = false
	db, err := repo.Open("", cc.Repo, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		return res, err
	}
	defer db.Close()
	cr, err := crawler.New(ccfg, db, crawler.Options{Clock: clk})
	if err != nil {
		return res, err
	}
	policy, err := frontier.NewPolicy(frcfg.Policy, frcfg, nil)
	if err != nil {
		return res, err
	}
	fr, err := frontier.New(ctx, db, frcfg, cr.Gate(), policy, frontier.Options{Clock: clk})
	if err != nil {
		return res, err
	}
	urls := make([]string, len(tr.Feeds))
	for i, f := range tr.Feeds {
		if urls[i], err = urlnorm.Normalize(srv.URL(f.Name)); err != nil {
			return res, err
		}
	}
	// A first fetch of every feed just before the window: what is out by
	// then is history, not a posting to measure.
	if _, err := cr.Seed(ctx, fr, urls); err != nil {
		return res, err
	}
	if _, err := cr.Run(ctx, fr, crawler.RunOptions{Drain: true}); err != nil {
		return res, err
	}
	firstSeen := map[string]time.Time{}
	known := make([]map[string]bool, len(tr.Feeds))
	for i := range tr.Feeds {
		known[i] = map[string]bool{}
		if err := observe(ctx, db, urls[i], fcfg, known[i], nil, time.Time{}); err != nil {
			return res, err
		}
	}
	for n, t := range times {
		clk.Set(t)
		b := db.NewBatch(ctx)
		var items []repo.QueueItem
		for _, i := range polls[t] {
			it, err := fr.Enqueue(b, urls[i], repo.ReasonRecrawl, t)
			if err != nil {
				b.Close()
				return res, err
			}
			items = append(items, it)
		}
		if err := b.Commit(); err != nil {
			b.Close()
			return res, err
		}
		b.Close()
		fr.Publish(items...)
		run, err := cr.Run(ctx, fr, crawler.RunOptions{Drain: true})
		if err != nil {
			return res, err
		}
		res.Polls += len(polls[t])
		res.Fetched += int(run.Fetched())
		for _, i := range polls[t] {
			if err := observe(ctx, db, urls[i], fcfg, known[i], firstSeen, t); err != nil {
				return res, err
			}
			log, err := db.FetchLog(ctx, urls[i])
			if err != nil {
				return res, err
			}
			if len(log) > 0 && log[len(log)-1].Outcome == repo.OutcomeNotModified {
				res.NotModified++
			}
		}
		if n%100 == 0 {
			fmt.Fprintf(progress, "feeds crawl check: %s, %d of %d poll times, %d fetched, %d not modified\n",
				t.Format(time.DateTime), n+1, len(times), res.Fetched, res.NotModified)
		}
	}
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
			res.Postings++
			traceSum += next.Sub(p).Seconds()
			seen, ok := firstSeen[fmt.Sprintf("g:urn:deltaq:feed:%s:%d", f.Name, k)]
			if !ok {
				res.Missed++
				continue
			}
			res.Seen++
			traceSeen += next.Sub(p).Seconds()
			crawlSum += seen.Sub(p).Seconds()
		}
	}
	if res.Postings > 0 {
		res.TraceMean = seconds(traceSum / float64(res.Postings))
	}
	if res.Seen > 0 {
		res.CrawlMean = seconds(crawlSum / float64(res.Seen))
		res.TraceMeanSeen = seconds(traceSeen / float64(res.Seen))
	}
	if traceSeen > 0 {
		res.Ratio = crawlSum / traceSeen
	}
	return res, nil
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
