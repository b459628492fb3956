package frontier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Monitor chooses the monitoring polls (feeds, watched pages) that the
// frontier's monitoring class fetches; package monitor/poll implements it
// with WIC over every feed's and watch's demand. The frontier gives it
// frontier.split.monitor of each period's budget, spread over the period's
// instants.
type Monitor interface {
	// Pick returns at most n URLs worth a poll at now, most useful first,
	// leaving out those skip rejects (already queued for a fetch).
	Pick(ctx context.Context, now time.Time, n int, skip func(url string) bool) ([]string, error)
	// Fetched tells the monitor url was fetched at, whatever the fetch
	// was for: its demands start over, and it may read the result.
	Fetched(url string, at time.Time)
	// Watched is how many URLs the monitor watches: the most it can pick
	// at one instant, so the frontier holds no more for later instants.
	Watched() int
}

// FeedMonitor is a Monitor that knows which of its URLs are subscribed
// feeds' (package monitor/poll's Poller is one): the frontier's Feed asks
// it, unless Options.Feed is set.
type FeedMonitor interface {
	Monitor
	// Feed reports whether url is a subscribed feed's, or one a feed
	// waits to read (the target of its temporary redirect).
	Feed(url string) bool
}

// Feed reports whether url is a subscribed feed's (Options.Feed, else the
// Monitor's, if it is a FeedMonitor). The crawler fetches such a URL as a
// feed reader does, whatever the reason it was queued for: a feed is often
// served as text/plain or application/octet-stream, and whether it is one
// is for the feed's parser to say. Any fetch of it serves its polls.
func (f *Frontier) Feed(url string) bool {
	return f.feed != nil && f.feed(url)
}

// monitorShareLocked is the monitoring class's fetches this period.
func (f *Frontier) monitorShareLocked() int {
	return f.mu.budget.share[repo.ClassMonitor]
}

// monitorPerInstantLocked is the monitoring class's fetches per instant:
// its share spread evenly over the period's instants, rounded up so that
// a share smaller than the number of instants still polls.
func (f *Frontier) monitorPerInstantLocked() int {
	k := max(1, int(f.cfg.Budget.Period/f.monitorInstant))
	return (f.monitorShareLocked() + k - 1) / k
}

// PlanMonitor queues this instant's monitoring polls: up to the instant's
// part of frontier.split.monitor, as the Monitor picks them, due now. The
// part of the share that belongs to the period's later instants stays held
// from new URLs; what this instant's picks leave of its own part is free
// for them at once. It returns how many were queued.
func (f *Frontier) PlanMonitor(ctx context.Context) (int, error) {
	if f.monitor == nil {
		return 0, nil
	}
	f.mu.Lock()
	now := f.clock.Now()
	if f.mu.budget.roll(now) {
		f.refixAllLocked()
	}
	b := &f.mu.budget
	left := max(0, f.monitorShareLocked()-b.byClass[repo.ClassMonitor]-b.reserved[repo.ClassMonitor])
	perInstant := f.monitorPerInstantLocked()
	f.mu.Unlock()
	perInstant = min(perInstant, f.monitor.Watched())
	n := min(perInstant, left)
	var urls []string
	if n > 0 {
		var err error
		urls, err = f.monitor.Pick(ctx, now, n, f.onItsWay)
		if err != nil {
			return 0, fmt.Errorf("frontier: monitor picks: %w", err)
		}
		if len(urls) > n {
			return 0, fmt.Errorf("frontier: monitor picked %d URLs: must be at most %d", len(urls), n)
		}
	}
	f.mu.Lock()
	f.mu.budget.hold = 0 // this instant's picks take their part; it decides anew what later ones need
	f.mu.Unlock()
	queued, err := f.queue(ctx, urls, repo.ReasonMonitor, now, false)
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rest := f.mu.budget.end().Sub(now)
	later := int((rest+f.monitorInstant-1)/f.monitorInstant) - 1 // instants of this period after this one
	f.mu.budget.hold = max(0, min(later*perInstant, left-queued, f.mu.budget.free()))
	f.refixAllLocked()
	return queued, nil
}

// onItsWay reports whether url is already on its way to a fetch: queued for
// a re-fetch or monitoring poll, or a URL the repository knows only as
// queued for its first fetch. A URL whose record cannot be read counts as
// on its way, to be looked at again later.
func (f *Frontier) onItsWay(url string) bool {
	if f.pendingURL(url) {
		return true
	}
	p, err := f.db.Page(url)
	if errors.Is(err, repo.ErrNotFound) {
		return false
	}
	return err != nil || p.State == repo.StateQueued
}

// RecordOnItsWay is onItsWay for a page whose record the caller has read.
func (f *Frontier) RecordOnItsWay(p *repo.Page) bool {
	return p.State == repo.StateQueued || f.pendingURL(p.URL)
}

// pendingURL reports whether url is queued in this frontier.
func (f *Frontier) pendingURL(url string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, pending := f.mu.pending[url]
	return pending
}

// RunMonitor plans monitoring polls at the start of every monitor instant
// until ctx ends.
func (f *Frontier) RunMonitor(ctx context.Context) error {
	if f.monitor == nil {
		<-ctx.Done()
		return ctx.Err()
	}
	for {
		n, err := f.PlanMonitor(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			f.logger.Debug("monitoring polls queued", "n", n)
		}
		next := f.clock.Now().Truncate(f.monitorInstant).Add(f.monitorInstant)
		if err := f.clock.WaitUntil(ctx, next); err != nil {
			return err
		}
	}
}
