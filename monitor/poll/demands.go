package poll

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/monitor"
	"github.com/deltaq/deltaq/repo"
)

// demands is every monitoring demand read from the stores, with what π and
// ingestion need per URL.
type demands struct {
	byKey map[string]monitor.Demand // a demand's key names its source and parameters
	// rates are the feeds' learned posting models on a URL; π comes from
	// them (a URL without a feed has π = 1: its watches' wishes alone set
	// its value).
	rates   map[string][]rate
	feedIDs map[string][]string // URL → feed ids, for feeds.Store.Absorb
	groups  map[string][]string // URL → watch group keys, for watch.Engine.CheckFetched
	// seen is, per URL, the last time the stores know it was fetched or
	// checked: what a restart rebuilds each demand's g from.
	seen map[string]time.Time
	// crawled is, per URL the crawler has fetched, its last fetch.
	crawled map[string]time.Time
}

// rate is one feed's posting model and its floor: the feed's max interval
// taken as at least one posting per max interval, so the square-root
// rule's floor (Sia & Cho, Thm. 1 with per-feed bounds) survives as a
// least π.
type rate struct {
	model feeds.Model
	floor float64 // postings per instant
}

// read gathers the demands of every subscribed feed and installed watch.
// A feed's posting model is learned over feeds.learn_window before now
// exactly as feeds.PlanAll learns it.
func (p *Poller) read(ctx context.Context, now time.Time) (*demands, error) {
	d := &demands{byKey: map[string]monitor.Demand{}, rates: map[string][]rate{},
		feedIDs: map[string][]string{}, groups: map[string][]string{}, seen: map[string]time.Time{}, crawled: map[string]time.Time{}}
	inst := p.cfg.Instant
	// Windows are capped at monitor.max_lookback instants, the bound on
	// what WIC keeps per demand: a window's trackers keep its π.
	instants := func(dur time.Duration) int { return min(int(dur/inst), p.cfg.MaxLookback) }
	if p.feeds != nil {
		list, err := p.feeds.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("poll: feeds: %w", err)
		}
		history := make([][]time.Time, len(list))
		for i, f := range list {
			history[i] = f.History
		}
		models, _ := feeds.LearnAll(p.feedsCfg, history, now.Add(-p.feedsCfg.LearnWindow), now, rand.New(rand.NewPCG(p.seed, 2)))
		for i, f := range list {
			u, err := urlnorm.Normalize(f.URL)
			if err != nil {
				p.logger.Warn("feed not monitored", "url", f.URL, "err", err)
				continue
			}
			// Linear urgency over the feed's max interval: WIC maximising
			// it minimises the postings' delay up to that horizon, the
			// aggregator's metric (monitor.Linear).
			horizon := max(1, instants(f.MaxInterval))
			d.byKey[fmt.Sprintf("feed %s %g %d", f.ID, f.Weight, horizon)] = monitor.Demand{URL: u,
				Life:    monitor.Life{Kind: monitor.UnboundedAppend},
				Urgency: monitor.Urgency{Kind: monitor.Linear, Window: horizon},
				Weight:  f.Weight}
			d.rates[u] = append(d.rates[u], rate{model: models[i], floor: 1 / float64(horizon)})
			d.feedIDs[u] = append(d.feedIDs[u], f.ID)
			d.seen[u] = later(d.seen[u], f.LastFetch)
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
				d.seen[u] = later(d.seen[u], g.LastCheck)
			}
		}
	}
	for u := range d.seen {
		pg, err := p.db.Page(u)
		switch {
		case err == nil && !pg.LastFetch.IsZero():
			d.seen[u] = later(d.seen[u], pg.LastFetch)
			d.crawled[u] = pg.LastFetch
		case err == nil:
		case !errors.Is(err, repo.ErrNotFound):
			return nil, fmt.Errorf("poll: page %s: %w", u, err)
		}
	}
	return d, nil
}

// piAt returns π_u for the instant that starts at t: the expected postings
// of the URL's feeds in the instant (λ(t) of each feed's weekly profile,
// Model.RateAt), each at least its floor; 1 for a URL watched only.
func (d *demands) piAt(t time.Time, instant time.Duration) func(u string) float64 {
	bin, secs := feeds.BinOf(t), instant.Seconds() // one profile bin for every feed
	return func(u string) float64 {
		rs := d.rates[u]
		if len(rs) == 0 {
			return 1
		}
		sum := 0.0
		for _, r := range rs {
			sum += max(r.model.Rate*r.model.Shape[bin]*secs, r.floor)
		}
		return sum
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
