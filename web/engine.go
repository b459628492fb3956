package web

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/ranking"
)

// anonymous is the user id of requests without a user cookie (API
// clients): they share one promotion order per query.
const anonymous = "anonymous"

// EngineOptions tune an Engine.
type EngineOptions struct {
	Limits      index.Limits // query syntax limits (index.max_query_bytes, ...)
	AdsPerQuery int          // 0 = ads.per_query
	// Backend finds and shows the pages instead of the index alone: a
	// cluster's nodes (cluster.SearchNode); nil = the index.
	Backend Backend
}

// Backend finds the pages relevant to a query and shows them, over more
// than one index: missing names the parts that did not answer.
type Backend interface {
	Retrieve(ctx context.Context, q index.Query, limit int) (hits []index.Hit, total uint64, missing []string, err error)
	// Shown and Titles are index.Index's, over every part.
	Shown(ctx context.Context, q index.Query, urls []string) ([]index.Hit, error)
	Titles(ctx context.Context, urls []string) ([]index.Hit, error)
}

// shower gives a result page's pages, one for each URL in its place:
// with their snippets for q (Shown) or without (Titles). A Backend is
// one, and so is index.Index.
type shower interface {
	Shown(ctx context.Context, q index.Query, urls []string) ([]index.Hit, error)
	Titles(ctx context.Context, urls []string) ([]index.Hit, error)
}

// Engine answers a search request end to end: the index finds the
// relevant pages (best-match retrieval, index/doc.go), ranking
// orders them by popularity and relevance and promotes unexplored pages at
// random (§5.5), and ads are chosen for the query phrase (ch. 6). It is the
// Searcher the binary wires; each part stays in its own package.
type Engine struct {
	ix   *index.Index
	rank *ranking.Searcher
	ads  *ads.Store // nil: no ads
	opts EngineOptions
	bufs sync.Pool // *searchBufs: one search's buffers
}

// NewEngine builds an engine. adStore may be nil.
func NewEngine(ix *index.Index, rank *ranking.Searcher, adStore *ads.Store, opts EngineOptions) *Engine {
	return &Engine{ix: ix, rank: rank, ads: adStore, opts: opts}
}

// Retriever adapts the index to ranking.Retriever: it parses the query with
// the index's syntax and returns up to limit relevant pages.
type Retriever struct {
	Index  *index.Index
	Limits index.Limits
}

// Retrieve implements ranking.Retriever.
func (r Retriever) Retrieve(ctx context.Context, query string, limit int) ([]ranking.Candidate, int, error) {
	q, err := index.ParseQuery(query, r.Limits)
	if err != nil {
		return nil, 0, err
	}
	ranked, total, err := r.Index.RetrieveRanked(ctx, q, limit)
	if err != nil {
		return nil, 0, err
	}
	cands := make([]ranking.Candidate, len(ranked))
	for i, rk := range ranked {
		cands[i] = ranking.Candidate{URL: rk.URL, Relevance: rk.Score}
	}
	return cands, int(total), nil
}

// searchBufs are one search's retrieved pages and their candidates,
// pooled by the engine: the ranking copies what the page shows.
type searchBufs struct {
	got   index.Retrieved
	cands []ranking.Candidate
}

// retrieve returns up to limit pages relevant to q as candidates in no
// particular order (the ranking orders them), in bufs.
func (e *Engine) retrieve(ctx context.Context, q index.Query, limit int, bufs *searchBufs) ([]ranking.Candidate, int, error) {
	got, err := e.ix.RetrieveUnorderedInto(ctx, q, limit, bufs.got)
	if err != nil {
		return nil, 0, err
	}
	bufs.got = got
	// Keyed by the snapshot's document numbers: the ranking finds each
	// page's statistics once per snapshot.
	cands := bufs.cands[:0]
	for i, rk := range got.Pages {
		// snapText numbers at most MaxUint32 documents.
		cands = append(cands, ranking.Candidate{URL: rk.URL, Relevance: rk.Score, Space: got.Snapshot, Key: uint32(got.Docs[i])})
	}
	bufs.cands = cands
	return cands, int(got.Total), nil
}

// candidates are retrieved hits as the ranking orders them.
func candidates(hits []index.Hit) []ranking.Candidate {
	out := make([]ranking.Candidate, len(hits))
	for i, h := range hits {
		out[i] = ranking.Candidate{URL: h.URL, Title: h.Title, Relevance: h.Score, FetchedAt: h.FetchedAt}
	}
	return out
}

// Check implements Searcher: it parses and analyzes r's query as Search
// does.
func (e *Engine) Check(r Request) error {
	q, err := index.ParseQuery(r.Query, e.opts.Limits)
	if err == nil {
		err = e.ix.CheckQuery(q)
	}
	if err != nil {
		return inputError(err, r.Query)
	}
	return nil
}

// Search implements Searcher.
func (e *Engine) Search(ctx context.Context, r Request) (Response, error) {
	start := time.Now()
	q, err := index.ParseQuery(r.Query, e.opts.Limits)
	if err != nil {
		return Response{}, inputError(err, r.Query)
	}
	user := r.User
	if user == "" {
		user = anonymous
	}
	// The query is parsed once: retrieval and the snippets share it.
	var (
		cands   []ranking.Candidate
		total   int
		missing []string
		pages   shower = e.ix
	)
	if b := e.opts.Backend; b != nil {
		var hits []index.Hit
		var n uint64
		hits, n, missing, err = b.Retrieve(ctx, q, e.rank.Candidates())
		cands, total, pages = candidates(hits), int(n), b
	} else {
		// The candidates live in pooled buffers: Order copies what the
		// page shows. It orders them itself: the index only selects them.
		bufs, _ := e.bufs.Get().(*searchBufs)
		if bufs == nil {
			bufs = new(searchBufs)
		}
		defer func() {
			clear(bufs.got.Pages) // drop the URLs
			clear(bufs.cands)
			e.bufs.Put(bufs)
		}()
		cands, total, err = e.retrieve(ctx, q, e.rank.Candidates(), bufs)
	}
	if err != nil {
		return Response{}, inputError(err, r.Query)
	}
	order := e.rank.Order
	if e.opts.Backend == nil {
		order = e.rank.OrderDistinct // one index: one document per URL
	}
	page, err := order(ctx, user, r.Query, cands, total, r.Page, r.Size)
	if err != nil {
		return Response{}, inputError(err, r.Query)
	}
	urls := make([]string, len(page.Results))
	for i, res := range page.Results {
		urls[i] = res.URL
	}
	var shown []index.Hit
	if r.Fields.Wants(snippetFields) {
		shown, err = pages.Shown(ctx, q, urls)
	} else {
		shown, err = pages.Titles(ctx, urls)
	}
	if err != nil {
		return Response{}, fmt.Errorf("engine: shown results: %w", err)
	}
	// The index counts every match (Bleve's total hits); the ranking orders
	// at most ranking.candidates of them, which is what pages can reach.
	out := Response{Total: uint64(page.Total), TotalExact: len(missing) == 0, Pageable: page.Candidates, Partial: missing}
	if len(page.Results) > 0 { // else Results stays nil
		out.Results = make([]Result, 0, len(page.Results))
	}
	marks := 0
	for i, res := range page.Results {
		h := shown[i]
		out.Results = append(out.Results, Result{
			URL: res.URL, Title: h.Title, Snippet: h.Snippet, Score: res.Relevance,
			FetchedAt: h.FetchedAt, Promoted: res.Promoted, ClickURL: res.ClickURL,
		})
		marks += len(h.Highlights)
	}
	// The results' matched terms are parts of one array.
	terms := make([]string, 0, marks)
	for i := range out.Results {
		res := &out.Results[i]
		if h := shown[i]; h.Highlights != nil { // else the server parses the snippet
			from := len(terms)
			terms = markedTerms(terms, h.SnippetText, h.Highlights)
			res.SnippetText, res.Highlights, res.MatchedTerms = h.SnippetText, h.Highlights, terms[from:len(terms):len(terms)]
		}
	}
	if e.ads != nil && r.Page == 1 {
		shown, err := e.ads.Select(ctx, r.Query, e.opts.AdsPerQuery)
		if err != nil {
			return Response{}, fmt.Errorf("engine: ads: %w", err)
		}
		for _, a := range shown {
			out.Ads = append(out.Ads, Ad{Title: a.Title, Text: a.Text, URL: a.URL, ClickURL: a.ClickURL})
		}
	}
	out.Took = time.Since(start)
	return out, nil
}

// inputError turns the index's query syntax errors and the ranking's
// limits into the server's 400, named by the request's parameter; query is
// the q asked.
func inputError(err error, query string) error {
	var qe *index.QueryError
	if errors.As(err, &qe) {
		return &InputError{Code: CodeBadQuery, Field: "q", Value: query, Limit: qe.Limit, Message: qe.Msg}
	}
	var re *ranking.RequestError
	if errors.As(err, &re) {
		field := re.Field
		switch field {
		case "query":
			field = "q"
		case "user":
			field = UserCookie + " cookie"
		}
		return &InputError{Field: field, Value: re.Value, Limit: re.Limit, Message: re.Value + " is outside the searcher's limits"}
	}
	return err
}
