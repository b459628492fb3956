package index

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// bleveTermScores runs the term query on FieldText the way a user's search
// would and returns every hit's score and Explain value by URL, and the
// scores in Bleve's result order.
func bleveTermScores(t *testing.T, bi bleve.Index, term string) (byURL map[string][2]float64, ordered []float64) {
	t.Helper()
	tq := query.NewTermQuery(term)
	tq.SetField(FieldText)
	req := bleve.NewSearchRequestOptions(tq, 100000, 0, true)
	res, err := bi.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	byURL = make(map[string][2]float64, len(res.Hits))
	for _, h := range res.Hits {
		byURL[h.ID] = [2]float64{h.Score, h.Expl.Value}
		ordered = append(ordered, h.Score)
	}
	return byURL, ordered
}

func withReader(t *testing.T, ix *Index, fn func(r bindex.IndexReader)) {
	t.Helper()
	adv, err := ix.bleve().Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fn(r)
}

func currentStats(t *testing.T, ix *Index) (st CorpusStats) {
	t.Helper()
	withReader(t, ix, func(r bindex.IndexReader) {
		var err error
		if st, err = ix.readerStats(r); err != nil {
			t.Fatal(err)
		}
	})
	return st
}

// stableSearch runs fn, a search, between two reads of the corpus
// statistics and returns them once they agree. Under BM25 Bleve's average
// field length is the text field's vocabulary summed over segments, which
// drops when a background merge finishes; with no writes, equal
// statistics before and after the search are the statistics it used.
func stableSearch(t *testing.T, ix *Index, fn func()) CorpusStats {
	t.Helper()
	for range 100 {
		before := currentStats(t, ix)
		fn()
		if currentStats(t, ix) == before {
			return before
		}
	}
	t.Fatal("the index never stopped merging")
	return CorpusStats{}
}

// TestScorerEqualsBleve checks S(page, q) of the scorer against Bleve's own
// score (the search hit's score and its Explain value) for hundreds of
// (page, term) pairs of digitalgov week 0, under both scoring models. The
// scorer's inputs are what the measurement has: the term's tf and the
// field's length from the analyzer, the term's df and the corpus
// statistics.
func TestScorerEqualsBleve(t *testing.T) {
	for _, s := range []Scoring{ScoringBM25, ScoringTFIDF} {
		t.Run(string(s)+" scores equal Bleve's", func(t *testing.T) {
			fx := week0Index(t, s)
			ix := fx.ix
			rng := rand.New(rand.NewPCG(42, uint64(len(s))))
			type pair struct {
				url    string
				tf     uint64
				length int
			}
			byTerm := map[string][]pair{}
			npairs := 0
			for _, i := range rng.Perm(len(fx.c.pages))[:80] {
				p := fx.c.pages[i]
				tokens := ix.Analyzer().Analyze([]byte(IndexedText(p.Title, p.Text)))
				tf := map[string]uint64{}
				for _, tok := range tokens {
					tf[string(tok.Term)]++
				}
				terms := make([]string, 0, len(tf))
				for term := range tf {
					terms = append(terms, term)
				}
				slices.Sort(terms)
				rng.Shuffle(len(terms), func(a, b int) { terms[a], terms[b] = terms[b], terms[a] })
				for _, term := range terms[:min(5, len(terms))] {
					byTerm[term] = append(byTerm[term], pair{p.URL, tf[term], len(tokens)})
					npairs++
				}
			}
			if npairs < 300 {
				t.Fatalf("only %d pairs", npairs)
			}
			for term, pairs := range byTerm {
				var hits map[string][2]float64
				st := stableSearch(t, ix, func() { hits, _ = bleveTermScores(t, ix.bleve(), term) })
				if s == ScoringBM25 && st.AvgFieldLength <= 0 || s == ScoringTFIDF && st.AvgFieldLength != 0 {
					t.Fatalf("corpus stats %+v do not select %s", st, s)
				}
				var df uint64
				withReader(t, ix, func(r bindex.IndexReader) { df = must[uint64](t)(docFreq(context.Background(), r, term)) })
				if uint64(len(hits)) != df {
					t.Fatalf("%q: %d hits, df %d", term, len(hits), df)
				}
				{
					for _, p := range pairs {
						got := TermScore(p.tf, p.length, st, df)
						h, ok := hits[p.url]
						if !ok {
							t.Fatalf("%q: %s not among Bleve's hits", term, p.url)
						}
						if !approx(got, h[0], 1e-9) || !approx(got, h[1], 1e-9) {
							t.Errorf("S(%s, %q) = %.15g; Bleve score %.15g, explain %.15g", p.url, term, got, h[0], h[1])
						}
					}
				}
			}
			t.Logf("%d (page, term) pairs over %d terms", npairs, len(byTerm))
		})
	}
}

// TestHistogramScoresAreBleveRanking checks that the scores H_q is built
// from, computed by the scorer from the term's postings, are exactly the
// scores of Bleve's result list for the term query, in Bleve's order.
func TestHistogramScoresAreBleveRanking(t *testing.T) {
	for _, s := range []Scoring{ScoringBM25, ScoringTFIDF} {
		t.Run(string(s)+" postings scores are Bleve's result list", func(t *testing.T) {
			fx := week0Index(t, s)
			terms := []string{"accessibl", "budget", "feder", "plain", "languag", "design", "usabl", "data", "govern", "zoom", "a11y", "section", "508"}
			total := 0
			for _, term := range terms {
				var want []float64
				st := stableSearch(t, fx.ix, func() { _, want = bleveTermScores(t, fx.ix.bleve(), term) })
				var got []float64
				withReader(t, fx.ix, func(r bindex.IndexReader) {
					got = must[[]float64](t)(termScores(context.Background(), r, st, term, nil))
				})
				{
					if len(got) != len(want) {
						t.Fatalf("%q: %d postings, %d hits", term, len(got), len(want))
					}
					total += len(got)
					for i := range got {
						if !approx(got[i], want[i], 1e-9) {
							t.Fatalf("%q rank %d: postings score %.15g, Bleve %.15g", term, i+1, got[i], want[i])
						}
					}
				}
			}
			if total < 1000 {
				t.Fatalf("only %d results over %d terms: the terms are not in the corpus", total, len(terms))
			}
		})
	}
}

// TestAnalysisSurvivesTheBatch verifies in the running code what was read
// in Bleve's source: after Index.Batch, the *document.Document passed to
// Batch.IndexAdvanced still carries Bleve's analysis of FieldText, and it
// is the analysis that was indexed (length and frequencies equal the
// postings' norm and freq).
func TestAnalysisSurvivesTheBatch(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{})
	doc, err := newDocument(ix.Mapping(), &pageDoc{URL: "https://a.test/x", Title: "Budget report", Text: "The budget, the budgets and budgeting."})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := analyzedText(doc); ok {
		t.Fatal("the document is analyzed before the batch")
	}
	b := ix.bleve().NewBatch()
	if err := b.IndexAdvanced(doc); err != nil {
		t.Fatal(err)
	}
	if err := ix.bleve().Batch(b); err != nil {
		t.Fatal(err)
	}
	length, freqs, ok := analyzedText(doc)
	if !ok {
		t.Fatal("no analysis after the batch")
	}
	// "Budget report\n\nThe budget, the budgets and budgeting." analyzes to
	// budget report budget budget budget: stop words removed, stems merged.
	if length != 5 || freqs["budget"].Frequency() != 4 || freqs["report"].Frequency() != 1 {
		t.Fatalf("length %d, freqs budget=%d report=%d", length, freqs["budget"].Frequency(), freqs["report"].Frequency())
	}
	withReader(t, ix, func(r bindex.IndexReader) {
		tfr, err := r.TermFieldReader(context.Background(), []byte("budget"), FieldText, true, true, false)
		if err != nil {
			t.Fatal(err)
		}
		defer tfr.Close()
		p, err := tfr.Next(nil)
		if err != nil || p == nil {
			t.Fatalf("posting: %v %v", p, err)
		}
		if p.Freq != 4 || p.Norm != fieldNorm(length) {
			t.Fatalf("posting freq %d norm %v; analysis gives %d and %v", p.Freq, p.Norm, 4, fieldNorm(length))
		}
	})
}
