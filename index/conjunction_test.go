package index

import (
	"cmp"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
)

// TestIntersectionIsTheCoordinatedUnion checks the shortcut for short
// queries against what it replaces: accumulating every page with any of
// the words, then keeping those with all of them when at least
// min_results do. On the trec-mq queries over digitalgov week 0 both must
// give the same pages with the same score bits, and the shortcut must
// have answered some of them (most short trec-mq queries fall back to the
// union: fewer than min_results pages have all their words).
func TestIntersectionIsTheCoordinatedUnion(t *testing.T) {
	fx := week0Index(t, ScoringBM25)
	ix := fx.ix
	cfg := ix.cfg.Retrieval
	qs, err := querylog.Load(datasets.Path(t, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		t.Fatal(err)
	}
	byDoc := func(a, b candidate) int { return cmp.Compare(a.doc, b.doc) }
	short, taken := 0, 0
	err = ix.withSnapshot(func(r bindex.IndexReader, m mapping.IndexMapping) error {
		st, err := ix.snapText(t.Context(), r)
		if err != nil {
			return err
		}
		for _, qq := range qs[:300] {
			q, err := ParseQuery(qq.Text, ix.cfg.Limits())
			if err != nil {
				continue
			}
			p, err := ix.planQuery(t.Context(), r, m, st, q, nil)
			if err != nil || len(p.terms) < 2 || len(p.terms) > cfg.ShortQueryTerms {
				continue
			}
			short++
			want, err := ix.accumulate(t.Context(), r, st, p, nil)
			if err != nil {
				return err
			}
			all := slices.DeleteFunc(slices.Clone(want), func(c candidate) bool { return popcount(c.matched) < p.required })
			if len(all) >= cfg.MinResults {
				want = all
			}
			if got := ix.intersection(st, p, nil); len(got) >= cfg.MinResults {
				taken++
			}
			got, err := ix.candidates(t.Context(), r, st, p, nil)
			if err != nil {
				return err
			}
			slices.SortFunc(want, byDoc)
			slices.SortFunc(got, byDoc)
			if !slices.Equal(got, want) {
				t.Errorf("%q: %d candidates, want %d (or different scores)", qq.Text, len(got), len(want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if short < 100 || taken < 20 {
		t.Fatalf("%d short queries, the intersection answered %d", short, taken)
	}
	t.Logf("%d short queries, the intersection answered %d", short, taken)
}
