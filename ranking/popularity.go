package ranking

import (
	"context"
	"fmt"

	"github.com/deltaq/deltaq/index"
)

// refreshBatch is how many URLs one RefreshPopularity call re-indexes, so
// the list of indexable pages is never held whole and indexing of new
// fetches can interleave.
const refreshBatch = 1024

// PopularityIndex is the index whose popularity field follows the Store;
// *index.Index implements it.
type PopularityIndex interface {
	RefreshPopularity(ctx context.Context, urls []string) (index.Stats, error)
}

// Popularity is a page's popularity from the configured source
// (ranking.popularity): what the index stores in its popularity field
// (index.Options.Popularity).
func (s *Store) Popularity(ctx context.Context, url string) (float64, error) {
	st, err := s.Lookup(ctx, []string{url})
	if err != nil {
		return 0, fmt.Errorf("ranking: popularity of %s: %w", url, err)
	}
	return PopularityOf(st[0], s.popularity), nil
}

// RefreshPopularity recomputes PageRank over the crawled link graph, then
// re-indexes the popularity field of every indexable page (§5.3), in
// batches of refreshBatch pages; with a nil index it only computes
// PageRank.
func (s *Store) RefreshPopularity(ctx context.Context, ix PopularityIndex) error {
	if _, err := s.ComputePageRank(ctx); err != nil {
		return err
	}
	if ix == nil {
		return nil
	}
	urls := make([]string, 0, refreshBatch)
	flush := func() error {
		if len(urls) == 0 {
			return nil
		}
		_, err := ix.RefreshPopularity(ctx, urls)
		urls = urls[:0]
		if err != nil {
			return fmt.Errorf("ranking: refresh popularity: %w", err)
		}
		return nil
	}
	for p, err := range s.db.Pages(ctx) {
		if err != nil {
			return fmt.Errorf("ranking: refresh popularity: %w", err)
		}
		if !p.Indexable() {
			continue
		}
		if urls = append(urls, p.URL); len(urls) == refreshBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
