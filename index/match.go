package index

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// This file is the searcher's retrieval: best-match ranking of a parsed
// query over one index snapshot. The text field's postings come from the
// snapshot's copy in memory (snaptext.go), the title's and the filters'
// from Bleve; the scores are deltaq's own (see RetrievalConfig for every
// constant):
//
//   - BM25 over the text field (title + main text) with textbook
//     statistics: idf = ln(1 + (N − df + 0.5)/(df + 0.5)), the document's
//     analyzed length against the mean analyzed length of the snapshot's
//     documents (snapText), k1 and b from the configuration. Bleve
//     2.6.1's own BM25 divides by a vocabulary size per document (scorer.go),
//     about 6 where a page has a hundred tokens, and moves when segments
//     merge; the mean token count does neither.
//   - A title component: each query word found in the title adds
//     title_weight·idf·tf(k1+1)/(tf+k1) (b = 0: titles are short and of
//     similar length). The title is indexed with an analyzer that keeps
//     stop words (titleAnalyzerName).
//   - A word repeated in the query counts once per occurrence, as each
//     token of a match query is its own term query in Bleve.
//   - Coordination: a query of at most short_query_terms distinct words
//     needs every word in a page; a longer one needs min_should_match of
//     them (rounded up). When fewer than min_results pages qualify, any
//     page with at least one word does (OR): a best-match engine answers
//     a question even when no page has all its words.
//   - RM3 (Abdul-Jaleel et al. 2004): a longer query is expanded by the
//     relevance model of its best feedback_docs pages (expand), cut to
//     the feedback_terms likeliest words and interpolated with the
//     query's own distribution, the model weighing feedback_weight
//     (Interpolate). Words new to the query that more than
//     feedback_max_df of the pages hold are left out: their idf is low,
//     so they move scores little, yet their postings were most of what
//     an expanded query read (on digitalgov-2023, "us" in 55 % of the
//     pages, "new" in 57 %, "digital.gov" in 97 %).
//   - Proximity: the best proximity_depth pages get, for each pair of
//     words adjacent in the query, proximity_weight·min(idf)·c/(c+k1),
//     c the number of their occurrences within proximity_window positions
//     of each other (Metzler and Croft's unordered window, saturated like
//     tf).
//   - Quotes, -exclusions and site: filter: a "phrase" must occur as a
//     phrase (its words are also scored), an excluded word or phrase must
//     not occur, and site: keeps the given hosts and their subdomains.
//   - A query whose words are all stop words ("the who") searches the
//     titles for them, the only field that keeps them, and its excluded
//     stop words too ("the -the" finds nothing); beside other words a
//     stop word is ignored, excluded or not.
//   - A query of more than index.max_query_terms distinct words keeps the
//     max_query_terms rarest (highest idf), first occurrence breaking ties.
//
// Ties are broken by URL ascending, so a ranking is a function of the
// index's content, and so is which of several pages tied at the cut a call
// keeps (tiesByURL). Not yet RM3's feedback pages: pages tied at the
// feedback_docs-th score are taken by document number (compareCandidates),
// which depends on how segments merged; ordering candidates by URL in
// compareCandidates itself would settle every cut at once. Only the best
// pages a call asks for are sorted (sortBest), and only they (and pages
// tied at the cut) are resolved to URLs.

// titleAnalyzerName is the analyzer of FieldTitle: AnalyzerName without
// its stop-word filter, so titles keep "the", "who".
const titleAnalyzerName = "deltaq_title"

// qterm is one distinct analyzed word of a query.
type qterm struct {
	term   string
	weight float64 // occurrences in the query, or the feedback model's weight
	first  int     // position of the first occurrence
	df     uint64
	idf    float64
}

// matchPlan is a parsed query made ready for scoring on one snapshot.
type matchPlan struct {
	terms     []qterm
	titleOnly bool // a stop-word query: score FieldTitle alone
	required  int  // words a page must have (before the OR fallback)
	phrases   []query.Query
	mustNot   []query.Query
	sites     []query.Query
	// n and meanLen are the statistics the scores read besides each
	// word's df: the snapshot's, or the cluster's (Stats).
	n       uint64
	meanLen float64
}

// expands reports whether RM3 expands the plan (MatchFeedback): a
// stop-word query, scored on titles alone, never is.
func (p *matchPlan) expands(cfg RetrievalConfig) bool {
	return MatchFeedback(cfg, len(p.terms)) && !p.titleOnly
}

// maxMatchTerms bounds index.max_query_terms: a page's matched words are
// a 64-bit set.
const maxMatchTerms = 64

// candidate is one page being scored.
type candidate struct {
	doc     uint64 // the snapshot's document number
	score   float64
	matched uint64 // bit i: terms[i] occurs in the page
}

// planQuery analyzes q for scoring on r: its words (and the words of its
// phrases) with the text field's analyzer, or, when they are all stop
// words, with the title's; the filters as Bleve queries. The statistics
// are the snapshot's, or gs's when it is not nil (a shard of a cluster
// scoring with the cluster's).
func (ix *Index) planQuery(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, st *snapText, q Query, gs *MatchStats) (*matchPlan, error) {
	cfg := ix.cfg.Retrieval
	p := &matchPlan{n: st.n, meanLen: st.meanLen}
	if gs != nil {
		p.n, p.meanLen = gs.Docs, gs.meanLen()
	}
	var err error
	if p.terms, p.titleOnly, err = ix.queryWords(ctx, r, m, st, q, gs == nil); err != nil {
		return nil, err
	}
	for i := range p.terms {
		if gs != nil {
			df, ok := gs.DF[p.terms[i].term]
			if !ok {
				return nil, fmt.Errorf("index: cluster statistics lack the word %q", p.terms[i].term)
			}
			p.terms[i].df = df
		}
		p.terms[i].idf = bm25IDF(p.n, p.terms[i].df)
	}
	if limit := ix.cfg.MaxQueryTerms; len(p.terms) > limit {
		// Keep the rarest words: they carry the query's meaning.
		slices.SortStableFunc(p.terms, func(a, b qterm) int { return cmp.Compare(b.idf, a.idf) })
		p.terms = p.terms[:limit]
		slices.SortFunc(p.terms, func(a, b qterm) int { return cmp.Compare(a.first, b.first) })
	}
	p.required = MatchRequired(cfg, len(p.terms))
	for _, ph := range q.Phrases {
		if pq := ix.phraseQuery(m, ph, 2); pq != nil {
			p.phrases = append(p.phrases, pq)
		}
	}
	for _, t := range q.ExcludeTerms {
		switch {
		case len(ix.Analyzer().Analyze([]byte(t))) > 0:
			p.mustNot = append(p.mustNot, textMatch(t))
		case p.titleOnly:
			// An excluded stop word is read as a wanted one is: in the
			// titles when the query's words are stop words alone ("the
			// -the" finds nothing), ignored beside other words.
			if pq := ix.phraseQuery(m, t, 1); pq != nil {
				p.mustNot = append(p.mustNot, pq)
			}
		}
	}
	for _, ph := range q.ExcludePhrases {
		if pq := ix.phraseQuery(m, ph, 1); pq != nil {
			p.mustNot = append(p.mustNot, pq)
		}
	}
	for _, s := range q.ExcludeSites {
		p.mustNot = append(p.mustNot, siteQuery(s))
	}
	for _, s := range q.Sites {
		p.sites = append(p.sites, siteQuery(s))
	}
	return p, nil
}

// phraseQuery matches the pages that hold the phrase ph, when it has at
// least min words: in FieldText, or, when ph is all stop words, which
// FieldText does not keep, in FieldTitle, which does. Such a phrase found
// only in a page's text is not found: better than taking the phrase for
// no phrase and answering pages without it. Nil when ph has fewer words
// (one word is a term, not a phrase, when it is wished for).
func (ix *Index) phraseQuery(m mapping.IndexMapping, ph string, min int) query.Query {
	if n := len(ix.Analyzer().Analyze([]byte(ph))); n > 0 {
		if n < min {
			return nil
		}
		return textPhrase(ph)
	}
	if ta := titleAnalyzer(m); ta != nil && len(ta.Analyze([]byte(ph))) >= min {
		return titlePhrase(ph)
	}
	return nil
}

// queryText is the text of q's terms and phrases, as it is analyzed.
func queryText(q Query) []byte {
	var text []byte
	for i, w := range q.Terms {
		if i > 0 {
			text = append(text, ' ')
		}
		text = append(text, w...)
	}
	for i, w := range q.Phrases {
		if i > 0 || len(q.Terms) > 0 {
			text = append(text, ' ')
		}
		text = append(text, w...)
	}
	return text
}

// queryTerms returns the terms the text analyzer makes of text, q's
// queryText, in order (read-only: the slice is shared), remembered in q
// for the next call with the same index and text. Unlike Analyze, it
// leaves text as it is.
func (ix *Index) queryTerms(q Query, text []byte) []string {
	if w := q.words; w != nil {
		w.mu.Lock()
		ok, terms := w.ix == ix && w.text == string(text), w.terms
		w.mu.Unlock()
		if ok {
			return terms
		}
	}
	key := string(text)
	tokens := ix.Analyzer().Analyze([]byte(key)) // a copy: it lower-cases in place
	terms := make([]string, len(tokens))
	for i, tok := range tokens {
		terms[i] = string(tok.Term)
	}
	if w := q.words; w != nil {
		w.mu.Lock()
		w.ix, w.text, w.terms = ix, key, terms
		w.mu.Unlock()
	}
	return terms
}

// queryWords analyzes q's words (and the words of its phrases) with the
// text field's analyzer, or, when they are all stop words, with the
// title's (titleOnly): each distinct word once, weighed by its
// occurrences, with its document frequency on the snapshot in that field
// when localDF is set.
func (ix *Index) queryWords(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, st *snapText, q Query, localDF bool) (terms []qterm, titleOnly bool, err error) {
	words, titleOnly, err := ix.analyzeQuery(m, q)
	if err != nil {
		return nil, false, err
	}
	field := FieldText
	if titleOnly {
		field = FieldTitle
	}
	byTerm := map[string]int{}
	for i, t := range words {
		if k, ok := byTerm[t]; ok {
			terms[k].weight++
			continue
		}
		byTerm[t] = len(terms)
		terms = append(terms, qterm{term: t, weight: 1, first: i})
	}
	if !localDF {
		return terms, titleOnly, nil
	}
	for i := range terms {
		if field == FieldText {
			terms[i].df = uint64(len(st.postings(terms[i].term)))
			continue
		}
		tfr, err := r.TermFieldReader(ctx, []byte(terms[i].term), field, false, false, false)
		if err != nil {
			return nil, false, fmt.Errorf("index: postings of %q: %w", terms[i].term, err)
		}
		terms[i].df = tfr.Count()
		tfr.Close()
	}
	return terms, titleOnly, nil
}

// analyzeQuery is queryWords' analysis: q's words with the text field's
// analyzer, or, when they are all stop words, with the title's
// (titleOnly); a *QueryError when none is left.
func (ix *Index) analyzeQuery(m mapping.IndexMapping, q Query) (words []string, titleOnly bool, err error) {
	text := queryText(q)
	words = ix.queryTerms(q, text)
	if len(words) == 0 {
		if ta := titleAnalyzer(m); ta != nil {
			// The title's analyzer reads the text as the text
			// analyzer leaves it (lower case, in place).
			ix.Analyzer().Analyze(text)
			for _, tok := range ta.Analyze(text) {
				words = append(words, string(tok.Term))
			}
			titleOnly = true
		}
	}
	if len(words) == 0 {
		return nil, false, NoSearchableWords(q.String(), "punctuation")
	}
	return words, titleOnly, nil
}

// CheckQuery returns the *QueryError a search for q would give when
// analysis leaves none of its words, without searching.
func (ix *Index) CheckQuery(q Query) error {
	_, _, err := ix.analyzeQuery(ix.Mapping(), q)
	return err
}

// titleAnalyzer is the title field's analyzer, nil for an index built
// before the title was searchable (or none open).
func titleAnalyzer(m mapping.IndexMapping) analysis.Analyzer {
	if m == nil || m.AnalyzerNameForPath(FieldTitle) != titleAnalyzerName {
		return nil
	}
	return m.AnalyzerNamed(titleAnalyzerName)
}

// bm25IDF is BM25's idf, ln(1 + (N − df + 0.5)/(df + 0.5)): positive for
// every df ≤ N.
func bm25IDF(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// match scores q on the snapshot r and returns the qualifying pages, best
// first, ties by URL; only the first limit are resolved to URLs and
// returned (limit < 0: all), with their document numbers. total is the
// number of qualifying pages.
func (ix *Index) match(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, st *snapText, q Query, limit int) (ranked []Ranked, docs []uint64, total int, err error) {
	return ix.matchPages(ctx, r, m, st, q, limit, true, nil, nil)
}

// matchPages is match; unless ordered, the pages it returns (the same
// ones) are in no particular order, for a caller that orders them
// itself: the best limit are selected, not sorted. The pages and their
// document numbers are written over ranked and docs, whose arrays are
// reused when large enough.
func (ix *Index) matchPages(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, st *snapText, q Query, limit int, ordered bool, ranked []Ranked, docs []uint64) (_ []Ranked, _ []uint64, total int, err error) {
	cfg := ix.cfg.Retrieval
	p, err := ix.planQuery(ctx, r, m, st, q, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	// The candidates live in a pooled buffer until the hits are copied out.
	buf, _ := ix.cands.Get().(*[]candidate)
	if buf == nil {
		buf = new([]candidate)
	}
	defer ix.cands.Put(buf)
	feedback := p.expands(cfg)
	var cands []candidate
	if feedback && ix.prunable(p, st) {
		// Only the feedback pages are wanted: found without scoring
		// every page (prune.go).
		cands, err = ix.bestMatches(ctx, st, p, cfg.FeedbackDocs, (*buf)[:0])
	} else {
		cands, err = ix.candidates(ctx, r, st, p, (*buf)[:0])
	}
	*buf = cands[:0]
	if err != nil {
		return nil, nil, 0, err
	}
	if feedback {
		ix.expand(st, p, cands)
		cands, err = ix.accumulate(ctx, r, st, p, cands[:0])
		*buf = cands[:0]
		if err != nil {
			return nil, nil, 0, err
		}
	}
	if cands, err = filter(ctx, r, m, p, cands); err != nil {
		return nil, nil, 0, err
	}
	// Coordination, with the OR fallback.
	if p.required > 1 {
		all := 0
		for _, c := range cands {
			if popcount(c.matched) >= p.required {
				all++
			}
		}
		if all >= cfg.MinResults {
			cands = slices.DeleteFunc(cands, func(c candidate) bool { return popcount(c.matched) < p.required })
		}
	}
	total = len(cands)
	// Only the best max(limit, proximity depth) are ordered: they are
	// selected first (the order of all is needed only for limit < 0).
	proximity := len(p.terms) > 1 && cfg.ProximityWeight > 0 && cfg.ProximityDepth > 0
	keep := len(cands)
	if limit >= 0 {
		keep = min(keep, limit)
		if proximity {
			keep = min(len(cands), max(limit, cfg.ProximityDepth))
		}
	}
	all := cands
	if ordered || proximity {
		cands = sortBest(cands, keep)
	} else {
		cands = selectBest(cands, keep)
	}
	tiesByURL(all, keep, st.urls)
	if proximity {
		depth := min(cfg.ProximityDepth, len(cands))
		best := cands[:depth]
		if err := ix.proximity(ctx, r, p, best, func(i int, v float64) { best[i].score += v }); err != nil {
			return nil, nil, 0, err
		}
		slices.SortFunc(cands[:depth], compareCandidates)
		if limit >= 0 {
			tiesByURL(cands, limit, st.urls) // the boosts made new ties
		}
	}
	if limit >= 0 && len(cands) > limit {
		cands = cands[:limit]
	}
	// Equal scores in URL order (Bleve's document numbers depend on how
	// segments merged). cands are in score order already, so an
	// insertion sort only reorders runs of equal scores, in place.
	ranked, docs = slices.Grow(ranked[:0], len(cands))[:len(cands)], slices.Grow(docs[:0], len(cands))[:len(cands)]
	for i, c := range cands {
		ranked[i], docs[i] = Ranked{URL: st.urls[c.doc], Score: c.score}, c.doc
		for j := i; ordered && j > 0 && rankedBefore(ranked[j], ranked[j-1]); j-- {
			ranked[j], ranked[j-1] = ranked[j-1], ranked[j]
			docs[j], docs[j-1] = docs[j-1], docs[j]
		}
	}
	return ranked, docs, total, nil
}

// tiesByURL makes the k pages selected at the front of all (by
// compareCandidates, whose ties go by document number, which depends on how
// the index's segments merged) a function of the index's content: when
// pages left out tie with the lowest score kept, the tied pages kept are
// the tied ones with the smallest URLs. A run of equal scores keeps its
// place in the front, so a sorted front stays sorted by score.
func tiesByURL(all []candidate, k int, urls []string) {
	if k <= 0 || k >= len(all) {
		return
	}
	low := all[0].score
	for _, c := range all[1:k] {
		low = min(low, c.score)
	}
	var at []int // positions in all of the pages scoring low
	kept := 0
	for i, c := range all {
		if c.score == low {
			if at = append(at, i); i < k {
				kept++
			}
		}
	}
	if kept == len(at) {
		return // no page left out ties
	}
	tied := make([]candidate, len(at))
	for j, i := range at {
		tied[j] = all[i]
	}
	slices.SortFunc(tied, func(a, b candidate) int { return cmp.Compare(urls[a.doc], urls[b.doc]) })
	// The first kept of them (smallest URLs) take the kept places, in
	// document order as compareCandidates orders equal scores.
	slices.SortFunc(tied[:kept], compareCandidates)
	for j, i := range at {
		all[i] = tied[j]
	}
}

// rankedBefore orders hits by score descending, then URL ascending.
func rankedBefore(a, b Ranked) bool {
	return a.Score > b.Score || a.Score == b.Score && a.URL < b.URL
}

// filter drops the candidates that miss a phrase of p, hold an excluded
// word, phrase or site, or are on none of p's sites.
func filter(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, p *matchPlan, cands []candidate) ([]candidate, error) {
	var need []map[uint64]struct{}
	for _, ph := range p.phrases {
		set, err := docSet(ctx, r, m, ph)
		if err != nil {
			return nil, err
		}
		need = append(need, set)
	}
	if len(p.sites) > 0 {
		set, err := docSet(ctx, r, m, query.NewDisjunctionQuery(p.sites))
		if err != nil {
			return nil, err
		}
		need = append(need, set)
	}
	var excluded map[uint64]struct{}
	if len(p.mustNot) > 0 {
		var err error
		if excluded, err = docSet(ctx, r, m, query.NewDisjunctionQuery(p.mustNot)); err != nil {
			return nil, err
		}
	}
	if len(need) > 0 || excluded != nil {
		cands = slices.DeleteFunc(cands, func(c candidate) bool {
			if _, out := excluded[c.doc]; out {
				return true
			}
			for _, set := range need {
				if _, in := set[c.doc]; !in {
					return true
				}
			}
			return false
		})
	}
	return cands, nil
}

// compareCandidates orders candidates best first: score descending, then
// document number ascending (scores are finite, so plain comparisons do).
func compareCandidates(a, b candidate) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	case a.doc < b.doc:
		return -1
	case a.doc > b.doc:
		return 1
	}
	return 0
}

// sortBest returns the k best of cands (compareCandidates), best first,
// reordering cands: a quickselect moves them to the front, then only they
// are sorted, which for the few hundred a page of results needs out of
// thousands of candidates is a fraction of sorting all.
func sortBest(cands []candidate, k int) []candidate {
	cands = selectBest(cands, k)
	slices.SortFunc(cands, compareCandidates)
	return cands
}

// selectBest returns the k best of cands (compareCandidates) in no
// particular order, moved to the front of cands by a quickselect. When k
// is a small share of many candidates (a long query's RM3 words match
// thousands of pages, of which ranking takes 200), the candidates scoring
// at least a threshold taken from a sample are moved to the front first,
// and the quickselect runs over them alone if they are at least k: each
// of them beats every other candidate, so their k best are the k best.
func selectBest(cands []candidate, k int) []candidate {
	if k >= len(cands) {
		return cands
	}
	switch front := frontBySample(cands, k); {
	case front > k:
		quickselect(cands[:front], k)
	case front < k:
		quickselect(cands, k)
	}
	return cands[:k]
}

// frontBySample moves to the front of cands those scoring at least a
// threshold that about twice k of them reach, judged from a sample of
// their scores, and returns how many it moved; 0 when cands are too few
// for the sample to pay.
func frontBySample(cands []candidate, k int) int {
	const samples = 128
	if len(cands) < 2048 || len(cands) < 8*k {
		return 0
	}
	var sample [samples]float64
	for i := range sample {
		sample[i] = cands[i*len(cands)/samples].score
	}
	slices.Sort(sample[:])
	// The sample's rank that about 2k of the candidates reach, from the top.
	top := min(samples-1, 2*k*samples/len(cands)+4)
	threshold := sample[samples-1-top]
	front := 0
	for j := range cands {
		if cands[j].score >= threshold {
			cands[front], cands[j] = cands[j], cands[front]
			front++
		}
	}
	return front
}

// quickselect moves the k best of cands (0 < k < len(cands)) to the
// front, in no particular order.
func quickselect(cands []candidate, k int) {
	lo, hi := 0, len(cands)
	for hi-lo > 1 {
		// Median of three as the pivot, moved to the end.
		mid := lo + (hi-lo)/2
		a, b, c := lo, mid, hi-1
		if compareCandidates(cands[b], cands[a]) < 0 {
			a, b = b, a
		}
		if compareCandidates(cands[c], cands[b]) < 0 {
			b = c
			if compareCandidates(cands[b], cands[a]) < 0 {
				b = a
			}
		}
		cands[b], cands[hi-1] = cands[hi-1], cands[b]
		pivot := cands[hi-1]
		i := lo
		for j := lo; j < hi-1; j++ {
			if compareCandidates(cands[j], pivot) < 0 {
				cands[i], cands[j] = cands[j], cands[i]
				i++
			}
		}
		cands[i], cands[hi-1] = cands[hi-1], cands[i]
		// cands[lo:i] beat the pivot, now at i; cands[i+1:hi] do not.
		switch {
		case i == k || i+1 == k:
			hi = lo // done
		case k < i:
			hi = i
		default:
			lo = i + 1
		}
	}
}

// internalID is the candidate's document number as Bleve encodes it.
func (c *candidate) internalID() bindex.IndexInternalID {
	return bindex.NewIndexInternalID(nil, c.doc)
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// proximity adds the proximity component of cands (sorted by document
// number inside) from the positions of the query's words: add(i, v) for
// each pair of adjacent words near each other in candidate i, in the
// query's order.
func (ix *Index) proximity(ctx context.Context, r bindex.IndexReader, p *matchPlan, cands []candidate, add func(i int, v float64)) error {
	cfg := ix.cfg.Retrieval
	if p.titleOnly {
		return nil
	}
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(cands[a].doc, cands[b].doc) })
	// positions[t][k]: positions of term t in candidate idx[k].
	positions := make([][][]uint64, len(p.terms))
	for t := range p.terms {
		positions[t] = make([][]uint64, len(cands))
		tfr, err := r.TermFieldReader(ctx, []byte(p.terms[t].term), FieldText, false, false, true)
		if err != nil {
			return fmt.Errorf("index: positions of %q: %w", p.terms[t].term, err)
		}
		for k, i := range idx {
			if cands[i].matched&(1<<t) == 0 {
				continue
			}
			d, err := tfr.Advance(cands[i].internalID(), nil)
			if err != nil {
				tfr.Close()
				return fmt.Errorf("index: positions of %q: %w", p.terms[t].term, err)
			}
			if d == nil || d.ID.Value() != cands[i].doc {
				continue
			}
			for _, v := range d.Vectors {
				positions[t][k] = append(positions[t][k], v.Pos)
			}
		}
		tfr.Close()
	}
	// Pairs of words adjacent in the query (terms are in query order).
	for t := 0; t+1 < len(p.terms); t++ {
		if p.terms[t+1].first == math.MaxInt {
			break // feedback words (expand) are not in the query's order
		}
		w := cfg.ProximityWeight * min(p.terms[t].idf, p.terms[t+1].idf)
		for k, i := range idx {
			c := float64(windowPairs(positions[t][k], positions[t+1][k], uint64(cfg.ProximityWindow)))
			if c > 0 {
				add(i, w*c/(c+cfg.K1))
			}
		}
	}
	return nil
}

// windowPairs counts the positions of a that have a position of b within
// window of them, on either side; a and b are ascending.
func windowPairs(a, b []uint64, window uint64) int {
	n, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j]+window < x {
			j++
		}
		if j < len(b) && b[j] <= x+window {
			n++
		}
	}
	return n
}

// docSet returns the internal numbers of the documents matching bq on r.
func docSet(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, bq query.Query) (map[uint64]struct{}, error) {
	s, err := bq.Searcher(ctx, r, m, search.SearcherOptions{})
	if err != nil {
		return nil, fmt.Errorf("index: filter: %w", err)
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0), IndexReader: r}
	out := map[uint64]struct{}{}
	for {
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, fmt.Errorf("index: filter: %w", err)
		}
		if dm == nil {
			return out, nil
		}
		out[dm.IndexInternalID.Value()] = struct{}{}
		sctx.DocumentMatchPool.Put(dm)
	}
}

// accumulate scores every page holding one of p's words: BM25 on the text
// field plus the title component (or, for a stop-word query, the title
// alone). The candidates are appended to cands.
func (ix *Index) accumulate(ctx context.Context, r bindex.IndexReader, st *snapText, p *matchPlan, cands []candidate) ([]candidate, error) {
	size := 0
	if !p.titleOnly {
		for _, t := range p.terms {
			size += len(st.postings(t.term))
		}
		cands = slices.Grow(cands, int(min(uint64(size), st.n)))
	}
	// acc[doc] sums the page's score and the words it holds: a dense
	// array indexed by document number, reused across queries (and left
	// all zero after each), is cheaper than a map per posting, and one
	// entry per page reads one place per posting.
	sp, _ := ix.slots.Get().(*[]accumulator)
	if sp == nil {
		sp = new([]accumulator)
	}
	if len(*sp) < len(st.length) {
		*sp = make([]accumulator, len(st.length))
	}
	defer ix.slots.Put(sp)
	if !p.titleOnly && ix.cfg.Retrieval.TitleWeight == 0 && uint64(size) >= st.n/denseShare {
		return ix.accumulateDense(ctx, st, p, *sp, cands)
	}
	return ix.accumulateSparse(ctx, r, st, p, sp, cands)
}

// accumulateSparse is accumulate for a query whose postings reach few of
// the pages, or that scores titles: the candidates list the pages in the
// order they were first met, and only their sums in *sp (which grows to a
// title posting's document number) are read and cleared.
func (ix *Index) accumulateSparse(ctx context.Context, r bindex.IndexReader, st *snapText, p *matchPlan, sp *[]accumulator, cands []candidate) ([]candidate, error) {
	cfg := ix.cfg.Retrieval
	acc := *sp
	first := len(cands)
	defer func() {
		for _, c := range cands[first:] {
			acc[c.doc] = accumulator{}
		}
		*sp = acc
	}()
	k1, b, meanLen := cfg.K1, cfg.B, p.meanLen
	// add adds score s of term i to document doc; only text postings (or,
	// for a stop-word query, title postings) add pages.
	add := func(i int, doc uint64, s float64, adds bool) {
		if doc >= uint64(len(acc)) {
			acc = append(acc, make([]accumulator, int(doc)+1-len(acc)+len(acc)/2)...)
		}
		a := &acc[doc]
		if a.matched == 0 { // no word yet: not a candidate yet
			if !adds {
				return
			}
			cands = append(cands, candidate{doc: doc})
		}
		a.score += s
		a.matched |= 1 << i
	}
	// title adds the title postings of term i: BM25 with b = 0 (titles
	// are short and of similar length).
	var tfd bindex.TermFieldDoc
	title := func(i int, weight float64) error {
		t := p.terms[i]
		tfr, err := r.TermFieldReader(ctx, []byte(t.term), FieldTitle, true, false, false)
		if err != nil {
			return fmt.Errorf("index: postings of %q: %w", t.term, err)
		}
		defer tfr.Close()
		w := weight * t.idf * t.weight
		for j := 0; ; j++ {
			if j%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			d, err := tfr.Next(&tfd)
			if err != nil {
				return fmt.Errorf("index: postings of %q: %w", t.term, err)
			}
			if d == nil {
				return nil
			}
			add(i, d.ID.Value(), w*saturation(float64(d.Freq), 1, k1), p.titleOnly)
		}
	}
	for i, t := range p.terms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.titleOnly {
			if err := title(i, 1); err != nil {
				return nil, err
			}
			continue
		}
		// The text postings, from memory: BM25 with length normalization,
		// add inline, as this loop is most of a long query's search.
		if id, ok := st.term(t.term); ok {
			w, sats, bit := t.idf*t.weight, st.saturations(id, k1, b, meanLen).v, uint64(1)<<i
			for j, d := range st.postingsOf(id) {
				a := &acc[d.of]
				if a.matched == 0 {
					cands = append(cands, candidate{doc: uint64(d.of)})
				}
				a.score += w * sats[j]
				a.matched |= bit
			}
		}
		if cfg.TitleWeight > 0 {
			if err := title(i, cfg.TitleWeight); err != nil {
				return nil, err
			}
		}
	}
	for k := first; k < len(cands); k++ {
		a := acc[cands[k].doc]
		cands[k].score, cands[k].matched = a.score, a.matched
	}
	return cands, nil
}

// denseShare: accumulate sums a query's text postings without tracking
// which pages they reach first (accumulateDense) once they number at
// least 1/denseShare of the pages. On digitalgov-2023 week 0 a long
// query's RM3 expansion has ~23,000 postings over ~4,200 of 4,968 pages,
// and summing them densely takes less than half the time.
const denseShare = 2

// accumulateDense is accumulate for a query scored on the text field
// alone whose postings are many for the snapshot's pages (a long query
// expanded by RM3 reaches most of them): each posting adds to its page's
// sums with no test of whether the page is new, and one pass over every
// page then lists the candidates, in document order, and clears the sums.
// The scores are accumulate's bits: the same products added in the same
// word order.
func (ix *Index) accumulateDense(ctx context.Context, st *snapText, p *matchPlan, acc []accumulator, cands []candidate) ([]candidate, error) {
	cfg := ix.cfg.Retrieval
	acc = acc[:len(st.length)]
	for i, t := range p.terms {
		if err := ctx.Err(); err != nil {
			clear(acc)
			return cands, err
		}
		if id, ok := st.term(t.term); ok {
			w, sats, bit := t.idf*t.weight, st.saturations(id, cfg.K1, cfg.B, p.meanLen).v, uint64(1)<<i
			for j, d := range st.postingsOf(id) {
				a := &acc[d.of]
				a.score += w * sats[j]
				a.matched |= bit
			}
		}
	}
	for doc := range acc {
		if a := acc[doc]; a.matched != 0 {
			cands = append(cands, candidate{doc: uint64(doc), score: a.score, matched: a.matched})
			acc[doc] = accumulator{}
		}
	}
	return cands, nil
}

// accumulator is a page's sums while accumulate scores: its score, and
// the words it holds (bit i: p.terms[i]; none: not a candidate).
type accumulator struct {
	score   float64
	matched uint64
}

// expand replaces p's words by an RM3 query (Abdul-Jaleel et al. 2004):
// the relevance model of the best cfg.FeedbackDocs pages of cands
// (RelevanceModel), cut to the cfg.FeedbackTerms likeliest words and
// interpolated with the query's own word distribution (applyModel). The
// pages' words come from the snapshot's forward index, ascending by id
// (sortedRelevanceModel).
func (ix *Index) expand(st *snapText, p *matchPlan, cands []candidate) {
	cfg := ix.cfg.Retrieval
	var top []candidate
	for _, c := range cands {
		top = keepBest(top, cfg.FeedbackDocs, c, compareCandidates)
	}
	if len(top) == 0 {
		return
	}
	pages := make([]feedbackList, len(top))
	for i, c := range top {
		pages[i] = feedbackList{score: c.score, length: st.docLength(c.doc), words: st.docTerms(c.doc)}
	}
	model := sortedRelevanceModel(pages, cfg.FeedbackTerms)
	p.terms = applyModel(cfg, p.terms, model, func(w uint32) string { return st.terms[w] }, func(w uint32) uint64 {
		return uint64(st.termAt[w+1] - st.termAt[w])
	}, p.n)
}

// applyModel interpolates the query's words with the relevance model
// (Interpolate), the model's words named by word and counted by df among n
// pages. Words new to the query come after its own (first = math.MaxInt,
// out of the proximity pairs).
func applyModel(cfg RetrievalConfig, terms []qterm, model []RelevanceWord, word func(uint32) string, df func(uint32) uint64, n uint64) []qterm {
	weights := make([]float64, len(terms))
	byTerm := make(map[string]int, len(terms))
	for i, t := range terms {
		weights[i] = t.weight
		byTerm[t.term] = i
	}
	at := func(w uint32) int {
		if i, ok := byTerm[word(w)]; ok {
			return i
		}
		return -1
	}
	added := Interpolate(cfg, weights, model, at, df, n, maxMatchTerms-len(terms))
	for i := range terms {
		terms[i].weight = weights[i]
	}
	for _, m := range added {
		d := df(m.Word)
		terms = append(terms, qterm{term: word(m.Word), weight: m.P, first: math.MaxInt, df: d, idf: bm25IDF(n, d)})
	}
	return terms
}

// keepBest adds x to best, the (at most k) best items seen so far in
// order (compare < 0: better), and drops the worst beyond k: an insertion
// sort, for the few best of many.
func keepBest[T any](best []T, k int, x T, compare func(a, b T) int) []T {
	switch {
	case len(best) < k:
		best = append(best, x)
	case k > 0 && compare(x, best[k-1]) < 0:
		best[k-1] = x
	default:
		return best
	}
	for i := len(best) - 1; i > 0 && compare(best[i], best[i-1]) < 0; i-- {
		best[i], best[i-1] = best[i-1], best[i]
	}
	return best
}
