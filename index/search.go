package index

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Hit is one search result.
type Hit struct {
	URL     string
	Title   string
	Snippet string // HTML: the text escaped, query matches in <mark>; empty from Retrieve
	// SnippetText and Highlights are Snippet's text and its <mark>
	// elements, as an HTML parser reads them; Highlights is nil when the
	// snippet has no plain form beside it (see snippetCut).
	SnippetText string
	Highlights  []Span
	Score       float64   // Bleve's relevance score
	FetchedAt   time.Time // fetch time of the indexed version, to the second
	Popularity  float64
}

// CheckHighlights reports whether h's highlights are spans of its
// SnippetText as the index cuts them (CheckSpans): a hit from another node
// is checked before its spans are read.
func (h Hit) CheckHighlights() error {
	if err := CheckSpans(h.Highlights, len(h.SnippetText)); err != nil {
		return fmt.Errorf("index: hit %s: %w", h.URL, err)
	}
	return nil
}

// Result is one page of search results.
type Result struct {
	Total uint64 // number of matching documents
	Took  time.Duration
	Hits  []Hit
}

// bleveQuery translates a parsed query the way searches ran before
// best-match retrieval, for Ranker.Rank (the ΔQ evaluation's answers):
// terms are analyzed with the text field's analyzer and must all match (a
// match query with the AND operator); phrases are match_phrase queries; exclusions are must-not;
// sites filter on the host keyword (siteQuery) without affecting the score. It returns
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
		return nil, NoSearchableWords(q.String(), "stop words or punctuation")
	}
	var mustNot []query.Query
	for _, t := range q.ExcludeTerms {
		mustNot = append(mustNot, textMatch(t))
	}
	for _, p := range q.ExcludePhrases {
		mustNot = append(mustNot, textPhrase(p))
	}
	for _, s := range q.ExcludeSites {
		mustNot = append(mustNot, siteQuery(s))
	}
	bq := query.NewBooleanQuery(must, nil, mustNot)
	if len(q.Sites) > 0 {
		var sites []query.Query
		for _, s := range q.Sites {
			sites = append(sites, siteQuery(s))
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

// titlePhrase matches pages whose FieldTitle has the phrase p.
func titlePhrase(p string) query.Query {
	pq := query.NewMatchPhraseQuery(p)
	pq.SetField(FieldTitle)
	return pq
}

// siteQuery matches the pages on site s or a subdomain of it
// (SitePattern). A regexp over the host keyword: it walks every distinct
// host, few beside the pages, where a term query per subdomain would
// need them listed.
func siteQuery(s string) query.Query {
	rq := query.NewRegexpQuery(SitePattern(s))
	rq.SetField(FieldHost)
	return rq
}

// Search returns hits from..from+size of q, best match first (match.go),
// with snippets. Stored fields and snippets are read for those hits only.
func (ix *Index) Search(ctx context.Context, q Query, from, size int) (Result, error) {
	start := time.Now()
	if from < 0 || size < 0 {
		return Result{}, fmt.Errorf("index: search: from = %d, size = %d: must be >= 0", from, size)
	}
	var out Result
	err := ix.withText(ctx, func(r bindex.IndexReader, m mapping.IndexMapping, st *snapText) error {
		ranked, docs, total, err := ix.match(ctx, r, m, st, q, from+size)
		if err != nil {
			return err
		}
		out.Total = uint64(total)
		if from >= len(ranked) {
			return nil
		}
		out.Hits, err = ix.shown(ctx, r, st, &q, ranked[from:], docs[from:], nil)
		return err
	})
	out.Took = time.Since(start)
	return out, err
}

// Retrieve returns up to limit documents matching q, best match first,
// and the number of matching documents: URL and score only, no stored
// field is read (Shown gives titles and snippets for the few shown).
// Ranking reorders and blends from here.
func (ix *Index) Retrieve(ctx context.Context, q Query, limit int) ([]Hit, uint64, error) {
	ranked, total, err := ix.RetrieveRanked(ctx, q, limit)
	if err != nil {
		return nil, 0, err
	}
	hits := make([]Hit, len(ranked))
	for i, rk := range ranked {
		hits[i] = Hit{URL: rk.URL, Score: rk.Score}
	}
	return hits, total, nil
}

// RetrieveRanked is Retrieve without the hits' empty display fields: a
// fifth of the memory for the few hundred candidates a search ranks.
func (ix *Index) RetrieveRanked(ctx context.Context, q Query, limit int) ([]Ranked, uint64, error) {
	ranked, _, total, _, err := ix.retrieve(ctx, q, limit, true, nil, nil)
	return ranked, total, err
}

// Retrieved is what RetrieveUnordered finds.
type Retrieved struct {
	Pages []Ranked
	Total uint64 // matching pages
	// Docs numbers each page within Snapshot: its document number there.
	// Equal Snapshot values (never 0) are the same snapshot of this
	// index, so a caller may keep data by (Snapshot, document number).
	Docs     []uint64
	Snapshot uint64
}

// RetrieveUnordered is RetrieveRanked for a caller that orders the pages
// itself (the ranking does): the same pages, in no particular order, so
// they are selected from the matches without being sorted, with their
// document numbers.
func (ix *Index) RetrieveUnordered(ctx context.Context, q Query, limit int) (Retrieved, error) {
	return ix.RetrieveUnorderedInto(ctx, q, limit, Retrieved{})
}

// RetrieveUnorderedInto is RetrieveUnordered writing its pages and
// document numbers over buf's, whose arrays it reuses when large enough:
// a server pools them rather than allocating a few kilobytes per search
// for the garbage collector to reclaim.
func (ix *Index) RetrieveUnorderedInto(ctx context.Context, q Query, limit int, buf Retrieved) (Retrieved, error) {
	out := Retrieved{Pages: buf.Pages, Docs: buf.Docs}
	var err error
	out.Pages, out.Docs, out.Total, out.Snapshot, err = ix.retrieve(ctx, q, limit, false, out.Pages, out.Docs)
	if err != nil {
		return Retrieved{}, err
	}
	return out, nil
}

func (ix *Index) retrieve(ctx context.Context, q Query, limit int, ordered bool, ranked []Ranked, docs []uint64) (_ []Ranked, _ []uint64, total uint64, snapshot uint64, err error) {
	if limit < 0 {
		return nil, nil, 0, 0, fmt.Errorf("index: retrieve: limit = %d: must be >= 0", limit)
	}
	err = ix.withText(ctx, func(r bindex.IndexReader, m mapping.IndexMapping, st *snapText) error {
		var n int
		ranked, docs, n, err = ix.matchPages(ctx, r, m, st, q, limit, ordered, ranked, docs)
		total, snapshot = uint64(n), st.id
		return err
	})
	return ranked, docs, total, snapshot, err
}

// withSnapshot runs fn on the newest snapshot of the index.
func (ix *Index) withSnapshot(fn func(bindex.IndexReader, mapping.IndexMapping) error) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.mu.bi == nil {
		return ErrClosed
	}
	r, err := reader(ix.mu.bi)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r, ix.mu.bi.Mapping())
}

// withText runs fn on a snapshot of the index and its text field: the
// newest snapshot, its text field built first if need be, or in a
// serving index the last one built while a newer one's is not
// (snapTexts.published).
func (ix *Index) withText(ctx context.Context, fn func(bindex.IndexReader, mapping.IndexMapping, *snapText) error) error {
	return ix.withSnapshot(func(r bindex.IndexReader, m mapping.IndexMapping) error {
		st, taken := ix.texts.published(r)
		if taken {
			defer st.held.Close()
			return fn(st.held, m, st)
		}
		if st == nil {
			var err error
			if st, err = ix.snapText(ctx, r); err != nil {
				return err
			}
		}
		return fn(r, m, st)
	})
}

// shown gives ranked pages (documents docs of st's snapshot r) as a
// result page shows them: from st's columns, with the highlighted
// snippet for q cut from the stored text in memory (none for a nil q),
// written over hits[:len(ranked)] (nil: a new slice).
func (ix *Index) shown(ctx context.Context, r bindex.IndexReader, st *snapText, q *Query, ranked []Ranked, docs []uint64, hits []Hit) ([]Hit, error) {
	if hits == nil {
		hits = make([]Hit, len(ranked))
	}
	hits = hits[:len(ranked)]
	for i, rk := range ranked {
		d := docs[i]
		hits[i] = Hit{URL: rk.URL, Score: rk.Score, Title: st.titles[d], FetchedAt: st.fetched[d], Popularity: st.popularity[d]}
	}
	if q == nil {
		return hits, nil
	}
	// The buffers are pooled: what a result keeps is copied out of them.
	bufs, _ := ix.snippets.Get().(*snippetBufs)
	if bufs == nil {
		bufs = new(snippetBufs)
	}
	defer ix.snippets.Put(bufs)
	locs, err := ix.locations(ctx, r, st, *q, docs, bufs)
	if err != nil {
		return nil, err
	}
	for i := range hits {
		c := cutSnippetFrom(st.storedText(docs[i]), int(st.snippetAt[docs[i]]), locs[i], ix.cfg.SnippetBytes, bufs)
		hits[i].Snippet, hits[i].SnippetText, hits[i].Highlights = c.HTML, c.Text, c.Spans
	}
	return hits, nil
}

// segments are a snapshot's segments with the first document number of
// each, for reading a document's stored fields by number: an
// IndexReader reads them by URL only (Document), looking the URL up in
// every segment's id dictionary, which a hit already resolved.
type segments struct {
	segs  []*scorch.SegmentSnapshot
	first []uint64
}

// segmentsOf lists r's segments. Document numbers run through the
// segments in order, each segment taking as many as it has documents,
// deleted ones included (scorch's IndexSnapshot offsets).
func segmentsOf(r bindex.IndexReader) (segments, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return segments{}, fmt.Errorf("index: reader is a %T, not a scorch snapshot", r)
	}
	s := segments{segs: snap.Segments()}
	var next uint64
	for _, seg := range s.segs {
		s.first = append(s.first, next)
		next += uint64(seg.FullSize())
	}
	return s, nil
}

// stored fills h's URL, title, fetch time (to the second) and popularity
// from document doc's stored fields, and calls withText with its stored
// text, which is valid during the call only (the segment reuses the
// buffer).
func (s segments) stored(doc uint64, h *Hit, withText func([]byte)) error {
	i := sort.Search(len(s.first), func(i int) bool { return s.first[i] > doc }) - 1
	if i < 0 {
		return fmt.Errorf("document %d: not in the snapshot", doc)
	}
	return storedIn(s.segs[i], doc-s.first[i], h, withText)
}

// storedIn is stored for document local of the segment ss.
func storedIn(ss *scorch.SegmentSnapshot, local uint64, h *Hit, withText func([]byte)) error {
	return ss.VisitDocument(local, func(field string, typ byte, val []byte, _ []uint64) bool {
		switch field {
		case "_id": // the document id, the URL
			h.URL = string(val)
		case FieldTitle:
			h.Title = string(val)
		case FieldText:
			withText(val)
		case FieldFetched:
			if t, _, err := document.NewDateTimeFieldFromBytes(field, nil, val).DateTime(); err == nil {
				h.FetchedAt = t.Truncate(time.Second)
			}
		case FieldPopularity:
			if v, err := document.NewNumericFieldFromBytes(field, nil, val).Number(); err == nil {
				h.Popularity = v
			}
		}
		return true
	})
}

// locations returns, for each of the documents docs, where the query's
// words occur in FieldText (byte ranges in the stored text), for
// snippets: from st, r's text field in memory, or when st is nil from
// Bleve's term vectors. The answer lives in bufs (nil: fresh ones) until
// their next use.
func (ix *Index) locations(ctx context.Context, r bindex.IndexReader, st *snapText, q Query, docs []uint64, bufs *snippetBufs) ([][]Span, error) {
	if bufs == nil {
		bufs = new(snippetBufs)
	}
	out := slices.Grow(bufs.locs[:0], len(docs))[:len(docs)]
	clear(out)
	bufs.locs = out
	seen := map[string]bool{}
	if st != nil { // from memory, page by page, in one buffer
		var words []uint32
		for _, term := range ix.queryTerms(q, queryText(q)) {
			if t, ok := st.term(term); ok && !seen[term] {
				words = append(words, t)
			}
			seen[term] = true
		}
		spans := bufs.spans[:0]
		defer func() { bufs.spans = spans[:0] }()
		for i, doc := range docs {
			from := len(spans)
			for _, t := range words {
				for _, o := range st.occurrences(t, doc) {
					spans = append(spans, Span{int(o.start), int(o.end)})
				}
			}
			out[i] = spans[from:len(spans):len(spans)]
		}
		return out, nil
	}
	var tfd bindex.TermFieldDoc // reused: Advance fills its vectors in place
	for _, term := range ix.queryTerms(q, queryText(q)) {
		if seen[term] {
			continue
		}
		seen[term] = true
		// Without the snapshot in memory, from the term vectors, in
		// document order (going back reopens the reader).
		order := make([]int, len(docs))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(docs[a], docs[b]) })
		tfr, err := r.TermFieldReader(ctx, []byte(term), FieldText, false, false, true)
		if err != nil {
			return nil, fmt.Errorf("index: positions of %q: %w", term, err)
		}
		for _, i := range order {
			d, err := tfr.Advance(bindex.NewIndexInternalID(nil, docs[i]), &tfd)
			if err != nil {
				tfr.Close()
				return nil, fmt.Errorf("index: positions of %q: %w", term, err)
			}
			if d == nil {
				break
			}
			if d.ID.Value() != docs[i] {
				continue
			}
			for _, v := range d.Vectors {
				out[i] = append(out[i], Span{int(v.Start), int(v.End)})
			}
		}
		tfr.Close()
	}
	return out, nil
}

// Shown returns the pages of urls as a result page shows them, one for
// each URL in its place: title, fetch time, popularity and the snippet
// for q, from the snapshot's columns in memory. A URL no longer in the
// index has the zero Hit (URL "").
func (ix *Index) Shown(ctx context.Context, q Query, urls []string) ([]Hit, error) {
	return ix.shownByURL(ctx, &q, urls)
}

// Titles is Shown without the snippets: the pages of urls as a list of
// links shows them.
func (ix *Index) Titles(ctx context.Context, urls []string) ([]Hit, error) {
	return ix.shownByURL(ctx, nil, urls)
}

func (ix *Index) shownByURL(ctx context.Context, q *Query, urls []string) ([]Hit, error) {
	out := make([]Hit, len(urls))
	if len(urls) == 0 {
		return out, nil
	}
	err := ix.withText(ctx, func(r bindex.IndexReader, _ mapping.IndexMapping, st *snapText) error {
		ranked := make([]Ranked, 0, len(urls))
		docs := make([]uint64, 0, len(urls))
		at := make([]int, 0, len(urls)) // the place in urls of each page held
		for i, u := range urls {
			if doc, ok := st.liveDoc(u); ok {
				ranked = append(ranked, Ranked{URL: u})
				docs = append(docs, doc)
				at = append(at, i)
			}
		}
		// The pages held are shown at the front of out, then each moved
		// to its place, which is never before where it was shown.
		_, err := ix.shown(ctx, r, st, q, ranked, docs, out)
		for k := len(at) - 1; k >= 0; k-- {
			if i := at[k]; i != k {
				out[i], out[k] = out[k], Hit{}
			}
		}
		return err
	})
	return out, err
}
