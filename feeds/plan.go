package feeds

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// Planned is one feed's schedule for the week: what was learned, its polls
// per week and their times (Combined: Thm. 1 and Thm. 3 at once).
type Planned struct {
	Feed         Feed
	Model        Model
	PollsPerWeek int
	Slots        []int // grid slots from Monday 00:00 UTC
	// Last is, for a feed never polled, the latest planned poll before now
	// (zero: none), so that a planner starting late (a restart, a re-plan)
	// still owes it a poll. A polled feed's Next are continued from its
	// last poll (Continue) and owe nothing before now.
	Last time.Time
	Next []time.Time // the planned polls from now on, one week's worth
}

// WeeklyPolls is the polls per Period of n feeds polled perDay times a
// day each on average.
func WeeklyPolls(perDay float64, n int) int { return int(perDay*7*float64(n) + 0.5) }

// PlanAll plans the week as `deltaq eval feeds`' best policy ("combined",
// re-learned weekly) does: each feed's model learned at now (LearnRecent:
// profiles over the window chosen on the past weeks, rates following drift from the
// postings since then up to the feed's last poll), then feeds.polls_per_day
// per feed on average allocated and placed at once (Combined) within each
// feed's own interval bounds, weighted by each feed's weight, and each
// polled feed's week from now continued from its last poll (Continue), as
// the evaluation continues each week's plan from the week before. The seed
// seeds the clustering of the daily patterns: the same seed, feeds and now
// give the same plan.
func PlanAll(cfg Config, list []Feed, now time.Time, seed uint64) ([]Planned, error) {
	if len(list) == 0 {
		return nil, nil
	}
	grid, err := NewGrid(cfg.Step)
	if err != nil {
		return nil, err
	}
	history := make([][]time.Time, len(list))
	seen := make([]time.Time, len(list))
	weights := make([]float64, len(list))
	bounds := make([]Bounds, len(list))
	floors, ceilings := 0, 0
	for i, f := range list {
		history[i], seen[i], weights[i] = f.History, f.LastFetch, f.Weight
		if bounds[i], err = BoundsFor(f.MinInterval, f.MaxInterval); err != nil {
			return nil, fmt.Errorf("feeds: %s: %w", f.URL, err)
		}
		floors += bounds[i].Min
		ceilings += bounds[i].Max
	}
	since := now.Add(-cfg.LearnWindow)
	models := LearnRecent(cfg, history, since, seen, now, rand.New(rand.NewPCG(seed, 2)))
	total := min(max(floors, WeeklyPolls(cfg.PollsPerDay, len(list))), ceilings)
	alloc, plan, err := Combined(total, weights, models, grid, bounds, cfg.Starts)
	if err != nil {
		return nil, err
	}
	ws := now.UTC().Truncate(24 * time.Hour)
	ws = ws.AddDate(0, 0, -((int(ws.Weekday()) + 6) % 7)) // Monday 00:00 UTC
	// now's slot, rounded up so that no poll is placed before now
	from := int((now.Sub(ws) + grid.Step - 1) / grid.Step)
	if from >= grid.Slots() {
		ws, from = ws.Add(Period), from-grid.Slots()
	}
	out := make([]Planned, len(list))
	for i, f := range list {
		p := Planned{Feed: f, Model: models[i], PollsPerWeek: alloc[i], Slots: plan[i]}
		if !f.LastFetch.IsZero() && len(plan[i]) > 0 {
			// The week from now, from where the feed's last poll left it:
			// nothing is owed, the first poll comes as early as the
			// postings waiting since then call for.
			last := grid.SlotOf(ws, f.LastFetch)
			for _, s := range Continue(models[i], grid, plan[i], from, last, int(f.MaxInterval/grid.Step)) {
				p.Next = append(p.Next, ws.Add(time.Duration(s)*grid.Step))
			}
			out[i] = p
			continue
		}
		for _, week := range []time.Time{ws.Add(-Period), ws, ws.Add(Period)} {
			for _, s := range plan[i] {
				switch t := week.Add(time.Duration(s) * grid.Step); {
				case t.Before(now):
					p.Last = t
				case t.Before(now.Add(Period)):
					p.Next = append(p.Next, t)
				}
			}
		}
		out[i] = p
	}
	return out, nil
}

// savedPlan is one feed's plan as a poller stored it (tail "p/<id>").
type savedPlan struct {
	Made         time.Time   `json:"made"`
	Model        Model       `json:"model"`
	PollsPerWeek int         `json:"polls_per_week"`
	Slots        []int       `json:"slots"`
	Last         time.Time   `json:"last,omitzero"`
	Next         []time.Time `json:"next"`
}

// SavePlans stores the plan a poller made at made and follows, one record
// per feed in one batch, so that `deltaq feeds explain` shows the poller's
// own plan rather than one of its own making.
func (s *Store) SavePlans(ctx context.Context, made time.Time, plans []Planned) error {
	b := s.db.NewBatch(ctx)
	defer b.Close()
	for _, p := range plans {
		v, err := encode(savedPlan{Made: made, Model: p.Model, PollsPerWeek: p.PollsPerWeek, Slots: p.Slots, Last: p.Last, Next: p.Next})
		if err != nil {
			return err
		}
		if err := b.PutBucket(Bucket, "p/"+p.Feed.ID, v); err != nil {
			return err
		}
	}
	return b.Commit()
}

// SavedPlan returns feed f's plan as a poller last stored it and when it
// was made; ok is false when no poller has planned f.
func (s *Store) SavedPlan(f Feed) (p Planned, made time.Time, ok bool, err error) {
	v, err := s.db.Bucket(Bucket, "p/"+f.ID)
	if errors.Is(err, repo.ErrNotFound) {
		return Planned{}, time.Time{}, false, nil
	}
	if err != nil {
		return Planned{}, time.Time{}, false, err
	}
	var sp savedPlan
	if err := decode(v, &sp); err != nil {
		return Planned{}, time.Time{}, false, fmt.Errorf("feeds: plan of %s: %w", f.ID, err)
	}
	return Planned{Feed: f, Model: sp.Model, PollsPerWeek: sp.PollsPerWeek, Slots: sp.Slots, Last: sp.Last, Next: sp.Next}, sp.Made, true, nil
}
