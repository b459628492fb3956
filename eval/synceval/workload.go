package synceval

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/deltaq/deltaq/internal/querylog"
)

// query is one query of the filtered workload Q (§4.7), analysed.
type query struct {
	// text is the first query string (in log order) with these terms; it
	// is what the local index is asked.
	text string
	// freq is f_q: the summed count of every log query analysing to the
	// same terms (they are the same query to the index).
	freq float64
	// terms are the analysed tokens as term ids, in analysis order and
	// with repeats: Bleve scores a match query with one term query per
	// token (index.ConjunctionWeights).
	terms []uint32
	// strings is how many distinct log strings were merged into it.
	strings int
	// week0 is Σ_p S(W_0[p], q) over the query's week-0 answer cut to the
	// depth a user sees (model.visible): the summed score the relevance
	// filter looks at.
	week0 float64
}

// workload is the query workload after the relevance filter.
type workload struct {
	queries []query // kept, in descending order of week0 (ties by text)
	// What the filter saw.
	logStrings   int       // distinct query strings in the log
	logTotal     float64   // Σ counts of the log
	noTerms      int       // strings with no searchable token (only stop words)
	unknownTerm  int       // distinct term lists with a term no archived page has (searcher: with no other term)
	noMatch      int       // distinct term lists no week-0 page matches
	candidates   int       // distinct term lists with a positive week-0 score
	threshold    float64   // the knee: kept queries score at least this
	keptStrings  int       // log strings merged into the kept queries
	keptTotal    float64   // Σ f_q of the kept queries
	multiTerm    int       // kept queries of more than one distinct term
	distinctTerm int       // distinct terms over the kept queries (|Q′|)
	sampled      bool      // capped by sample
	filtered     int       // queries the filter kept, before sample
	scores       []float64 // week0 of every candidate, for the knee plot
}

// buildWorkload analyses the log with the index's analyzer, scores every
// distinct term list over week 0 and keeps those at or above the knee of
// the sorted scores (knee), or with useKnee false every one that matches
// a week-0 page.
func buildWorkload(c *corpus, qs []querylog.Query, an analysis.Analyzer, m model, useKnee bool) *workload {
	wl := &workload{logStrings: len(qs)}
	known := wl.scorable(wl.analyse(c, qs, an, m))
	scoreWeek0(c, m, known)
	wl.keep(known, useKnee)
	wl.tally()
	return wl
}

// candidate is one distinct term list of the log, its strings' counts
// summed; ok is false when the model cannot answer it.
type candidate struct {
	query
	ok bool
}

// analyse turns each log string into its analysed words and merges the
// strings whose words are the same set. A word no week-0 page has makes a
// candidate unanswerable, unless the model is the searcher, which keeps
// such words (unknownWords), and then only when all its words are.
func (wl *workload) analyse(c *corpus, qs []querylog.Query, an analysis.Analyzer, m model) []candidate {
	byKey := map[string]int{}
	var cands []candidate
	unknown := unknownWords{base: uint32(len(c.terms)), ids: map[string]uint32{}}
	var buf strings.Builder
	for _, q := range qs {
		wl.logTotal += q.Count
		tokens := an.Analyze([]byte(q.Text))
		if len(tokens) == 0 {
			wl.noTerms++
			continue
		}
		words := make([]string, len(tokens))
		for i, t := range tokens {
			words[i] = string(t.Term)
		}
		sorted := slices.Clone(words)
		slices.Sort(sorted)
		buf.Reset()
		for _, w := range sorted {
			buf.WriteString(w)
			buf.WriteByte(0)
		}
		key := buf.String()
		if i, ok := byKey[key]; ok {
			cands[i].freq += q.Count
			cands[i].strings++
			continue
		}
		cd := candidate{query: query{text: q.Text, freq: q.Count, strings: 1}, ok: true}
		anyKnown := false
		for _, w := range words {
			id, known := c.termID[w]
			if !known && m.searcher() {
				// The searcher keeps a word no page has: it counts in
				// the coordination rule and the max_query_terms cut,
				// and the OR fallback answers with the other words.
				id, known = unknown.id(w), false
			} else if !known {
				cd.ok = false
				break
			}
			anyKnown = anyKnown || known
			cd.terms = append(cd.terms, id)
		}
		cd.ok = cd.ok && anyKnown
		byKey[key] = len(cands)
		cands = append(cands, cd)
	}
	return cands
}

// scorable returns the candidates the model can answer that users asked,
// counting the unanswerable ones.
func (wl *workload) scorable(cands []candidate) []query {
	var known []query
	for _, cd := range cands {
		if !cd.ok {
			wl.unknownTerm++
			continue
		}
		if cd.freq <= 0 {
			continue
		}
		known = append(known, cd.query)
	}
	return known
}

// scoreWeek0 sets each query's week0, the sum of the scores of its
// week-0 results a user can see.
func scoreWeek0(c *corpus, m model, qs []query) {
	ws := m.newWeekScorer(c, 0, qs)
	var answer []float64 // scratch
	for i := range qs {
		q := &qs[i]
		answer = answer[:0]
		ws.answer(q, func(_ doc, s float64) { answer = append(answer, s) })
		if n := m.visible(len(answer)); n < len(answer) {
			answer = topDescending(answer, n)
		}
		for _, s := range answer {
			q.week0 += s
		}
	}
}

// keep keeps the queries that match a week-0 page, with useKnee only
// those scoring at or above the knee of all their scores, in descending
// week0 order (ties by text, so that runs agree).
func (wl *workload) keep(known []query, useKnee bool) {
	var scores []float64
	var positive []query
	for _, q := range known {
		if q.week0 > 0 {
			positive = append(positive, q)
			scores = append(scores, q.week0)
		} else {
			wl.noMatch++
		}
	}
	wl.candidates = len(positive)
	wl.scores = scores
	if useKnee {
		wl.threshold, _ = knee(scores)
	}
	for _, q := range positive {
		if q.week0 >= wl.threshold {
			wl.queries = append(wl.queries, q)
		}
	}
	slices.SortStableFunc(wl.queries, func(a, b query) int {
		if c := cmp.Compare(b.week0, a.week0); c != 0 {
			return c
		}
		return cmp.Compare(a.text, b.text)
	})
}

// sample keeps n of the queries, drawn without replacement with
// probability proportional to f_q (Efraimidis and Spirakis: the n largest
// keys u^(1/f_q), u uniform, from a generator seeded by seed), in their
// original order.
func (wl *workload) sample(n int, seed uint64) {
	wl.filtered = len(wl.queries)
	if n >= len(wl.queries) {
		return
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	type keyed struct {
		key float64
		i   int
	}
	keys := make([]keyed, len(wl.queries))
	for i, q := range wl.queries {
		keys[i] = keyed{math.Log(1-rng.Float64()) / q.freq, i}
	}
	slices.SortFunc(keys, func(a, b keyed) int { return cmp.Compare(b.key, a.key) })
	keep := make([]int, n)
	for j := range keep {
		keep[j] = keys[j].i
	}
	slices.Sort(keep)
	kept := make([]query, n)
	for j, i := range keep {
		kept[j] = wl.queries[i]
	}
	wl.queries = kept
	wl.sampled = true
	wl.tally()
}

// tally counts what the kept queries stand for.
func (wl *workload) tally() {
	wl.keptStrings, wl.keptTotal, wl.multiTerm = 0, 0, 0
	terms := map[uint32]struct{}{}
	for _, q := range wl.queries {
		wl.keptStrings += q.strings
		wl.keptTotal += q.freq
		distinct := map[uint32]struct{}{}
		for _, t := range q.terms {
			distinct[t] = struct{}{}
			terms[t] = struct{}{}
		}
		if len(distinct) > 1 {
			wl.multiTerm++
		}
	}
	wl.distinctTerm = len(terms)
}

// logQueries returns the kept queries as a query log, for the index's
// single-term workload Q′ (§4.6.1): each with its text and f_q.
func (wl *workload) logQueries() []querylog.Query {
	out := make([]querylog.Query, len(wl.queries))
	for i, q := range wl.queries {
		out[i] = querylog.Query{Text: q.text, Count: q.freq}
	}
	return out
}

// postings are one week's inverted lists for the terms of some queries:
// for each term, the week's live documents holding it, in URL order.
type postings struct {
	c     *corpus
	slot  map[uint32]int // term id → index into lists
	lists [][]doc
}

// newPostings builds week w's postings for the terms of qs.
func newPostings(c *corpus, w int, qs []query) *postings {
	p := &postings{c: c, slot: map[uint32]int{}}
	for _, q := range qs {
		for _, t := range q.terms {
			if _, ok := p.slot[t]; !ok {
				p.slot[t] = len(p.lists)
				p.lists = append(p.lists, nil)
			}
		}
	}
	// A dense id → slot table makes the pass over the week's documents
	// cheap.
	dense := make([]int32, len(c.terms))
	for i := range dense {
		dense[i] = -1
	}
	for t, s := range p.slot {
		dense[t] = int32(s)
	}
	for _, d := range c.live[w] {
		for _, t := range c.bodies[d.body].terms {
			if s := dense[t]; s >= 0 {
				p.lists[s] = append(p.lists[s], d)
			}
		}
	}
	return p
}

// df is the week's document frequency of term t.
func (p *postings) df(t uint32) uint64 { return uint64(len(p.lists[p.slot[t]])) }

// dfs returns the document frequency of each token.
func (p *postings) dfs(terms []uint32) []uint64 {
	out := make([]uint64, len(terms))
	for i, t := range terms {
		out[i] = p.df(t)
	}
	return out
}

// matches calls fn for every live document holding all of terms, in URL
// order: the shortest list is walked and the others checked in each body.
func (p *postings) matches(terms []uint32, fn func(doc)) {
	shortest := p.lists[p.slot[terms[0]]]
	for _, t := range terms[1:] {
		if l := p.lists[p.slot[t]]; len(l) < len(shortest) {
			shortest = l
		}
	}
outer:
	for _, d := range shortest {
		b := &p.c.bodies[d.body]
		for _, t := range terms {
			if b.tfOf(t) == 0 {
				continue outer
			}
		}
		fn(d)
	}
}

// unknownWords gives each word no archived page has a term id past the
// corpus's vocabulary (c.terms), so that a query keeps it under the
// searcher's semantics; no page ever holds it (corpus.known).
type unknownWords struct {
	base uint32
	ids  map[string]uint32
}

func (u *unknownWords) id(w string) uint32 {
	id, ok := u.ids[w]
	if !ok {
		id = u.base + uint32(len(u.ids))
		u.ids[w] = id
	}
	return id
}
