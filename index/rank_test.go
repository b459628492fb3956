package index

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
)

// TestRankerIsBlevesFullRanking checks, on digitalgov week 0 after
// Compact, that Ranker.Rank returns every hit of the search a user's query
// runs with Bleve's own scores in (score, URL) order, and that
// ConjunctionScore reproduces each score from the page's term counts,
// under both scoring models.
func TestRankerIsBlevesFullRanking(t *testing.T) {
	for _, s := range []Scoring{ScoringBM25, ScoringTFIDF} {
		t.Run(string(s), func(t *testing.T) {
			fx := week0Index(t, s)
			ix := fx.ix
			ctx := context.Background()
			if err := ix.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			rk, err := ix.Ranker()
			if err != nil {
				t.Fatal(err)
			}
			defer rk.Close()
			st := rk.Stats()
			byURL := map[string]int{}
			for i, p := range fx.c.pages {
				byURL[p.URL] = i
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(s))))
			queries, hits := 0, 0
			for queries < 40 {
				p := fx.c.pages[rng.IntN(len(fx.c.pages))]
				words := strings.Fields(p.Text)
				if len(words) < 10 {
					continue
				}
				text := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
				tokens := ix.Analyzer().Analyze([]byte(text))
				if len(tokens) != 2 {
					continue
				}
				queries++
				q := Query{Terms: []string{text}}
				got, err := rk.Rank(ctx, q, nil)
				if err != nil {
					t.Fatal(err)
				}
				bq, err := bleveQuery(q, ix.Analyzer())
				if err != nil {
					t.Fatal(err)
				}
				res, err := ix.bleve().Search(bleve.NewSearchRequestOptions(bq, 100000, 0, false))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(res.Hits) || len(got) == 0 {
					t.Fatalf("%q: %d ranked, Bleve %d hits", text, len(got), len(res.Hits))
				}
				want := map[string]float64{}
				for _, h := range res.Hits {
					want[h.ID] = h.Score
				}
				var dfs []uint64
				withReader(t, ix, func(r bindex.IndexReader) {
					for _, tok := range tokens {
						dfs = append(dfs, must[uint64](t)(docFreq(ctx, r, string(tok.Term))))
					}
				})
				weights := ConjunctionWeights(st, dfs, nil)
				for i, r := range got {
					if w, ok := want[r.URL]; !ok || !approx(r.Score, w, 1e-12) {
						t.Fatalf("%q: %s scored %v, Bleve %v (hit %v)", text, r.URL, r.Score, w, ok)
					}
					if i > 0 && cmp.Or(cmp.Compare(got[i-1].Score, r.Score), cmp.Compare(r.URL, got[i-1].URL)) < 0 {
						t.Fatalf("%q: rank %d out of order", text, i)
					}
					page := fx.c.pages[byURL[r.URL]]
					all := ix.Analyzer().Analyze([]byte(IndexedText(page.Title, page.Text)))
					tfs := make([]uint64, len(tokens))
					for _, a := range all {
						for k, tok := range tokens {
							if string(a.Term) == string(tok.Term) {
								tfs[k]++
							}
						}
					}
					if c := ConjunctionScore(tfs, len(all), st, dfs, weights); !approx(c, r.Score, 1e-9) {
						t.Errorf("%q: %s: ConjunctionScore %.15g, Bleve %.15g", text, r.URL, c, r.Score)
					}
					hits++
				}
			}
			if hits < 100 {
				t.Fatalf("only %d hits over %d queries", hits, queries)
			}
		})
	}
}

// TestMergeOnlyOnCompact checks that with Options.MergeOnlyOnCompact every
// batch stays its own segment (so the statistics a batch is measured
// with depend on the batches alone, not on a background merge) until
// Compact merges them into one.
func TestMergeOnlyOnCompact(t *testing.T) {
	db := openRepo(t, tempDir(t, "repo"))
	ix := openIndex(t, tempDir(t, "index"), testConfig(ScoringBM25), db, Options{MergeOnlyOnCompact: true})
	const batches = 24 // more than a merge tier holds (MaxSegmentsPerTier 10)
	for i := range batches {
		putPages(t, db, t0, page{URL: fmt.Sprintf("http://a.test/%d", i), Title: "t", Text: fmt.Sprintf("word%d shared", i)})
		catchUp(t, ix)
	}
	segments := func() int {
		t.Helper()
		r, err := reader(ix.bleve())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		snap, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			t.Fatalf("reader is a %T, not a scorch snapshot", r)
		}
		return len(snap.Segments())
	}
	if got := segments(); got != batches {
		t.Errorf("%d segments after %d batches, want one per batch", got, batches)
	}
	if err := ix.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := segments(); got != 1 {
		t.Errorf("%d segments after Compact, want 1", got)
	}
	if n, err := ix.Count(); err != nil || n != batches {
		t.Errorf("Count = %d, %v after Compact; want %d", n, err, batches)
	}
}
