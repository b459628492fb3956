package index

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// TestBestMatchesIsExhaustiveScoring checks MaxScore against scoring every
// page (accumulate, then sortBest) on digitalgov week 0, for random
// queries of 1 to 40 words drawn from the pages' own words (common ones
// as often as they occur, rare ones uniformly), each also expanded by RM3
// as the searcher expands long queries, at depths from 1 to 1,000: the
// same pages with the same scores (bit for bit) and words, ties included.
func TestBestMatchesIsExhaustiveScoring(t *testing.T) {
	ix := week0WithRM3(t)
	rng := rand.New(rand.NewPCG(13, 5))
	var compared, pruned, ties int
	err := ix.withSnapshot(func(r bindex.IndexReader, m mapping.IndexMapping) error {
		st, err := ix.snapText(t.Context(), r)
		if err != nil {
			return err
		}
		check := func(q string, p *matchPlan) error {
			all, err := ix.accumulate(t.Context(), r, st, p, nil)
			if err != nil {
				return err
			}
			for _, k := range []int{1, 5, 10, 200, 1000} {
				want := sortBest(slices.Clone(all), min(k, len(all)))
				got, err := ix.bestMatches(t.Context(), st, p, k, nil)
				if err != nil {
					return err
				}
				slices.SortFunc(got, compareCandidates)
				if !slices.Equal(got, want) {
					t.Fatalf("%q (%d words), k = %d: pruned %d pages, want %d of %d\ngot  %v\nwant %v", q, len(p.terms), k, len(got), len(want), len(all), got[:min(5, len(got))], want[:min(5, len(want))])
				}
				compared++
				if k < len(all) {
					pruned++
					if last := want[len(want)-1]; slices.ContainsFunc(all, func(c candidate) bool { return c.score == last.score && c.doc > last.doc }) {
						ties++ // a page tied with the k-th lost on its number
					}
				}
			}
			return nil
		}
		return eachRandomQuery(t, ix, r, m, st, rng, 150, check)
	})
	if err != nil {
		t.Fatal(err)
	}
	if pruned < 500 || ties == 0 {
		t.Fatalf("%d comparisons, %d with fewer pages than match, %d with a tie at the cut: too few to tell", compared, pruned, ties)
	}
	t.Logf("%d comparisons, %d with fewer pages than match, %d with a tie at the cut", compared, pruned, ties)
}

// eachRandomQuery plans n random queries of 1 to 40 of st's words (common
// ones as often as they occur, rare ones uniformly) with every word
// optional, and calls check with each, then with it expanded by RM3 as the
// searcher expands long queries. Queries the syntax or the planner refuse
// are skipped, and so are those bestMatches may not take (a word read as a
// filter, such as site: or -word).
func eachRandomQuery(t *testing.T, ix *Index, r bindex.IndexReader, m mapping.IndexMapping, st *snapText, rng *rand.Rand, n int, check func(q string, p *matchPlan) error) error {
	for range n {
		var words []string
		for range 1 + rng.IntN(40) {
			if rng.IntN(2) == 0 { // by occurrence: common words
				j := uint32(rng.IntN(len(st.post)))
				t, _ := slices.BinarySearch(st.termAt, j+1)
				words = append(words, st.terms[t-1])
			} else {
				words = append(words, st.terms[rng.IntN(len(st.terms))])
			}
		}
		q, err := ParseQuery(strings.Join(words, " "), ix.cfg.Limits())
		if err != nil {
			continue // beyond the syntax's limits
		}
		p, err := ix.planQuery(t.Context(), r, m, st, q, nil)
		if err != nil {
			continue // only stop words
		}
		p.required = 1
		if !ix.prunable(p, st) {
			continue
		}
		if err := check(q.String(), p); err != nil {
			return err
		}
		cands, err := ix.accumulate(t.Context(), r, st, p, nil)
		if err != nil {
			return err
		}
		ix.expand(st, p, cands)
		if err := check(q.String()+" (RM3)", p); err != nil {
			return err
		}
	}
	return nil
}

// week0WithRM3 is the digitalgov week 0 index with RM3 as
// configs/default.yaml sets it (the tests' configuration has none), until
// the test ends.
func week0WithRM3(t *testing.T) *Index {
	ix := week0Index(t, ScoringBM25).ix
	saved := ix.cfg.Retrieval
	t.Cleanup(func() { ix.cfg.Retrieval = saved })
	ix.cfg.Retrieval.FeedbackDocs, ix.cfg.Retrieval.FeedbackTerms, ix.cfg.Retrieval.FeedbackWeight = 5, 20, 0.5
	return ix
}
