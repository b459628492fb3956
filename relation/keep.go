package relation

import (
	"context"
	"log/slog"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
)

// Keeper syncs every relation of a store on a schedule while a serving
// process runs (deltaq serve and run): what `deltaq relation sync` does on
// demand, which cannot run beside them, as they hold the repository. A
// relation is due Every after its last sync, or after the keeper's last
// attempt, whichever is later (a source that is down is tried again Every
// later, not at once); a relation never synced is due at once.
type Keeper struct {
	Store *Store
	Every time.Duration
	Sync  SyncOptions
	// Client returns the client of a relation's source. One client serves
	// a relation for the keeper's life, so its quota spacing and robots.txt
	// rules carry from one sync to the next.
	Client func(Definition) (*Client, error)
	Clock  clock.Clock  // nil: the wall clock
	Logger *slog.Logger // nil: discard
}

// Run syncs the relations that are due, then waits for the next one due
// (reading the relations again at least every Every), until ctx ends. A
// sync that fails is logged and tried again when next due; only a failure
// to read the store ends Run.
func (k *Keeper) Run(ctx context.Context) error {
	clk := k.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	logger := k.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	attempted := map[string]time.Time{}
	clients := map[string]*Client{}
	for {
		defs, err := k.Store.List(ctx)
		if err != nil {
			return err
		}
		next := clk.Now().Add(k.Every)
		for _, def := range defs {
			st, err := k.Store.state(def.Name)
			if err != nil {
				return err
			}
			due := Due(clock.Later(st.LastSync, attempted[def.Name]), k.Every)
			if due.After(clk.Now()) {
				next = clock.Earlier(next, due)
				continue
			}
			k.syncOne(ctx, clk, logger, def, clients)
			if err := ctx.Err(); err != nil {
				return err
			}
			attempted[def.Name] = clk.Now()
			next = clock.Earlier(next, attempted[def.Name].Add(k.Every))
		}
		if err := clk.WaitUntil(ctx, next); err != nil {
			return err
		}
	}
}

// Due is when a relation last synced (or tried) at last is due again under
// a sync interval every: the zero time, at once, if it never was.
func Due(last time.Time, every time.Duration) time.Time {
	if last.IsZero() {
		return time.Time{}
	}
	return last.Add(every)
}

// syncOne syncs one relation and logs what it did.
func (k *Keeper) syncOne(ctx context.Context, clk clock.Clock, logger *slog.Logger, def Definition, clients map[string]*Client) {
	cl, ok := clients[def.Name]
	if !ok {
		var err error
		if cl, err = k.Client(def); err != nil {
			logger.Warn("relation: sync", "relation", def.Name, "err", err)
			return
		}
		clients[def.Name] = cl
	}
	start := clk.Now()
	rep, err := Sync(ctx, k.Store, cl, def.Name, start.UTC(), k.Sync)
	attrs := []any{"relation", def.Name, "took", clk.Now().Sub(start).Round(time.Millisecond)}
	if rep != nil {
		attrs = append(attrs, "requests", rep.Requests, "read", rep.Reached, "changed", rep.Changed, "missing", rep.Missing, "failed", rep.FailedFetches, "no_total", rep.NoTotal)
	}
	if err != nil {
		logger.Warn("relation: sync", append(attrs, "err", err)...)
		return
	}
	logger.Info("relation: sync", attrs...)
}
