package watch

import (
	"context"
	"time"
)

// RunOptions pace the stand-alone check loop.
type RunOptions struct {
	// Tick is how often the loop asks the planner what to check.
	Tick time.Duration
	// Budget is the most group checks per tick (the fetches the monitor
	// class may spend; WIC's C per instant).
	Budget int
	// Fired is called after a check that queued notifications (to wake
	// the delivery service); nil for none.
	Fired func()
}

// Run checks what the planner picks, tick after tick, until ctx is done.
// A failed check (an unreachable page) is logged and retried when the
// planner next picks it; repository errors end the loop.
func (e *Engine) Run(ctx context.Context, p *UrgencyPlanner, ro RunOptions) error {
	t := time.NewTicker(ro.Tick)
	defer t.Stop()
	for {
		groups, err := e.Groups(ctx)
		if err != nil {
			return err
		}
		p.Refresh(groups)
		for _, key := range p.Next(e.now(), ro.Budget) {
			res, err := e.Check(ctx, key)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				e.logger.Warn("check failed", "url", res.URL, "err", err)
			}
			p.Checked(key, e.now())
			if res.Fired > 0 && ro.Fired != nil {
				ro.Fired()
			}
		}
		if n, err := e.FlushDigests(ctx); err != nil {
			return err
		} else if n > 0 && ro.Fired != nil {
			ro.Fired()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
