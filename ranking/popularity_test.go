package ranking

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/repo"
)

// batchLog records the batches RefreshPopularity re-indexes.
type batchLog struct{ batches [][]string }

func (l *batchLog) RefreshPopularity(_ context.Context, urls []string) (index.Stats, error) {
	l.batches = append(l.batches, slices.Clone(urls))
	return index.Stats{Indexed: len(urls)}, nil
}

func TestRefreshPopularityReindexesEveryIndexablePageInBatches(t *testing.T) {
	db, s := openStore(t, testConfig(), nil)
	at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	b := db.NewBatch(t.Context())
	n := refreshBatch + 3
	for i := range n {
		u := fmt.Sprintf("http://a.test/%05d", i)
		b.PutPage(&repo.Page{URL: u, State: repo.StateLive, Version: at})
	}
	b.PutPage(&repo.Page{URL: "http://a.test/gone", State: repo.StateGone, Version: at})
	b.PutPage(&repo.Page{URL: "http://a.test/noindex", State: repo.StateLive, Version: at, NoIndex: true})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	setLinks(t, db, map[string][]string{"http://a.test/00000": {"http://a.test/00001"}})
	var ix batchLog
	if err := s.RefreshPopularity(t.Context(), &ix); err != nil {
		t.Fatal(err)
	}
	if len(ix.batches) != 2 || len(ix.batches[0]) != refreshBatch || len(ix.batches[1]) != 3 {
		t.Fatalf("batches of %d pages, want %d then 3", lens(ix.batches), refreshBatch)
	}
	for _, bt := range ix.batches {
		if slices.Contains(bt, "http://a.test/gone") || slices.Contains(bt, "http://a.test/noindex") {
			t.Fatal("a page that is not indexable was re-indexed")
		}
	}
	if _, err := s.PageRankInfo(); err != nil {
		t.Fatalf("PageRank was not computed first: %v", err)
	}
	if p, err := s.Popularity(t.Context(), "http://a.test/00001"); err != nil || p <= 0 {
		t.Fatalf("popularity of a linked page = %v, %v; want its PageRank > 0", p, err)
	}
}

func TestPopularityReturnsItsErrors(t *testing.T) {
	_, s := openStore(t, testConfig(), nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if p, err := s.Popularity(ctx, "http://a.test/"); err == nil {
		t.Fatalf("Popularity with a cancelled context = %v, nil; want the error, not a silent 0", p)
	}
}

func lens(bs [][]string) []int {
	var out []int
	for _, b := range bs {
		out = append(out, len(b))
	}
	return out
}
