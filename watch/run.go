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
// A failed check (an unreachable page, an error status, a body that is
// not a page) is logged and told to the planner, which backs off before
// the page is tried again; repository errors end the loop.
func (e *Engine) Run(ctx context.Context, p *UrgencyPlanner, ro RunOptions) error {
	t := time.NewTicker(ro.Tick)
	defer t.Stop()
	for {
		if err := e.runTick(ctx, p, ro); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// runTick is one pass of Run: refresh the planner's groups, check the
// ones it picks at the engine's now, and send the digests that are due.
func (e *Engine) runTick(ctx context.Context, p *UrgencyPlanner, ro RunOptions) error {
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
			p.Failed(key, e.now())
			e.logger.Warn("check failed", "url", res.URL, "failures", p.Failures(key), "err", err)
			continue
		}
		p.Checked(key, e.now())
		if res.TextCut != nil {
			e.logger.Warn("page text cut", "url", res.URL, "err", res.TextCut)
		}
		if res.Fired > 0 && ro.Fired != nil {
			ro.Fired()
		}
	}
	if n, err := e.FlushDigests(ctx); err != nil {
		return err
	} else if n > 0 && ro.Fired != nil {
		ro.Fired()
	}
	return nil
}
