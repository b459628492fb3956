package synceval

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/deltaq/deltaq/index"
)

// ImpactCheck measures, under SemanticsSearcher, how well the ΔQ_A the
// index records ranks what a change does to Q (doc.go: "With hindsight").
// For each week w of weeks and every page whose copy changed between
// w − 1 and w, it compares the ΔQ_A the all-pages run recorded for that
// change with the realised ΔQ: Q of week w with the page alone
// refreshed, every other page at its week w − 1 copy, less Q with none
// refreshed. N and the mean length are held at week w − 1's (one page
// moves them by a part in |W|). It writes one CSV row per change to rows
// and a summary to summary.
func ImpactCheck(ctx context.Context, cfg Config, weeks []int, rows, summary, progress io.Writer) error {
	if cfg.Semantics != SemanticsSearcher {
		return fmt.Errorf("synceval: impact check: eval.sync.semantics = %q, want %q", cfg.Semantics, SemanticsSearcher)
	}
	h, done, err := checkHarness(ctx, cfg, progress)
	if err != nil {
		return err
	}
	defer done()
	all, err := h.run(ctx, 0, runSpec{Policy: "uniform", Budget: h.budgetAll(), All: true})
	if err != nil {
		return err
	}
	recorded := h.recordedByWeek(all.History)
	var cs []impactChange
	for _, w := range weeks {
		if w < 1 || w >= h.c.weeks() {
			return fmt.Errorf("synceval: impact check: week %d outside 1..%d", w, h.c.weeks()-1)
		}
		n := len(cs)
		cs = h.realisedImpacts(w, recorded, cs)
		fmt.Fprintf(progress, "%s: week %d: %d changes\n", h.c.name, w, len(cs)-n)
	}
	fmt.Fprintln(rows, "url,week,recorded,realised,realised_long,realised_expansion_only,stake,visible")
	for _, c := range cs {
		fmt.Fprintf(rows, "%s,%d,%g,%g,%g,%g,%g,%v\n", h.c.urls[c.url], c.week, c.recorded, c.realised, c.long, c.expansion, c.stake, c.visible)
	}
	summarizeImpacts(summary, h, cs)
	return nil
}

// impactChange is one page's change between two weeks.
type impactChange struct {
	url, week       int
	recorded        float64 // ΔQ_A the index recorded for it
	realised        float64 // ΔQ of refreshing the page alone
	long, expansion float64 // the part of realised from RM3-expanded queries, and from those holding none of the query's own words in either copy
	stake           float64 // μ(p) over the week w − 1 answers
	visible         bool    // in some query's first model.depth results
}

// recordedByWeek is the ΔQ_A of each URL by the week of the fetch it
// measured.
func (h *harness) recordedByWeek(hist map[string]pageHistory) map[int32]map[int]float64 {
	weekOf := map[int64]int{}
	for w, d := range h.c.dates {
		weekOf[d.UnixNano()] = w
	}
	out := map[int32]map[int]float64{}
	for url, ph := range hist {
		m := map[int]float64{}
		for _, x := range ph.ms {
			if w, ok := weekOf[x.At.UnixNano()]; ok {
				m[w] += x.Value
			}
		}
		out[h.c.byURL[url]] = m
	}
	return out
}

// realisedImpacts appends week w's changes to cs.
func (h *harness) realisedImpacts(w int, recorded map[int32]map[int]float64, cs []impactChange) []impactChange {
	prev := h.c.bodiesIn(w - 1)
	li := newLiveIndex(h.c, h.c.live[w-1], h.model.retrieval, h.model.maxTerms)
	qs := h.wl.queries
	answer := func(k int) []int32 {
		var sc []scoredURL
		li.answer(&qs[k], func(d doc, s float64) { sc = append(sc, scoredURL{d.url, s}) })
		h.orderVisible(sc)
		sc = sc[:h.model.visible(len(sc))]
		a := make([]int32, len(sc))
		for i, s := range sc {
			a[i] = s.url
		}
		return a
	}
	byTerm := newLocalAnswers(h).byTerm
	before := make([]float64, len(qs))
	expanded := make([]bool, len(qs))
	var longQs []int32
	stake := make([]float64, len(h.c.urls))
	visible := make([]bool, len(h.c.urls))
	for k := range qs {
		a := answer(k)
		before[k] = h.ideal.answerValue(w, k, a)
		for r, u := range a {
			stake[u] += qs[k].freq * h.ideal.inspect[r+1]
			visible[u] = true
		}
		if index.MatchFeedback(h.model.retrieval, len(planTerms(qs[k].terms, h.model.maxTerms, li.n, li.df))) {
			expanded[k] = true
			longQs = append(longQs, int32(k))
		}
	}
	den := h.ideal.weeks[w].denominator
	for _, d := range h.c.live[w] {
		old, ok := prev[d.url]
		if !ok || old == d.body {
			continue
		}
		li.replace(d.url, old, d.body)
		// The queries the swap can move: those holding a word of either
		// copy, and the expanded ones, whose words depend on their best
		// pages.
		touched := map[int32]bool{}
		for _, b := range []int32{old, d.body} {
			for _, t := range h.c.bodies[b].terms {
				for _, k := range byTerm[t] {
					touched[k] = true
				}
			}
		}
		for _, k := range longQs {
			touched[k] = true
		}
		c := impactChange{url: int(d.url), week: w, recorded: recorded[d.url][w], stake: stake[d.url], visible: visible[d.url]}
		for k := range touched {
			x := qs[k].freq * (h.ideal.answerValue(w, int(k), answer(int(k))) - before[k]) / den
			c.realised += x
			if expanded[k] {
				c.long += x
				if !h.holdsAWord(int(k), old, d.body) {
					c.expansion += x
				}
			}
		}
		li.replace(d.url, d.body, old)
		cs = append(cs, c)
	}
	return cs
}

// holdsAWord reports whether body a or b holds one of query k's own words.
func (h *harness) holdsAWord(k int, a, b int32) bool {
	for _, t := range h.wl.queries[k].terms {
		if h.c.bodies[a].tfOf(t) > 0 || h.c.bodies[b].tfOf(t) > 0 {
			return true
		}
	}
	return false
}

// replace gives URL u body nb in place of ob, leaving N and the mean
// length as they were.
func (li *liveIndex) replace(u, ob, nb int32) {
	c := li.c
	for _, t := range c.bodies[ob].terms {
		i := slices.IndexFunc(li.post[t], func(p posting) bool { return p.url == u })
		li.post[t] = slices.Delete(li.post[t], i, i+1)
	}
	b := &c.bodies[nb]
	for i, t := range b.terms {
		li.post[t] = append(li.post[t], posting{doc{u, nb}, b.tf[i]})
	}
}

// pageKind groups an archive URL by its path: "home", "list" (a
// paginated /page/N/), "dated" (/YYYY/...), else its first segment.
func pageKind(u string) string {
	path := u
	if i := strings.Index(u, "://"); i >= 0 {
		path = u[i+3:]
		if j := strings.IndexByte(path, '/'); j >= 0 {
			path = path[j:]
		} else {
			path = "/"
		}
	}
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	switch {
	case len(segs) == 0:
		return "home"
	case slices.Contains(segs, "page"):
		return "list"
	case len(segs[0]) == 4 && strings.Trim(segs[0], "0123456789") == "":
		return "dated"
	}
	return segs[0]
}

// summarizeImpacts writes the correlations and the shares doc.go quotes.
func summarizeImpacts(out io.Writer, h *harness, cs []impactChange) {
	rec := make([]float64, len(cs))
	real := make([]float64, len(cs))
	var total, long, expansion float64
	visible := 0
	type kindSum struct {
		n              int
		recorded, real float64
	}
	kinds := map[string]*kindSum{}
	for i, c := range cs {
		rec[i], real[i] = c.recorded, c.realised
		total += c.realised
		long += c.long
		expansion += c.expansion
		if c.visible {
			visible++
		}
		k := pageKind(h.c.urls[c.url])
		if kinds[k] == nil {
			kinds[k] = &kindSum{}
		}
		kinds[k].n++
		kinds[k].recorded += max(0, c.recorded)
		kinds[k].real += c.realised
	}
	fmt.Fprintf(out, "changes: %d (%d in some query's first %d results)\n", len(cs), visible, h.model.depth)
	fmt.Fprintf(out, "recorded ΔQ_A against realised ΔQ: Spearman %.3f, Pearson %.3f\n", pearson(ranks(rec), ranks(real)), pearson(rec, real))
	fmt.Fprintf(out, "share of realised ΔQ: RM3-expanded queries %.3f, of which from expansion words alone %.3f\n", long/total, expansion/total)
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(kinds[b].n, kinds[a].n) })
	for _, k := range names {
		s := kinds[k]
		if s.recorded == 0 {
			fmt.Fprintf(out, "  %-12s %4d changes, none recorded\n", k, s.n)
			continue
		}
		fmt.Fprintf(out, "  %-12s %4d changes, realised per unit recorded %.3g\n", k, s.n, s.real/s.recorded)
	}
}

// ranks are xs's ranks, ties at their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for t := i; t <= j; t++ {
			out[idx[t]] = float64(i+j) / 2
		}
		i = j + 1
	}
	return out
}

// checkHarness prepares a harness over cfg's archive and its week-0
// crawl in a temporary work directory, for a measurement of the archive
// itself; done releases both.
func checkHarness(ctx context.Context, cfg Config, progress io.Writer) (h *harness, done func(), err error) {
	work, err := os.MkdirTemp("", "deltaq-check-*")
	if err != nil {
		return nil, nil, err
	}
	if h, err = prepare(ctx, cfg, work, 2, progress); err != nil {
		os.RemoveAll(work)
		return nil, nil, err
	}
	done = func() {
		h.close()
		os.RemoveAll(work)
	}
	if err := h.prepareBase(ctx, progress); err != nil {
		done()
		return nil, nil, err
	}
	return h, done, nil
}

// bodiesIn maps each URL live in week w to its body there.
func (c *corpus) bodiesIn(w int) map[int32]int32 {
	m := make(map[int32]int32, len(c.live[w]))
	for _, d := range c.live[w] {
		m[d.url] = d.body
	}
	return m
}
