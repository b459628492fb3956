package synceval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/repo"
)

// localAnswers are A(q, W^L) for every workload query: the local index's
// full result lists, as archive URL ids, whose first model.depth results
// are in relevance order (index.Ranker's) and the rest below them in any
// order (all in order under SemanticsThesis); Q and μ read the first
// model.depth (doc.go).
//
// Only what must be is re-ranked. Bleve's order of a query's results
// depends on the indexed copies holding its terms, their document
// frequencies, N (through the idf weights of a multi-term query; a
// single-term query's scores all scale by the same idf) and, under BM25,
// the average field length. So a query keeps last week's answer unless a
// page whose old or new indexed copy holds one of its terms was
// re-indexed or removed, or the statistics it depends on moved. Which copy
// each page has in the index is followed from the change feed
// (follow).
type localAnswers struct {
	h       *harness
	queries []index.Query
	multi   []bool    // more than one distinct term
	answers [][]int32 // by workload query; -1 for a URL the archive lacks
	stale   []bool
	// byTerm lists the queries holding each term id.
	byTerm map[uint32][]int32
	// indexed[u] is the body whose copy of URL u the index holds, -1 for
	// none.
	indexed []int32
	st      index.CorpusStats // the statistics of the last ranking
	ranked  bool
	// Under SemanticsSearcher, the index's own statistics followed from
	// the change feed (own.go): the answers kept are checked against them.
	own ownStats
	buf []index.Ranked
	// Under SemanticsSearcher, the indexed copies as the searcher sees
	// them (rankCorpus), with its scratch.
	li     *liveIndex
	docs   []doc
	scored []scoredURL
	// Reranked counts the queries re-ranked, Kept those whose answer
	// was reused.
	Reranked, Kept int
}

func newLocalAnswers(h *harness) *localAnswers {
	n := len(h.wl.queries)
	l := &localAnswers{h: h, queries: make([]index.Query, n), multi: make([]bool, n), answers: make([][]int32, n),
		stale: make([]bool, n), byTerm: map[uint32][]int32{}, indexed: make([]int32, len(h.c.urls))}
	for k, q := range h.wl.queries {
		// The query a user's search runs for the text: its words analysed
		// and ANDed (index.ParseQuery's syntax is not applied to log
		// queries, whose quotes and dashes are not operators).
		l.queries[k] = index.Query{Terms: []string{q.text}}
		l.stale[k] = true
		seen := map[uint32]bool{}
		for _, t := range q.terms {
			if !seen[t] {
				seen[t] = true
				l.byTerm[t] = append(l.byTerm[t], int32(k))
			}
		}
		l.multi[k] = len(seen) > 1
	}
	l.own = newOwnStats(h)
	for i := range l.indexed {
		l.indexed[i] = -1
	}
	return l
}

// load reads which copy of each page the index holds from the
// repository (every indexable page, caught up).
func (l *localAnswers) load(ctx context.Context, db *repo.DB) error {
	for p, err := range db.Pages(ctx) {
		if err != nil {
			return err
		}
		if !p.Indexable() {
			continue
		}
		u, ok := l.h.c.byURL[p.URL]
		if !ok {
			l.staleAll()
			continue
		}
		b, ok := l.h.c.bodyOf(p.ETag)
		if !ok {
			l.staleAll()
			continue
		}
		l.indexed[u] = b
		l.own.add(b, 1)
	}
	return nil
}

// follow reads the change-feed entries after seq (what the index has just
// applied) and marks the queries they touch.
func (l *localAnswers) follow(ctx context.Context, db *repo.DB, seq uint64) error {
	for {
		changes, err := db.Changes(ctx, seq, 4096)
		if err != nil {
			return fmt.Errorf("synceval: read change feed: %w", err)
		}
		if len(changes) == 0 {
			return nil
		}
		for _, ch := range changes {
			seq = ch.Seq
			u, ok := l.h.c.byURL[ch.URL]
			if !ok {
				continue // not an archive page (the sitemap): never indexable
			}
			now := int32(-1)
			p, err := db.Page(ch.URL)
			switch {
			case errors.Is(err, repo.ErrNotFound):
			case err != nil:
				return fmt.Errorf("synceval: read page %s: %w", ch.URL, err)
			case p.Indexable():
				if b, ok := l.h.c.bodyOf(p.ETag); ok {
					now = b
				} else {
					l.staleAll()
				}
			}
			l.touch(l.indexed[u])
			l.touch(now)
			l.own.add(l.indexed[u], -1)
			l.own.add(now, 1)
			l.indexed[u] = now
		}
	}
}

// touch marks the queries holding a term of body b.
func (l *localAnswers) touch(b int32) {
	if b < 0 {
		return
	}
	for _, t := range l.h.c.bodies[b].terms {
		for _, k := range l.byTerm[t] {
			l.stale[k] = true
		}
	}
}

func (l *localAnswers) staleAll() {
	for k := range l.stale {
		l.stale[k] = true
	}
	l.own.lost = true
}

// rank brings every answer up to the index as it is now.
//
// With incremental re-ranking the answers are computed from the corpus
// rather than read from Bleve: the index holds, for every URL, the copy
// followed from the change feed (indexed), and the model on those copies
// gives Bleve's scores bit for bit: under SemanticsSearcher liveIndex
// (pinned to index.Ranker.Match by TestMatchScoreIsMatch), under
// SemanticsThesis index.ConjunctionScore with the statistics of the index
// compacted (env.compact). TestIncrementalRerankingIsExact compares both
// with eval.sync.rerank "all", which ranks on Bleve. It spares opening a
// Ranker (every document's URL resolved), Bleve's searchers, and under
// the searcher's semantics the snapshot's in-memory copy of every posting
// (index/snaptext.go), once a week per run. When a copy is not in the
// corpus, or the document count disagrees, Bleve ranks as before.
func (l *localAnswers) rank(ctx context.Context, ix *index.Index) error {
	searcher := l.h.model.searcher()
	if l.h.cfg.Rerank != "all" {
		n, err := ix.Count()
		if err != nil {
			return err
		}
		if searcher {
			l.own.check(l, n)
		}
		if !l.own.lost && uint64(l.own.n) == n {
			st := index.BleveCorpusStats(l.h.model.scoring, n, l.own.vocab)
			if !searcher {
				l.thesisStale(st)
			}
			l.rankCorpus(st)
			l.st, l.ranked = st, true
			return nil
		}
	}
	rk, err := ix.Ranker()
	if err != nil {
		return err
	}
	defer rk.Close()
	st := rk.Stats()
	if l.h.cfg.Rerank == "all" {
		l.staleAll()
	} else if searcher {
		l.own.check(l, st.DocCount)
	} else {
		l.thesisStale(st)
	}
	for k, q := range l.queries {
		if !l.stale[k] {
			l.Kept++
			continue
		}
		l.Reranked++
		rank := rk.Rank
		if searcher {
			rank = rk.Match
		}
		if l.buf, err = rank(ctx, q, l.buf); err != nil {
			return fmt.Errorf("synceval: rank %q: %w", q.Terms[0], err)
		}
		a := l.answers[k][:0]
		for _, r := range l.buf {
			u, ok := l.h.c.byURL[r.URL]
			if !ok {
				u = -1
			}
			a = append(a, u)
		}
		l.answers[k] = a
		l.stale[k] = false
	}
	l.st, l.ranked = st, true
	return nil
}

// thesisStale marks stale, under SemanticsThesis, the answers Bleve's
// statistics st may have reordered since the last ranking.
func (l *localAnswers) thesisStale(st index.CorpusStats) {
	if !l.ranked {
		return
	}
	avgMoved := st.AvgFieldLength != l.st.AvgFieldLength
	for k := range l.stale {
		if avgMoved || l.multi[k] && st.DocCount != l.st.DocCount {
			l.stale[k] = true
		}
	}
}

// rankCorpus re-ranks the stale queries on the indexed copies: every page
// answering, score descending, ties by URL (index.Ranker's order); st are
// Bleve's statistics of the compacted index, for SemanticsThesis.
func (l *localAnswers) rankCorpus(st index.CorpusStats) {
	c := l.h.c
	l.docs = l.docs[:0]
	for u, b := range l.indexed {
		if b >= 0 {
			l.docs = append(l.docs, doc{url: int32(u), body: b})
		}
	}
	if l.li == nil {
		l.li = newLiveIndex(c, l.docs, l.h.model.retrieval, l.h.model.maxTerms)
	} else {
		l.li.reset(l.docs)
	}
	for k := range l.queries {
		if !l.stale[k] {
			l.Kept++
			continue
		}
		l.Reranked++
		l.scored = l.scored[:0]
		add := func(d doc, s float64) { l.scored = append(l.scored, scoredURL{url: d.url, score: s}) }
		if l.h.model.searcher() {
			l.li.answer(&l.h.wl.queries[k], add)
		} else {
			l.li.conjunction(&l.h.wl.queries[k], st, add)
		}
		l.h.orderVisible(l.scored)
		a := l.answers[k][:0]
		for _, s := range l.scored {
			a = append(a, s.url)
		}
		l.answers[k] = a
		l.stale[k] = false
	}
}

// orderVisible puts the results a user can see first, in the searcher's
// order (score descending, ties by URL); the rest follow them in no order
// (localAnswers).
func (h *harness) orderVisible(scored []scoredURL) {
	order := func(a, b scoredURL) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(h.c.urls[a.url], h.c.urls[b.url])
	}
	n := h.model.visible(len(scored))
	if n < len(scored) {
		selectFirst(scored, n, order)
	}
	slices.SortFunc(scored[:n], order)
}

// scoredURL is one page of an answer being ranked.
type scoredURL struct {
	url   int32
	score float64
}

// importance sets mu[u], the importance of archive URL u under the
// workload over the local index: μ(p) = Σ_q f_q·I(R(p, A(q, W^L))), the
// expected number of times users inspect p in the local answers (eqs.
// 4.1–4.3 without the score), over the results a user can see
// (model.visible). EBR weighs a page's embarrassment by it and
// LambdaCrawl its staleness; a page no query retrieves has μ = 0.
func (l *localAnswers) importance(mu []float64) {
	clear(mu)
	for k, a := range l.answers {
		f := l.h.wl.queries[k].freq
		for r, u := range a[:l.h.model.visible(len(a))] {
			if u >= 0 {
				mu[u] += f * l.h.ideal.inspect[r+1]
			}
		}
	}
}

// bodyOf returns the body with the given ETag (the replay server's
// `"<hash>"`).
func (c *corpus) bodyOf(etag string) (int32, bool) {
	b, ok := c.byHash[strings.Trim(etag, `"`)]
	return b, ok
}
