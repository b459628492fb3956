package index

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// This file is the searcher (match.go) as one shard of several: an index
// holding part of a cluster's pages, asked for its statistics (Stats), its
// best pages for RM3 feedback (Feedback) and its best pages scored with
// statistics given from outside (MatchShard), so that a coordinator
// (package index/fanout) merges lists whose scores are those one index
// over all the pages would give. Everything a score reads that depends on
// the other pages is given: N, the summed text length (the mean length),
// each word's df (the idf of the text and title components, the
// max_query_terms cut, RM3's new words), the RM3 expanded query itself,
// and, left to the merge, the coordination rule's AND/OR choice (a count
// over all shards) and which pages get the proximity component (the best
// proximity_depth over all shards). Search and Retrieve do not come here.

// MatchStats are the corpus statistics the searcher's scores read: the
// number of documents, their summed analyzed text length, and the
// document frequency of words (in the text field, or in the title for a
// query of stop words only, which searches titles). A cluster's are the
// sums of its shards'.
type MatchStats struct {
	Docs   uint64            `json:"docs"`
	Length uint64            `json:"length"`
	DF     map[string]uint64 `json:"df"`
}

// Add adds o's counts to s.
func (s *MatchStats) Add(o MatchStats) {
	s.Docs += o.Docs
	s.Length += o.Length
	if s.DF == nil {
		s.DF = make(map[string]uint64, len(o.DF))
	}
	for w, df := range o.DF {
		s.DF[w] += df
	}
}

// meanLen is the mean analyzed length, 1 for no documents (snapText's
// rule).
func (s *MatchStats) meanLen() float64 {
	if s.Docs > 0 && s.Length > 0 {
		return float64(s.Length) / float64(s.Docs)
	}
	return 1
}

// QueryTerm is one word of a planned query: its weight (occurrences, or
// the RM3 model's), its first position (math.MaxInt for a word RM3
// added) and its document frequency in the cluster.
type QueryTerm struct {
	Word   string  `json:"w"`
	Weight float64 `json:"wt"`
	First  int     `json:"f"`
	DF     uint64  `json:"df"`
}

// exported is t as the shards exchange it.
func (t qterm) exported() QueryTerm {
	return QueryTerm{Word: t.term, Weight: t.weight, First: t.first, DF: t.df}
}

// planned is t as a plan holds it, its idf among n pages.
func (t QueryTerm) planned(n uint64) qterm {
	return qterm{term: t.Word, weight: t.Weight, first: t.First, df: t.DF, idf: bm25IDF(n, t.DF)}
}

// FeedbackDoc is a page of a shard's RM3 feedback candidates: its score,
// its analyzed length and its words, ascending, with their counts.
type FeedbackDoc struct {
	URL    string   `json:"url"`
	Score  float64  `json:"score"`
	Length uint32   `json:"len"`
	Words  []string `json:"words"`
	TFs    []uint32 `json:"tfs"`
}

// Feedback is a shard's answer to a feedback request: the query's words
// as planned with the given statistics (after the max_query_terms cut),
// whether the searcher expands it, and, if so, the shard's best pages.
type Feedback struct {
	Terms  []QueryTerm   `json:"terms"`
	Expand bool          `json:"expand"`
	Docs   []FeedbackDoc `json:"docs,omitempty"`
}

// maxFeedbackLength bounds a feedback page's analyzed length: 16 M tokens,
// far above any page an index holds, so a greater one is a peer's fault.
const maxFeedbackLength = 1 << 24

// Validate checks a shard's feedback as another node sent it, so that
// building the relevance model can neither fail nor run long: every page
// with a count per word, its words ascending and distinct, each count at
// least 1 and all of them at most the page's length, that length at most
// maxFeedbackLength, and a finite score ≥ 0.
func (f Feedback) Validate() error {
	for _, d := range f.Docs {
		if err := d.validate(); err != nil {
			return fmt.Errorf("index: feedback page %q: %w", d.URL, err)
		}
	}
	return nil
}

func (d FeedbackDoc) validate() error {
	switch {
	case len(d.TFs) != len(d.Words):
		return fmt.Errorf("%d words, %d counts (tfs): need one count a word", len(d.Words), len(d.TFs))
	case d.Length > maxFeedbackLength:
		return fmt.Errorf("len = %d: at most %d", d.Length, maxFeedbackLength)
	case !(d.Score >= 0) || math.IsInf(d.Score, 1):
		return fmt.Errorf("score = %v: must be finite and ≥ 0", d.Score)
	}
	var tokens uint64
	for i, w := range d.Words {
		if i > 0 && w <= d.Words[i-1] {
			return fmt.Errorf("words[%d] = %q after %q: must ascend", i, w, d.Words[i-1])
		}
		if d.TFs[i] == 0 {
			return fmt.Errorf("tfs[%d] = 0 (word %q): must be ≥ 1", i, w)
		}
		tokens += uint64(d.TFs[i])
	}
	if tokens > uint64(d.Length) {
		return fmt.Errorf("counts sum to %d: more than len = %d", tokens, d.Length)
	}
	return nil
}

// ShardQuery asks a shard for its best pages.
type ShardQuery struct {
	Query Query
	// Stats are the cluster's statistics for Query's words (and Terms');
	// nil scores with the shard's own (and expands by RM3 from its own
	// pages), as a search of the shard alone would.
	Stats *MatchStats
	// Terms, if set, replace Query's words: the query RM3 expanded from
	// the cluster's best pages (FeedbackModel.ExpandTerms), with Stats.
	Terms []QueryTerm
	// Limit is how many pages the merge needs; the shard returns more when
	// the proximity component or the OR fallback needs them (ShardResult).
	Limit int
}

// ShardHit is one page of a shard's answer.
type ShardHit struct {
	URL   string  `json:"url"`
	Score float64 `json:"score"` // without the proximity component
	Words int     `json:"words"` // distinct query words the page holds
	// Near are the proximity component's additions, in order, which the
	// merge adds only if the page is among the best proximity_depth.
	Near []float64 `json:"near,omitempty"`
}

// ShardResult is a shard's answer. Hits are the best max(Limit,
// proximity_depth) pages by Score of the pages with Required words
// when Qualified reaches min_results, else of all Matched pages followed
// by every page with Required words (fewer than min_results) not among
// them: the merge needs both lists when the cluster's count decides the
// OR fallback.
type ShardResult struct {
	Hits      []ShardHit `json:"hits"`
	Required  int        `json:"required"`
	Qualified int        `json:"qualified"` // pages with Required words, after the filters
	Matched   int        `json:"matched"`   // pages with any word, after the filters
}

// Stats returns the shard's statistics for q's words (the analyzed words
// of its terms and phrases, in the field the searcher scores them on; none
// for an empty q) and for words, already analyzed text words (RM3's
// additions).
func (ix *Index) Stats(ctx context.Context, q Query, words []string) (MatchStats, error) {
	var out MatchStats
	err := ix.withText(ctx, func(r bindex.IndexReader, m mapping.IndexMapping, st *snapText) error {
		var terms []qterm
		if len(q.Terms) > 0 || len(q.Phrases) > 0 { // else words alone
			var err error
			if terms, _, err = ix.queryWords(ctx, r, m, st, q, true); err != nil {
				return err
			}
		}
		out = MatchStats{Docs: st.n, Length: st.total, DF: make(map[string]uint64, len(terms)+len(words))}
		for _, t := range terms {
			out.DF[t.term] = t.df
		}
		for _, w := range words {
			out.DF[w] = uint64(len(st.postings(w)))
		}
		return nil
	})
	return out, err
}

// Feedback plans q with the statistics gs and, when the searcher expands
// it by RM3, returns the shard's best k pages (before the filters, as the
// searcher picks them) with their words.
func (ix *Index) Feedback(ctx context.Context, q Query, gs *MatchStats, k int) (Feedback, error) {
	var out Feedback
	err := ix.withText(ctx, func(r bindex.IndexReader, m mapping.IndexMapping, st *snapText) error {
		p, err := ix.planQuery(ctx, r, m, st, q, gs)
		if err != nil {
			return err
		}
		for _, t := range p.terms {
			out.Terms = append(out.Terms, t.exported())
		}
		out.Expand = p.expands(ix.cfg.Retrieval)
		if !out.Expand || k <= 0 {
			return nil
		}
		cands, err := ix.accumulate(ctx, r, st, p, nil)
		if err != nil {
			return err
		}
		var top []candidate
		for _, c := range cands {
			top = keepBest(top, k, c, compareCandidates)
		}
		urls := st.resolveURLs(top)
		for i, c := range top {
			d := FeedbackDoc{URL: urls[i], Score: c.score, Length: st.docLength(c.doc)}
			for _, t := range st.docTerms(c.doc) {
				d.Words = append(d.Words, st.terms[t.of])
				d.TFs = append(d.TFs, t.tf)
			}
			out.Docs = append(out.Docs, d)
		}
		return nil
	})
	return out, err
}

// FeedbackModel is the searcher's RM3 relevance model (expand) over a
// cluster's feedback pages. Its words' df are the cluster's to count: the
// coordinator asks the shards for those of Words before ExpandTerms.
type FeedbackModel struct {
	vocab []string // the pages' words, ascending: a word's id is its place
	words []RelevanceWord
}

// NewFeedbackModel is the relevance model of the best feedback_docs of
// docs, the best pages of all shards, best first (score descending, URL
// ascending). The docs are valid (Feedback.Validate).
func NewFeedbackModel(cfg RetrievalConfig, docs []FeedbackDoc) FeedbackModel {
	docs = docs[:min(len(docs), cfg.FeedbackDocs)]
	// Word ids ascend with the words' order, as in a snapshot's
	// dictionary, so the model breaks ties as the searcher does.
	var m FeedbackModel
	for _, d := range docs {
		m.vocab = append(m.vocab, d.Words...)
	}
	slices.Sort(m.vocab)
	m.vocab = slices.Compact(m.vocab)
	pages := make([]FeedbackPage, len(docs))
	for i, d := range docs {
		pages[i] = FeedbackPage{Score: d.Score, Length: d.Length, Words: make([]uint32, len(d.Words)), TFs: d.TFs}
		for j, w := range d.Words {
			id, _ := slices.BinarySearch(m.vocab, w)
			pages[i].Words[j] = uint32(id)
		}
	}
	if len(pages) > 0 {
		m.words = RelevanceModel(pages, cfg.FeedbackTerms)
	}
	return m
}

// Words are the words the model may add to a query.
func (m FeedbackModel) Words() []string {
	out := make([]string, len(m.words))
	for i, w := range m.words {
		out[i] = m.vocab[w.Word]
	}
	return out
}

// ExpandTerms is the searcher's RM3 expansion (expand) of the query's
// planned words with the model, gs holding the cluster's statistics of
// every word of Words.
func (m FeedbackModel) ExpandTerms(cfg RetrievalConfig, terms []QueryTerm, gs MatchStats) []QueryTerm {
	if len(m.words) == 0 {
		return terms
	}
	qterms := make([]qterm, len(terms))
	for i, t := range terms {
		qterms[i] = t.planned(gs.Docs)
	}
	word := func(w uint32) string { return m.vocab[w] }
	qterms = applyModel(cfg, qterms, m.words, word, func(w uint32) uint64 { return gs.DF[word(w)] }, gs.Docs)
	out := make([]QueryTerm, len(qterms))
	for i, t := range qterms {
		out[i] = t.exported()
	}
	return out
}

// MatchShard scores sq on the shard's snapshot and returns its best pages
// for the merge (ShardResult).
func (ix *Index) MatchShard(ctx context.Context, sq ShardQuery) (ShardResult, error) {
	if sq.Limit < 0 {
		return ShardResult{}, fmt.Errorf("index: shard match: limit = %d: must be >= 0", sq.Limit)
	}
	if sq.Terms != nil && sq.Stats == nil {
		return ShardResult{}, fmt.Errorf("index: shard match: %d expanded terms without statistics", len(sq.Terms))
	}
	if len(sq.Terms) > maxMatchTerms {
		return ShardResult{}, fmt.Errorf("index: shard match: %d terms: at most %d", len(sq.Terms), maxMatchTerms)
	}
	cfg := ix.cfg.Retrieval
	var out ShardResult
	err := ix.withText(ctx, func(r bindex.IndexReader, m mapping.IndexMapping, st *snapText) error {
		p, err := ix.planQuery(ctx, r, m, st, sq.Query, sq.Stats)
		if err != nil {
			return err
		}
		if sq.Terms != nil {
			p.terms = p.terms[:0]
			for _, t := range sq.Terms {
				p.terms = append(p.terms, t.planned(p.n))
			}
		}
		cands, err := ix.accumulate(ctx, r, st, p, nil)
		if err != nil {
			return err
		}
		if sq.Terms == nil && p.expands(cfg) {
			ix.expand(st, p, cands) // the shard's own feedback: local statistics
			if cands, err = ix.accumulate(ctx, r, st, p, cands[:0]); err != nil {
				return err
			}
		}
		if cands, err = filter(ctx, r, m, p, cands); err != nil {
			return err
		}
		out.Required, out.Matched = p.required, len(cands)
		var qualified []candidate
		for _, c := range cands {
			if popcount(c.matched) >= p.required {
				out.Qualified++
				if out.Qualified < cfg.MinResults {
					qualified = append(qualified, c)
				}
			}
		}
		and := p.required > 1 && out.Qualified >= cfg.MinResults
		if and {
			cands = slices.DeleteFunc(cands, func(c candidate) bool { return popcount(c.matched) < p.required })
			qualified = nil
		}
		proximity := len(p.terms) > 1 && cfg.ProximityWeight > 0 && cfg.ProximityDepth > 0
		keep := min(len(cands), sq.Limit)
		if proximity {
			keep = min(len(cands), max(sq.Limit, cfg.ProximityDepth))
		}
		cands = sortBest(cands, keep)
		if p.required > 1 && !and {
			// The OR list, then the few pages with every word it lacks.
			for _, c := range qualified {
				if !slices.ContainsFunc(cands, func(x candidate) bool { return x.doc == c.doc }) {
					cands = append(cands, c)
				}
			}
		}
		near := make([][]float64, len(cands))
		if proximity {
			if err := ix.proximity(ctx, r, p, cands, func(i int, v float64) { near[i] = append(near[i], v) }); err != nil {
				return err
			}
		}
		urls := st.resolveURLs(cands)
		out.Hits = make([]ShardHit, len(cands))
		for i, c := range cands {
			out.Hits[i] = ShardHit{URL: urls[i], Score: c.score, Words: popcount(c.matched), Near: near[i]}
		}
		return nil
	})
	return out, err
}

// MergeShards merges shards' answers to one query into the ranking one
// index over all their pages gives (match): the coordination rule decided
// on the summed counts, the proximity component added to the best
// proximity_depth pages over all shards, the first limit pages best first
// (ties by URL), and the number of qualifying pages. Exact when the shards
// scored with the cluster's statistics; with their own, it is what a merge
// of independent searches gives.
func MergeShards(cfg RetrievalConfig, results []ShardResult, limit int) (ranked []Ranked, total int) {
	required, qualified, matched := 1, 0, 0
	for _, r := range results {
		required = max(required, r.Required)
		qualified += r.Qualified
		matched += r.Matched
	}
	and := required > 1 && qualified >= cfg.MinResults
	total = matched
	if and {
		total = qualified
	}
	var hits []ShardHit
	seen := map[string]struct{}{}
	proximity := false
	for _, r := range results {
		for _, h := range r.Hits {
			if and && h.Words < required {
				continue
			}
			if _, dup := seen[h.URL]; dup {
				continue // a page held by two shards (moved between them) counts once
			}
			seen[h.URL] = struct{}{}
			hits = append(hits, h)
			proximity = proximity || h.Near != nil
		}
	}
	byScore := func(a, b ShardHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.URL, b.URL)
	}
	slices.SortFunc(hits, byScore)
	if proximity {
		best := hits[:min(len(hits), cfg.ProximityDepth)]
		for i := range best {
			for _, v := range best[i].Near {
				best[i].Score += v
			}
		}
		slices.SortFunc(best, byScore)
	}
	if limit >= 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	ranked = make([]Ranked, len(hits))
	for i, h := range hits {
		ranked[i] = Ranked{URL: h.URL, Score: h.Score}
	}
	return ranked, total
}

// DFTable is the size of the df table this shard would publish if the
// cluster exchanged statistics periodically instead of per query (see
// package index/fanout): its text field's words, each with its length,
// the word and its df as varints.
func (ix *Index) DFTable(ctx context.Context) (words, bytes int, err error) {
	err = ix.withText(ctx, func(r bindex.IndexReader, _ mapping.IndexMapping, st *snapText) error {
		words = len(st.terms)
		for t, w := range st.terms {
			bytes += uvarintLen(uint64(len(w))) + len(w) + uvarintLen(uint64(st.termAt[t+1]-st.termAt[t]))
		}
		return nil
	})
	return words, bytes, err
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}
