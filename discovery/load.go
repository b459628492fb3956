package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Load rebuilds the OD-WIN statistics from the discovery yields stored in
// the repository. Record needs each site's yields in time order, and the
// repository keeps one host's pages together (SURT order), so Load reads
// one host at a time, sorts that host's yields and feeds them: memory is
// bounded by the yields of the largest host (its pages times
// repo.stats_kept), not by the whole repository.
func Load(ctx context.Context, db *repo.DB, cfg Config, period time.Duration, logger *slog.Logger) (*Stats, error) {
	stats, err := NewStats(cfg, period, logger)
	if err != nil {
		return nil, err
	}
	type rec struct {
		x string
		y repo.DiscoveryYield
	}
	var host string
	var batch []rec
	flush := func() error {
		slices.SortStableFunc(batch, func(a, b rec) int { return a.y.At.Compare(b.y.At) })
		for _, r := range batch {
			if err := stats.Record(r.x, r.y); err != nil {
				return err
			}
		}
		batch = batch[:0]
		return nil
	}
	for p, err := range db.Pages(ctx) {
		if err != nil {
			return nil, fmt.Errorf("discovery: load: %w", err)
		}
		if h := urlnorm.Host(p.URL); h != host {
			if err := flush(); err != nil {
				return nil, err
			}
			host = h
		}
		ys, err := db.DiscoveryYields(ctx, p.URL)
		if err != nil {
			return nil, fmt.Errorf("discovery: load %s: %w", p.URL, err)
		}
		for _, y := range ys {
			batch = append(batch, rec{p.URL, y})
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return stats, nil
}
