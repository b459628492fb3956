package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/monitor"
	"github.com/deltaq/deltaq/repo"
)

// demands is every monitoring demand read from the stores, with what
// ingestion needs per URL. Feeds are not WIC demands: their polls follow
// the feeds' plan (plan.go).
type demands struct {
	byKey   map[string]monitor.Demand // a watch member's key names its group and wish
	feeds   []feeds.Feed              // every subscribed feed, planned by feeds.PlanAll
	feedIDs map[string][]string       // URL → feed ids, for feeds.Store.Absorb
	groups  map[string][]string       // URL → watch group keys, for watch.Engine.CheckFetched
	// seen is, per URL, the last time the stores know it was fetched or
	// checked: what a restart rebuilds each demand's g from and what a
	// plan's missed poll is checked against.
	seen map[string]time.Time
	// crawled is, per URL the crawler has fetched, its last fetch.
	crawled map[string]time.Time
}

// read gathers every subscribed feed and the demands of every installed
// watch.
func (p *Poller) read(ctx context.Context) (*demands, error) {
	// Noted before the read: a later edit is read next time.
	if p.watches != nil {
		p.installsRead.Store(p.watches.Installs())
	}
	if p.feeds != nil {
		p.editsRead.Store(p.feeds.Edits())
	}
	d := &demands{byKey: map[string]monitor.Demand{}, feedIDs: map[string][]string{},
		groups: map[string][]string{}, seen: map[string]time.Time{}, crawled: map[string]time.Time{}}
	inst := p.cfg.Instant
	// Windows are capped at monitor.max_lookback instants, the bound on
	// what WIC keeps per demand: a window's trackers keep its π.
	instants := func(dur time.Duration) int { return min(int(dur/inst), p.cfg.MaxLookback) }
	if p.feeds != nil {
		list, err := p.feeds.Subscriptions(ctx) // the histories are read to plan
		if err != nil {
			return nil, fmt.Errorf("poll: feeds: %w", err)
		}
		for _, f := range list {
			u, err := urlnorm.Normalize(f.URL)
			if err != nil {
				p.logger.Warn("feed not monitored", "url", f.URL, "err", err)
				continue
			}
			d.feeds = append(d.feeds, f)
			d.feedIDs[u] = append(d.feedIDs[u], f.ID)
			d.seen[u] = clock.Later(d.seen[u], f.LastFetch)
		}
	}
	if p.watches != nil {
		groups, err := p.watches.Groups(ctx)
		if err != nil {
			return nil, fmt.Errorf("poll: watches: %w", err)
		}
		for _, g := range groups {
			u, err := urlnorm.Normalize(g.URL)
			if err != nil {
				p.logger.Warn("watch not monitored", "url", g.URL, "err", err)
				continue
			}
			for i, every := range g.Every {
				// The wish is a sliding-window urgency of W instants; the
				// weight 1/(W+1) makes a member worth min(1, elapsed/wish)
				// at π = 1, so every watch whose wish has passed is worth
				// the same and a shorter wish gets there sooner.
				w := instants(every)
				d.byKey[fmt.Sprintf("watch %s %d %d", g.Key, i, w)] = monitor.Demand{URL: u,
					Life:    monitor.Life{Kind: monitor.UnboundedAppend},
					Urgency: monitor.Urgency{Kind: monitor.SlidingWindow, Window: w},
					Weight:  1 / float64(w+1)}
			}
			if len(g.Every) > 0 {
				d.groups[u] = append(d.groups[u], g.Key)
				d.seen[u] = clock.Later(d.seen[u], g.LastCheck)
			}
		}
	}
	for u := range d.seen {
		pg, err := p.db.Page(u)
		switch {
		case err == nil && !pg.LastFetch.IsZero():
			d.seen[u] = clock.Later(d.seen[u], pg.LastFetch)
			d.crawled[u] = pg.LastFetch
		case err == nil:
		case !errors.Is(err, repo.ErrNotFound):
			return nil, fmt.Errorf("poll: page %s: %w", u, err)
		}
	}
	return d, nil
}

// pagesOnly is π for watched pages: 1 per instant, so a watch's wish alone
// sets its value.
func pagesOnly(string) float64 { return 1 }

// feedSet names what a plan depends on besides the posting history: the
// feeds, their URLs (a redirect moves a feed, and its polls go to the new
// one), weights and bounds. A change re-plans at once.
func feedSet(list []feeds.Feed) string {
	var b strings.Builder
	for _, f := range list {
		fmt.Fprintf(&b, "%s %s %g %s %s\n", f.ID, f.URL, f.Weight, f.MinInterval, f.MaxInterval)
	}
	return b.String()
}

// Feed implements frontier.FeedMonitor: url is a subscribed feed's, or the
// target of a temporary redirect a feed waits to read. The crawler fetches
// it as a feed reader does, taking the Content-Types feeds are often served
// with (text/plain, application/octet-stream) and leaving it to the feed's
// parser to say whether the body is a feed.
func (p *Poller) Feed(url string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.mu.d.feedIDs[url]) > 0 || len(p.mu.awaited[url]) > 0
}

var _ frontier.FeedMonitor = (*Poller)(nil)
