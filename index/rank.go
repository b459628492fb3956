package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"
)

// This file serves evaluations that need whole result lists rather than a
// page of them: A(q, W^L) of thesis §4.2.1, the local repository's answer
// to q, is every matching page in relevance order, and the repository
// quality Q(W^L) of eq. 4.5 weighs every rank of it. Search and Retrieve
// build hits with stored fields (and snippets) for a page of results; a
// Ranker instead ranks whole lists over one index snapshot and keeps only
// each hit's URL and score: Rank with Bleve's own searcher and scores
// (bleveQuery: the terms analyzed and ANDed, what ΔQ's S(p, q) is defined
// on), Match as the searcher ranks (match.go).

// Ranked is one page of a full ranking.
type Ranked struct {
	URL   string
	Score float64 // Bleve's relevance score
}

// Ranker ranks queries on one snapshot of the index: every Rank call sees
// the same documents and the same corpus statistics. It is not safe for
// concurrent use; Close it before closing the index.
type Ranker struct {
	r       bindex.IndexReader
	m       mapping.IndexMapping
	ix      *Index
	st      CorpusStats
	urls    []string // by internal document number; "" for none
	scratch []hit
	text    *snapText // the snapshot's text field, built by the first Match
	// bm25 are the statistics Bleve's searchers must use under an assumed
	// compaction (compact.go); nil: their own.
	bm25 *search.BM25Stats
}

type hit struct {
	doc   uint64
	score float64
}

// Ranker opens a snapshot of the index for ranking.
func (ix *Index) Ranker() (*Ranker, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.mu.bi == nil {
		return nil, ErrClosed
	}
	r, err := reader(ix.mu.bi)
	if err != nil {
		return nil, err
	}
	rk := &Ranker{r: r, m: ix.mu.bi.Mapping(), ix: ix}
	if rk.st, err = ix.readerStats(r); err != nil {
		r.Close()
		return nil, err
	}
	if rk.bm25, err = ix.bm25Stats(r); err != nil {
		r.Close()
		return nil, err
	}
	// Internal document numbers are dense over the snapshot's segments;
	// resolving each live one once makes a hit's URL a slice lookup.
	ids, err := r.DocIDReaderAll()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("index: ranker: %w", err)
	}
	defer ids.Close()
	for {
		id, err := ids.Next()
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("index: ranker: %w", err)
		}
		if id == nil {
			break
		}
		url, err := r.ExternalID(id)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("index: ranker: %w", err)
		}
		n := id.Value()
		if n >= uint64(len(rk.urls)) {
			rk.urls = slices.Grow(rk.urls, int(n+1)-len(rk.urls))[:n+1]
		}
		rk.urls[n] = url
	}
	return rk, nil
}

// Stats are the corpus statistics of the ranker's snapshot (N, and BM25's
// average field length as Bleve computes it from the segments).
func (rk *Ranker) Stats() CorpusStats { return rk.st }

// Len is the number of documents in the snapshot.
func (rk *Ranker) Len() uint64 { return rk.st.DocCount }

// Rank returns every page matching q, in Bleve's relevance order: score
// descending, ties by URL ascending (Bleve itself breaks ties by internal
// document number, which depends on how segments happened to merge; the
// URL makes the order a function of the index's content). Scores are the
// ones Search reports. The result is appended to dst[:0]. A query with no
// searchable words is a *QueryError, as in Search.
func (rk *Ranker) Rank(ctx context.Context, q Query, dst []Ranked) ([]Ranked, error) {
	dst = dst[:0]
	bq, err := bleveQuery(q, rk.ix.Analyzer())
	if err != nil {
		return dst, err
	}
	// As Bleve's SearchInContext does: term searchers pick the scoring
	// model (and so BM25's statistics) from this callback.
	model := string(scoringOf(rk.m))
	sctxValue := context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return model }))
	if rk.bm25 != nil {
		sctxValue = context.WithValue(sctxValue, search.BM25StatsKey, rk.bm25)
	}
	s, err := bq.Searcher(sctxValue, rk.r, rk.m, search.SearcherOptions{})
	if err != nil {
		return dst, fmt.Errorf("index: rank %q: %w", q.String(), err)
	}
	defer s.Close()
	sctx := &search.SearchContext{
		DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0),
		IndexReader:       rk.r,
	}
	hits := rk.scratch[:0]
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return dst, err
			}
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return dst, fmt.Errorf("index: rank %q: %w", q.String(), err)
		}
		if dm == nil {
			break
		}
		hits = append(hits, hit{doc: dm.IndexInternalID.Value(), score: dm.Score})
		sctx.DocumentMatchPool.Put(dm)
	}
	rk.scratch = hits
	for _, h := range hits {
		if h.doc >= uint64(len(rk.urls)) || rk.urls[h.doc] == "" {
			return dst, fmt.Errorf("index: rank %q: hit on document %d, which the snapshot does not list", q.String(), h.doc)
		}
		dst = append(dst, Ranked{URL: rk.urls[h.doc], Score: h.score})
	}
	slices.SortFunc(dst, func(a, b Ranked) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.URL, b.URL)
	})
	return dst, nil
}

// Close releases the snapshot.
func (rk *Ranker) Close() error {
	if err := rk.r.Close(); err != nil {
		return fmt.Errorf("index: close ranker: %w", err)
	}
	return nil
}

// Compact merges the index into a single segment and waits for it. Under
// BM25 Bleve's average field length is the text field's vocabulary summed
// over segments (scorer.go), so it depends on how background merges
// happened to go; after Compact it is the vocabulary of the live
// documents, as if the index had been built in one batch, and rankings and
// ΔQ_A measurements become a function of the indexed content alone. An
// evaluation that must be reproducible compacts between crawl rounds and
// opens the index with Options.MergeOnlyOnCompact.
func (ix *Index) Compact(ctx context.Context) error {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	bi := ix.bleve()
	if bi == nil {
		return ErrClosed
	}
	return CompactBleve(ctx, bi)
}

// CompactBleve merges a scorch Bleve index into a single segment and
// waits for it, as Compact does deltaq's. It is exported so that a bare
// Bleve index measured beside deltaq's is merged the same way.
func CompactBleve(ctx context.Context, bi bleve.Index) error {
	adv, err := bi.Advanced()
	if err != nil {
		return fmt.Errorf("index: compact: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return errors.New("index: compact: not a scorch index")
	}
	// Bleve's single-segment plan merges at most SegmentsPerMergeTask
	// segments per task, so a force merge can leave several; ask for all
	// of them in one task and repeat while more than one is left.
	for round := 0; ; round++ {
		n, err := segmentCount(sc)
		if err != nil || n <= 1 {
			return err
		}
		if round == 8 {
			return fmt.Errorf("index: compact: %d segments left after %d force merges", n, round)
		}
		opts := mergeplan.SingleSegmentMergePlanOptions
		opts.SegmentsPerMergeTask = max(opts.SegmentsPerMergeTask, n)
		if err := sc.ForceMerge(ctx, &opts); err != nil {
			return fmt.Errorf("index: compact: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// segmentCount is the number of segments in sc's current snapshot.
func segmentCount(sc *scorch.Scorch) (int, error) {
	r, err := sc.Reader()
	if err != nil {
		return 0, fmt.Errorf("index: compact: reader: %w", err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, fmt.Errorf("index: compact: reader is a %T", r)
	}
	return len(snap.Segments()), nil
}

// ConjunctionWeights returns the factor Bleve multiplies each term's score
// by inside a conjunction (a multi-term match query with the AND operator,
// scorer.go): idf_i·queryNorm with queryNorm = 1/√(Σ_j idf_j²), boost 1,
// for terms with document frequencies dfs (repeat a term that a query
// repeats: Bleve gives each token its own term query). dst is reused.
func ConjunctionWeights(st CorpusStats, dfs []uint64, dst []float64) []float64 {
	dst = dst[:0]
	var sum float64
	for _, df := range dfs {
		w := 1 * idf(st, df) // boost·idf, as TermQueryScorer.Weight
		sum += w * w
	}
	norm := 1.0 / math.Sqrt(sum)
	for _, df := range dfs {
		dst = append(dst, 1*idf(st, df)*norm)
	}
	return dst
}

// ConjunctionScore is S(p, q) of §4.2.1 for a query of several terms, as
// Bleve scores the query a search runs: Σ_i TermScore(tfs[i], fieldLength,
// st, dfs[i])·weights[i], weights from ConjunctionWeights. A page missing
// any term scores 0 (it is not a result).
func ConjunctionScore(tfs []uint64, fieldLength int, st CorpusStats, dfs []uint64, weights []float64) float64 {
	var sum float64
	for i, tf := range tfs {
		if tf == 0 {
			return 0
		}
		s := TermScore(tf, fieldLength, st, dfs[i])
		if weights[i] != 1.0 { // as TermQueryScorer.Score
			s *= weights[i]
		}
		sum += s
	}
	return sum
}

// Match ranks q as the searcher does (best match, match.go) on the
// ranker's snapshot: every qualifying page, best first, ties by URL, with
// the searcher's scores. The result is appended to dst[:0].
func (rk *Ranker) Match(ctx context.Context, q Query, dst []Ranked) ([]Ranked, error) {
	if rk.text == nil {
		st, err := buildSnapText(ctx, rk.r, nil)
		if err != nil {
			return dst[:0], err
		}
		rk.text = st
	}
	ranked, _, _, err := rk.ix.match(ctx, rk.r, rk.m, rk.text, q, -1)
	return append(dst[:0], ranked...), err
}
