package feeds

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Planned is one feed's schedule for the week: what was learned, its polls
// per week (Thm. 1) and their times (Thm. 3).
type Planned struct {
	Feed         Feed
	Model        Model
	PollsPerWeek int
	Slots        []int       // grid slots from Monday 00:00 UTC
	Next         []time.Time // the planned polls from now on, one week's worth
}

// PlanAll learns every feed's model from its stored posting history over
// the feeds.learn_window before now and plans the week: feeds.polls_per_day
// per feed on average, spread by the square-root rule within each feed's own
// interval bounds, placed by the fixed-point rule.
func PlanAll(cfg Config, list []Feed, now time.Time, rng *rand.Rand) ([]Planned, error) {
	if len(list) == 0 {
		return nil, nil
	}
	grid, err := NewGrid(cfg.Step)
	if err != nil {
		return nil, err
	}
	history := make([][]time.Time, len(list))
	weights := make([]float64, len(list))
	bounds := make([]Bounds, len(list))
	floors := 0
	for i, f := range list {
		history[i], weights[i] = f.History, f.Weight
		if bounds[i], err = BoundsFor(f.MinInterval, f.MaxInterval); err != nil {
			return nil, fmt.Errorf("feeds: %s: %w", f.URL, err)
		}
		floors += bounds[i].Min
	}
	models, _ := LearnAll(cfg, history, now.Add(-cfg.LearnWindow), now, rng)
	rates := make([]float64, len(models))
	for i, m := range models {
		rates[i] = m.Rate
	}
	total := max(floors, int(cfg.PollsPerDay*7*float64(len(list))+0.5))
	alloc, err := SqrtAllocation(total, weights, rates, bounds)
	if err != nil {
		return nil, err
	}
	ws := now.UTC().Truncate(24 * time.Hour)
	ws = ws.AddDate(0, 0, -((int(ws.Weekday()) + 6) % 7)) // Monday 00:00 UTC
	out := make([]Planned, len(list))
	for i, f := range list {
		slots := Place(models[i], grid, alloc[i], cfg.Starts)
		p := Planned{Feed: f, Model: models[i], PollsPerWeek: alloc[i], Slots: slots}
		for _, week := range []time.Time{ws, ws.Add(Period)} {
			for _, s := range slots {
				if t := week.Add(time.Duration(s) * grid.Step); !t.Before(now) && t.Before(now.Add(Period)) {
					p.Next = append(p.Next, t)
				}
			}
		}
		out[i] = p
	}
	return out, nil
}
