package index

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Hit is one search result.
type Hit struct {
	URL        string
	Title      string
	Snippet    string    // HTML: the text escaped, query matches in <mark>; empty from Retrieve
	Score      float64   // Bleve's relevance score
	FetchedAt  time.Time // fetch time of the indexed version, to the second
	Popularity float64
}

// Result is one page of search results.
type Result struct {
	Total uint64 // number of matching documents
	Took  time.Duration
	Hits  []Hit
}

// bleveQuery translates a parsed query. Terms are analyzed with the text
// field's analyzer and must all match (a match query with the AND
// operator); phrases are match_phrase queries; exclusions are must-not;
// sites filter on the host keyword without affecting the score. It returns
// a *QueryError if nothing positive is left after analysis (only stop
// words or punctuation).
func bleveQuery(q Query, a analysis.Analyzer) (query.Query, error) {
	var must []query.Query
	if terms := strings.Join(q.Terms, " "); terms != "" && len(a.Analyze([]byte(terms))) > 0 {
		must = append(must, textMatch(terms))
	}
	for _, p := range q.Phrases {
		if len(a.Analyze([]byte(p))) > 0 {
			must = append(must, textPhrase(p))
		}
	}
	if len(must) == 0 {
		return nil, queryErr("%q has no searchable words (only stop words or punctuation)", q.String())
	}
	var mustNot []query.Query
	for _, t := range q.ExcludeTerms {
		mustNot = append(mustNot, textMatch(t))
	}
	for _, p := range q.ExcludePhrases {
		mustNot = append(mustNot, textPhrase(p))
	}
	for _, s := range q.ExcludeSites {
		mustNot = append(mustNot, hostTerm(s))
	}
	bq := query.NewBooleanQuery(must, nil, mustNot)
	if len(q.Sites) > 0 {
		var sites []query.Query
		for _, s := range q.Sites {
			sites = append(sites, hostTerm(s))
		}
		bq.AddFilter(query.NewDisjunctionQuery(sites))
	}
	return bq, nil
}

// textMatch matches pages whose FieldText has every analyzed word of s.
func textMatch(s string) query.Query {
	mq := query.NewMatchQuery(s)
	mq.SetField(FieldText)
	mq.SetOperator(query.MatchQueryOperatorAnd)
	return mq
}

// textPhrase matches pages whose FieldText has the phrase p.
func textPhrase(p string) query.Query {
	pq := query.NewMatchPhraseQuery(p)
	pq.SetField(FieldText)
	return pq
}

// hostTerm matches pages on the host h.
func hostTerm(h string) query.Query {
	tq := query.NewTermQuery(h)
	tq.SetField(FieldHost)
	return tq
}

// run translates q and runs the request build makes of it; what names the
// call in errors.
func (ix *Index) run(ctx context.Context, q Query, what string, build func(query.Query) *bleve.SearchRequest) (*bleve.SearchResult, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.mu.bi == nil {
		return nil, ErrClosed
	}
	bq, err := bleveQuery(q, ix.mu.analyzer)
	if err != nil {
		return nil, err
	}
	res, err := ix.mu.bi.SearchInContext(ctx, build(bq))
	if err != nil {
		return nil, fmt.Errorf("index: %s %q: %w", what, q.String(), err)
	}
	return res, nil
}

// Search returns hits from..from+size of q in order of relevance, with
// snippets.
func (ix *Index) Search(ctx context.Context, q Query, from, size int) (Result, error) {
	if from < 0 || size < 0 {
		return Result{}, &QueryError{Msg: fmt.Sprintf("from = %d, size = %d: must be >= 0", from, size)}
	}
	res, err := ix.run(ctx, q, "search", func(bq query.Query) *bleve.SearchRequest {
		req := bleve.NewSearchRequestOptions(bq, size, from, false)
		req.Fields = []string{FieldTitle, FieldText, FieldFetched, FieldPopularity}
		req.IncludeLocations = true
		return req
	})
	if err != nil {
		return Result{}, err
	}
	out := Result{Total: res.Total, Took: res.Took, Hits: make([]Hit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		hit := hitOf(h)
		text, _ := h.Fields[FieldText].(string)
		hit.Snippet = snippet(text, h.Locations[FieldText], ix.cfg.SnippetBytes)
		out.Hits = append(out.Hits, hit)
	}
	return out, nil
}

// Retrieve returns up to limit documents matching q, the most popular
// first (ties by relevance), without snippets, and the number of matching
// documents. Ranking reorders and blends from here.
func (ix *Index) Retrieve(ctx context.Context, q Query, limit int) ([]Hit, uint64, error) {
	if limit < 0 {
		return nil, 0, &QueryError{Msg: fmt.Sprintf("limit = %d: must be >= 0", limit)}
	}
	res, err := ix.run(ctx, q, "retrieve", func(bq query.Query) *bleve.SearchRequest {
		req := bleve.NewSearchRequestOptions(bq, limit, 0, false)
		req.Fields = []string{FieldTitle, FieldFetched, FieldPopularity}
		req.SortBy([]string{"-" + FieldPopularity, "-_score", "_id"})
		return req
	})
	if err != nil {
		return nil, 0, err
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, hitOf(h))
	}
	return hits, res.Total, nil
}

func hitOf(h *search.DocumentMatch) Hit {
	hit := Hit{URL: h.ID, Score: h.Score}
	hit.Title, _ = h.Fields[FieldTitle].(string)
	hit.Popularity, _ = h.Fields[FieldPopularity].(float64)
	if s, ok := h.Fields[FieldFetched].(string); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			hit.FetchedAt = t
		}
	}
	return hit
}

// Snippets returns the highlighted snippet of each of urls for q, keyed by
// URL: a result page needs snippets for the few pages it shows, not for
// every candidate the ranking ordered. A URL that no longer matches q (the
// index moved on since the ranking) has no entry.
func (ix *Index) Snippets(ctx context.Context, q Query, urls []string) (map[string]string, error) {
	out := make(map[string]string, len(urls))
	if len(urls) == 0 {
		return out, nil
	}
	res, err := ix.run(ctx, q, "snippets for", func(bq query.Query) *bleve.SearchRequest {
		req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{bq, query.NewDocIDQuery(urls)}), len(urls), 0, false)
		req.Fields = []string{FieldText}
		req.IncludeLocations = true
		return req
	})
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		text, _ := h.Fields[FieldText].(string)
		out[h.ID] = snippet(text, h.Locations[FieldText], ix.cfg.SnippetBytes)
	}
	return out, nil
}
