package synceval

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/deltaq/deltaq/index"
)

// Semantics name what a workload query means (eval.sync.semantics).
const (
	// SemanticsSearcher: a query is what `deltaq serve` answers
	// (index/match.go): best-match BM25 over deltaq's own statistics,
	// coordination with the OR fallback, RM3 for long queries. A(q, W^L)
	// is index.Ranker.Match and S(W[p], q) the same model on the live
	// copy (searcher.go).
	SemanticsSearcher = "searcher"
	// SemanticsThesis: the thesis's approximation, the query's terms
	// ANDed and scored by Bleve (index.Ranker.Rank,
	// index.ConjunctionScore), which needs the index's statistics those
	// of it compacted, every week (harness.go: env.compact).
	SemanticsThesis = "thesis"
)

var semanticsValues = []string{SemanticsSearcher, SemanticsThesis}

// liveIndex is a set of pages as the searcher would have them indexed:
// every term's postings, N and the mean analysed length of the text
// field. It is what S(W[p], q) is computed on for one week's live web.
type liveIndex struct {
	c       *corpus
	r       index.RetrievalConfig
	maxT    int // index.max_query_terms
	n       uint64
	meanLen float64
	post    [][]posting // by term id; nil for a term no page holds
	// slot is scratch for accumulate: 1 + candidate index by URL id.
	slot []int32
}

// posting is one page holding a term, with the term's frequency in it.
type posting struct {
	doc
	tf uint32
}

// newLiveIndex indexes docs (ascending by URL) as the searcher would.
func newLiveIndex(c *corpus, docs []doc, r index.RetrievalConfig, maxTerms int) *liveIndex {
	li := &liveIndex{c: c, r: r, maxT: maxTerms, post: make([][]posting, len(c.terms)), slot: make([]int32, len(c.urls))}
	li.reset(docs)
	return li
}

// reset indexes docs (ascending by URL) in place of what li held, reusing
// its posting lists' memory.
func (li *liveIndex) reset(docs []doc) {
	c := li.c
	for t := range li.post {
		li.post[t] = li.post[t][:0]
	}
	li.n = uint64(len(docs))
	var total uint64
	for _, d := range docs {
		b := &c.bodies[d.body]
		total += uint64(b.length)
		for i, t := range b.terms {
			li.post[t] = append(li.post[t], posting{d, b.tf[i]})
		}
	}
	// As index.textLengths: the summed frequencies over N, 1 for none.
	li.meanLen = 1
	if li.n > 0 && total > 0 {
		li.meanLen = float64(total) / float64(li.n)
	}
}

func (li *liveIndex) df(t uint32) uint64 {
	if !li.c.known(t) {
		return 0
	}
	return uint64(len(li.post[t]))
}

// conjunction calls fn for every page holding all of q's words, in no
// particular order, with Bleve's conjunction score under st
// (SemanticsThesis: index.ConjunctionScore).
func (li *liveIndex) conjunction(q *query, st index.CorpusStats, fn func(d doc, s float64)) {
	dfs := make([]uint64, len(q.terms))
	shortest := -1
	for i, t := range q.terms {
		if dfs[i] = li.df(t); shortest < 0 || dfs[i] < dfs[shortest] {
			shortest = i
		}
	}
	if dfs[shortest] == 0 {
		return
	}
	sc := newScoring(st, dfs)
	tfs := make([]uint64, len(q.terms))
outer:
	for _, p := range li.post[q.terms[shortest]] {
		d := p.doc
		b := &li.c.bodies[d.body]
		for i, t := range q.terms {
			tf := b.tfOf(t)
			if tf == 0 {
				continue outer
			}
			tfs[i] = uint64(tf)
		}
		// As scoring.score, with the counts looked up once.
		fn(d, index.ConjunctionScore(tfs, b.length, sc.st, sc.dfs, sc.weights))
	}
}

// sterm is one distinct word of a query being scored (index/match.go's
// qterm).
type sterm struct {
	id     uint32
	weight float64
	first  int
	idf    float64
}

// planTerms returns q's distinct words in order of first occurrence with
// their counts and idf under n and df, cut to the maxTerms rarest as the
// searcher does.
func planTerms(terms []uint32, maxTerms int, n uint64, df func(uint32) uint64) []sterm {
	var out []sterm
	for i, t := range terms {
		k := slices.IndexFunc(out, func(s sterm) bool { return s.id == t })
		if k >= 0 {
			out[k].weight++
			continue
		}
		out = append(out, sterm{id: t, weight: 1, first: i, idf: index.MatchIDF(n, df(t))})
	}
	if len(out) > maxTerms {
		slices.SortStableFunc(out, func(a, b sterm) int { return cmp.Compare(b.idf, a.idf) })
		out = out[:maxTerms]
		slices.SortFunc(out, func(a, b sterm) int { return cmp.Compare(a.first, b.first) })
	}
	return out
}

// scand is one page being scored.
type scand struct {
	d       doc
	score   float64
	matched uint64
}

// answerPlan is how the searcher answered a query on a set of pages: the
// words scored (after the max_query_terms cut and RM3's expansion), with
// their idf and weight, and whether the coordination rule kept only the
// pages matching required of them (false: the OR fallback). With the
// set's mean length it gives any page's score without the others
// (score).
type answerPlan struct {
	terms       []sterm
	required    int
	coordinated bool
}

// answer calls fn for every page the searcher returns for q, with its
// score, in the order the words' postings first reach it (a function of
// the pages alone), and returns how it answered.
func (li *liveIndex) answer(q *query, fn func(d doc, s float64)) answerPlan {
	ts := planTerms(q.terms, li.maxT, li.n, li.df)
	required := index.MatchRequired(li.r, len(ts))
	cands := li.accumulate(ts, nil)
	if index.MatchFeedback(li.r, len(ts)) {
		ts = li.expand(ts, cands)
		cands = li.accumulate(ts, cands[:0])
	}
	plan := answerPlan{terms: ts, required: required}
	coordinated := cands
	if required > 1 {
		var all []scand
		for _, c := range cands {
			if bits.OnesCount64(c.matched) >= required {
				all = append(all, c)
			}
		}
		if len(all) >= li.r.MinResults {
			coordinated, plan.coordinated = all, true
		}
	}
	for _, c := range coordinated {
		fn(c.d, c.score)
	}
	return plan
}

// score is the score answer gave, or would give, a page holding body b
// under plan p with mean length meanLen: its words' shares added in the
// plan's order as accumulate adds them (so the same float64), 0 for a page
// the answer does not hold (no word matched, or fewer than required when
// the rule applied).
func (p *answerPlan) score(r index.RetrievalConfig, c *corpus, b *body, meanLen float64) float64 {
	var s float64
	var matched uint64
	for i, t := range p.terms {
		if !c.known(t.id) {
			continue
		}
		if tf := b.tfOf(t.id); tf > 0 {
			s += index.MatchTextScore(r, t.idf, t.weight, uint64(tf), b.length, meanLen)
			matched |= 1 << i
		}
	}
	if matched == 0 || p.coordinated && bits.OnesCount64(matched) < p.required {
		return 0
	}
	return s
}

// accumulate scores every page holding one of ts's words (match.go's
// accumulate: per page, the words' shares added in the query's order).
func (li *liveIndex) accumulate(ts []sterm, cands []scand) []scand {
	for i, t := range ts {
		if !li.c.known(t.id) {
			continue // no page has it
		}
		for _, p := range li.post[t.id] {
			d := p.doc
			s := index.MatchTextScore(li.r, t.idf, t.weight, uint64(p.tf), li.c.bodies[d.body].length, li.meanLen)
			k := li.slot[d.url] - 1
			if k < 0 {
				k = int32(len(cands))
				li.slot[d.url] = k + 1
				cands = append(cands, scand{d: d})
			}
			cands[k].score += s
			cands[k].matched |= 1 << i
		}
	}
	for _, c := range cands {
		li.slot[c.d.url] = 0
	}
	return cands
}

// expand is match.go's RM3 expansion on the live pages: the relevance
// model (index.RelevanceModel) of the best feedback_docs pages (ties by
// URL, where the index breaks them by document number), cut to
// feedback_terms words and interpolated with the query's own distribution.
func (li *liveIndex) expand(ts []sterm, cands []scand) []sterm {
	top := slices.Clone(cands)
	slices.SortFunc(top, func(a, b scand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.d.url, b.d.url)
	})
	top = top[:min(len(top), li.r.FeedbackDocs)]
	if len(top) == 0 {
		return ts
	}
	pages := make([]index.FeedbackPage, len(top))
	for i, c := range top {
		b := &li.c.bodies[c.d.body]
		pages[i] = index.FeedbackPage{Score: c.score, Length: uint32(b.length), Words: b.terms, TFs: b.tf}
	}
	model := index.RelevanceModel(pages, li.r.FeedbackTerms)
	weights := make([]float64, len(ts))
	for i, t := range ts {
		weights[i] = t.weight
	}
	at := func(w uint32) int {
		return slices.IndexFunc(ts, func(t sterm) bool { return t.id == w })
	}
	added := index.Interpolate(li.r, weights, model, at, li.df, li.n, index.MaxMatchTerms-len(ts))
	ts = slices.Clone(ts)
	for i := range ts {
		ts[i].weight = weights[i]
	}
	for _, m := range added {
		ts = append(ts, sterm{id: m.Word, weight: m.P, first: -1, idf: index.MatchIDF(li.n, li.df(m.Word))})
	}
	return ts
}

// model is what a query means and how a page is scored for it: the
// semantics and the index settings each needs.
type model struct {
	semantics string
	scoring   index.Scoring // Bleve's model, for SemanticsThesis
	retrieval index.RetrievalConfig
	maxTerms  int // index.max_query_terms
	// depth is how many of an answer's results a user can see, A(q, ·)'s
	// length: ranking.candidates under SemanticsSearcher (the searcher
	// orders and pages that many, no more), 0 (all) under SemanticsThesis.
	depth int
}

func newModel(cfg Config) model {
	m := model{semantics: cfg.Semantics, scoring: cfg.Index.Scoring, retrieval: cfg.Index.Retrieval, maxTerms: cfg.Index.MaxQueryTerms}
	if m.searcher() {
		m.depth = cfg.Candidates
	}
	return m
}

func (m model) searcher() bool { return m.semantics == SemanticsSearcher }

// visible is how many of an answer of n results a user can see.
func (m model) visible(n int) int {
	if m.depth > 0 {
		return min(n, m.depth)
	}
	return n
}

// weekScorer answers queries on one week's live pages under a model.
type weekScorer struct {
	c  *corpus
	li *liveIndex // searcher
	p  *postings  // thesis
	st index.CorpusStats
}

// newWeekScorer prepares week w's live pages for the queries qs.
func (m model) newWeekScorer(c *corpus, w int, qs []query) *weekScorer {
	if m.searcher() {
		return &weekScorer{c: c, li: newLiveIndex(c, c.live[w], m.retrieval, m.maxTerms)}
	}
	return &weekScorer{c: c, p: newPostings(c, w, qs), st: c.weekStats(w, m.scoring)}
}

// answer calls fn for every live page answering q with its score
// S(W[p], q), in URL order under SemanticsThesis, and returns, under
// SemanticsSearcher, how the searcher answered.
func (ws *weekScorer) answer(q *query, fn func(d doc, s float64)) answerPlan {
	if ws.li != nil {
		return ws.li.answer(q, fn)
	}
	sc := newScoring(ws.st, ws.p.dfs(q.terms))
	ws.p.matches(q.terms, func(d doc) { fn(d, sc.score(&ws.c.bodies[d.body], q.terms)) })
	return answerPlan{}
}
