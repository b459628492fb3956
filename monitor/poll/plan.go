package poll

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// plan is the feeds' schedule the poller follows (feeds.PlanAll, the
// policy `deltaq eval feeds` measured best) and the planned polls each
// feed URL is still owed.
type plan struct {
	at     time.Time // when it was made
	set    string    // the feed set it was made for (demands.feedSet)
	byFeed []feeds.Planned
	// due holds, per feed URL, the planned polls not yet served, oldest
	// first: the feed's missed poll (Planned.Last) if no fetch came after
	// it, then Planned.Next. Several feeds on one URL merge theirs.
	due map[string][]time.Time
}

// makePlan plans d's feeds at now, reading their histories, and stores
// the plan for `deltaq feeds explain`; owe then sets what each URL is
// owed.
func (p *Poller) makePlan(ctx context.Context, d *demands, now time.Time) (*plan, error) {
	pl := &plan{at: now, set: feedSet(d.feeds), due: map[string][]time.Time{}}
	if len(d.feeds) == 0 {
		return pl, nil
	}
	// A copy: the demands kept between plans hold no histories.
	list := slices.Clone(d.feeds)
	if err := p.feeds.WithLists(list); err != nil {
		return nil, fmt.Errorf("poll: feeds: %w", err)
	}
	var err error
	if pl.byFeed, err = feeds.PlanAll(p.feedsCfg, list, now, p.seed); err != nil {
		return nil, fmt.Errorf("poll: plan: %w", err)
	}
	if err := p.feeds.SavePlans(ctx, now, pl.byFeed); err != nil {
		return nil, fmt.Errorf("poll: plan: %w", err)
	}
	return pl, nil
}

// owe sets each feed URL's planned polls still owed; served is the URL's
// last fetch.
func (pl *plan) owe(served func(u string) time.Time) {
	for _, f := range pl.byFeed {
		u, err := urlnorm.Normalize(f.Feed.URL)
		if err != nil {
			continue // read already left it out
		}
		if !f.Last.IsZero() && f.Last.After(served(u)) {
			pl.due[u] = append(pl.due[u], f.Last)
		}
		pl.due[u] = append(pl.due[u], f.Next...)
	}
	for u, ts := range pl.due {
		slices.SortFunc(ts, time.Time.Compare)
		pl.due[u] = slices.CompactFunc(ts, time.Time.Equal)
	}
}

// overdue returns the feed URLs with a planned poll at or before now, the
// longest overdue first (ties by URL).
func (pl *plan) overdue(now time.Time) []string {
	var out []string
	for u, ts := range pl.due {
		if len(ts) > 0 && !ts[0].After(now) {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := pl.due[a][0].Compare(pl.due[b][0]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// served drops u's planned polls at or before at: one fetch serves every
// poll the URL owed by then.
func (pl *plan) served(u string, at time.Time) {
	ts := pl.due[u]
	i := 0
	for i < len(ts) && !ts[i].After(at) {
		i++
	}
	pl.due[u] = ts[i:]
}
