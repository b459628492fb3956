package synceval

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// body is one distinct archived body as the index sees it: the analysed
// length of its text field and the frequency of each of its terms.
type body struct {
	// indexable is false when the crawler would not index the page (robots
	// noindex, or a body the extractor rejects).
	indexable bool
	length    int      // analysed field length L (tokens after stop words)
	terms     []uint32 // distinct term ids, ascending
	tf        []uint32 // frequency of terms[i]
}

// tfOf returns the frequency of term t in b (0 if absent).
func (b *body) tfOf(t uint32) uint32 {
	i, ok := slices.BinarySearch(b.terms, t)
	if !ok {
		return 0
	}
	return b.tf[i]
}

// doc is one page of a week: an archive URL holding a body.
type doc struct {
	url  int32 // index into corpus.urls
	body int32 // index into corpus.bodies
}

// corpus is an archive read once: every distinct body parsed and analysed
// exactly as the crawler extracts it and the index analyses it (§4.6.1:
// the index's own analyzer), and each week's indexable pages. It is the
// live web W_t of §4.2 in the form the quality metric needs, and is
// immutable after loadCorpus.
type corpus struct {
	name  string
	host  string      // <name>.test
	dates []time.Time // by week
	// urls are the normalized absolute URLs of the archive's paths (in the
	// archive's order), then of the query-string aliases its pages link
	// to; a URL id is a position here.
	urls   []string
	byURL  map[string]int32
	bodies []body
	byHash map[string]int32  // body id by the manifest hash (the replay's ETag)
	terms  []string          // vocabulary, sorted; a term id is its position
	termID map[string]uint32 // term → id
	// live[w] are the indexable pages of week w, ascending by URL.
	live [][]doc
	// vocab[w] is the number of distinct terms over live[w]: the text
	// field's cardinality of week w indexed as one segment.
	vocab []int
}

// known reports whether term id t is a word of some archived page (a
// workload query may hold ids past the vocabulary: unknownWords).
func (c *corpus) known(t uint32) bool { return int(t) < len(c.terms) }

// weeks is the number of archive weeks.
func (c *corpus) weeks() int { return len(c.live) }

// loadCorpus parses and analyses every distinct body of a on workers
// goroutines.
func loadCorpus(ctx context.Context, a *archive.Archive, an analysis.Analyzer, lim extract.Limits, workers int) (*corpus, error) {
	paths := a.URLs()
	c, err := newCorpus(a, paths)
	if err != nil {
		return nil, err
	}
	raws, bodyOf, ivBody := distinctBodies(a, paths)
	out, err := analyseBodies(ctx, c.host, raws, an, lim, workers)
	if err != nil {
		return nil, err
	}
	c.setBodies(out, bodyOf)
	aliasOf := c.addAliases(out, paths)
	c.setLive(a, paths, ivBody, out, aliasOf)
	c.countVocab()
	return c, nil
}

// newCorpus starts a's corpus with its weeks' dates and the URLs of its
// paths, which take the first URL ids so that an archive URL's id is its
// position in paths.
func newCorpus(a *archive.Archive, paths []string) (*corpus, error) {
	c := &corpus{name: a.Name(), host: strings.ToLower(a.Name()) + ".test", byURL: map[string]int32{}}
	for w := range a.Weeks() {
		c.dates = append(c.dates, a.Date(w))
	}
	for i, p := range paths {
		u, err := urlnorm.Normalize("http://" + c.host + p)
		if err != nil {
			return nil, fmt.Errorf("synceval: %s: URL %q: %w", c.name, p, err)
		}
		c.urls = append(c.urls, u)
		c.byURL[u] = int32(i)
	}
	return c, nil
}

// rawBody is a distinct archived body before analysis, with the path it
// was first archived under: the base its relative links resolve against.
type rawBody struct {
	path string
	data []byte
}

// distinctBodies lists the archive's distinct bodies, in manifest order,
// so that a body archived under several paths or weeks is analysed once.
// bodyOf is a body's position in raws by its hash, and ivBody[i][j] that
// of the body of paths[i]'s j-th interval.
func distinctBodies(a *archive.Archive, paths []string) (raws []rawBody, bodyOf map[string]int32, ivBody [][]int32) {
	bodyOf = map[string]int32{}
	ivBody = make([][]int32, len(paths))
	for i, p := range paths {
		for _, iv := range a.Intervals(p) {
			b, ok := bodyOf[iv.Hash]
			if !ok {
				b = int32(len(raws))
				bodyOf[iv.Hash] = b
				raws = append(raws, rawBody{p, iv.Body})
			}
			ivBody[i] = append(ivBody[i], b)
		}
	}
	return raws, bodyOf, ivBody
}

// analysedBody is a body as the extractor and the analyzer leave it. Its
// terms are still strings: ids are given once every body is analysed, in
// sorted order, so that they do not depend on scheduling.
type analysedBody struct {
	indexable bool
	length    int
	terms     []string
	tf        []uint32
	aliases   []string // same-host links with a query string
}

// analyseBodies extracts and analyses raws on workers goroutines, as the
// crawler and the index would on host; out[i] is raws[i]'s, so the result
// does not depend on the schedule. The first error, or the end of ctx,
// keeps further bodies from starting; a body the extractor rejects is no
// error, since the crawler skips it too.
func analyseBodies(ctx context.Context, host string, raws []rawBody, an analysis.Analyzer, lim extract.Limits, workers int) ([]analysedBody, error) {
	out := make([]analysedBody, len(raws))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for i, r := range raws {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			base, err := url.Parse("http://" + host + r.path)
			if err != nil {
				return fmt.Errorf("synceval: %s: %w", r.path, err)
			}
			d, err := extract.HTML(r.data, replay.PageContentType, base, lim)
			if err != nil {
				return nil // the crawler neither indexes nor follows it
			}
			out[i].aliases = queryLinks(d, host)
			if d.Robots.NoIndex {
				return nil
			}
			out[i].indexable = true
			out[i].length, out[i].terms, out[i].tf = analyse(an, d.Title, d.Text)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// setBodies builds the vocabulary of out and stores its bodies with their
// terms as ids; bodyOf, the bodies' positions by hash, becomes byHash.
func (c *corpus) setBodies(out []analysedBody, bodyOf map[string]int32) {
	c.terms = sortedUnion(out, func(o analysedBody) []string { return o.terms })
	c.termID = make(map[string]uint32, len(c.terms))
	for i, t := range c.terms {
		c.termID[t] = uint32(i)
	}
	c.byHash = bodyOf
	c.bodies = make([]body, len(out))
	for i, o := range out {
		b := body{indexable: o.indexable, length: o.length, terms: make([]uint32, len(o.terms)), tf: o.tf}
		for j, t := range o.terms {
			b.terms[j] = c.termID[t]
		}
		// o.terms is sorted and ids follow string order, so b.terms is too.
		c.bodies[i] = b
	}
}

// addAliases gives a URL id, after the archive's, to every query-string
// alias of an archived path that some body links to, and returns the
// aliases' ids by the id of their path. The replay server answers a path
// whatever its query string, so a link such as /resources/x/?dg makes a
// page of the live web, with the body of /resources/x/, in every week
// where a page links to it and its path exists.
func (c *corpus) addAliases(out []analysedBody, paths []string) map[int32][]int32 {
	aliasOf := map[int32][]int32{}
	for _, al := range sortedUnion(out, func(o analysedBody) []string { return o.aliases }) {
		if _, dup := c.byURL[al]; dup {
			continue
		}
		pu, err := url.Parse(al)
		if err != nil {
			continue
		}
		path, ok := slices.BinarySearch(paths, pu.EscapedPath())
		if !ok {
			continue
		}
		id := int32(len(c.urls))
		c.urls = append(c.urls, al)
		c.byURL[al] = id
		aliasOf[int32(path)] = append(aliasOf[int32(path)], id)
	}
	return aliasOf
}

// sortedUnion returns the distinct strings field holds over out, sorted,
// so that what is built from them does not depend on scheduling.
func sortedUnion(out []analysedBody, field func(analysedBody) []string) []string {
	set := map[string]struct{}{}
	for _, o := range out {
		for _, s := range field(o) {
			set[s] = struct{}{}
		}
	}
	all := make([]string, 0, len(set))
	for s := range set {
		all = append(all, s)
	}
	slices.Sort(all)
	return all
}

// setLive sets each week's indexable pages, ascending by URL id: every
// archived path whose body that week is indexable, and with it those of
// its aliases (aliasOf) some page of the week links to.
func (c *corpus) setLive(a *archive.Archive, paths []string, ivBody [][]int32, out []analysedBody, aliasOf map[int32][]int32) {
	linked := c.linkedAliases(a, paths, ivBody, out)
	c.live = make([][]doc, a.Weeks())
	for i := range paths {
		for j, iv := range a.Intervals(paths[i]) {
			b := ivBody[i][j]
			if !c.bodies[b].indexable {
				continue
			}
			for w := iv.First; w <= iv.Last; w++ {
				c.live[w] = append(c.live[w], doc{url: int32(i), body: b})
				for _, al := range aliasOf[int32(i)] {
					if linked[w][al] {
						c.live[w] = append(c.live[w], doc{url: al, body: b})
					}
				}
			}
		}
	}
	for _, docs := range c.live {
		slices.SortFunc(docs, func(x, y doc) int { return int(x.url - y.url) })
	}
}

// linkedAliases returns, by week, the URL ids of the aliases some page of
// that week links to: an alias is on the live web only while linked.
func (c *corpus) linkedAliases(a *archive.Archive, paths []string, ivBody [][]int32, out []analysedBody) []map[int32]bool {
	linked := make([]map[int32]bool, a.Weeks())
	for i := range paths {
		for j, iv := range a.Intervals(paths[i]) {
			for _, al := range out[ivBody[i][j]].aliases {
				id, ok := c.byURL[al]
				if !ok || int(id) < len(paths) {
					continue
				}
				for w := iv.First; w <= iv.Last; w++ {
					if linked[w] == nil {
						linked[w] = map[int32]bool{}
					}
					linked[w][id] = true
				}
			}
		}
	}
	return linked
}

// countVocab sets each week's vocabulary size: the distinct terms over
// its live pages, the cardinality its text field would have indexed as
// one segment. A term's stamp is the last week that counted it, which
// saves clearing a set between weeks.
func (c *corpus) countVocab() {
	stamp := make([]int32, len(c.terms))
	for i := range stamp {
		stamp[i] = -1
	}
	c.vocab = make([]int, len(c.live))
	for w, docs := range c.live {
		n := 0
		for _, d := range docs {
			for _, t := range c.bodies[d.body].terms {
				if stamp[t] != int32(w) {
					stamp[t] = int32(w)
					n++
				}
			}
		}
		c.vocab[w] = n
	}
}

// queryLinks returns the links of d to host that carry a query string, as
// the crawler would follow them (normalized, followable).
func queryLinks(d *extract.Document, host string) []string {
	if d.Robots.NoFollow {
		return nil
	}
	var out []string
	for _, l := range d.Links {
		if l.NoFollow || !strings.Contains(l.URL, "?") {
			continue
		}
		u, err := url.Parse(l.URL)
		if err != nil || u.Host != host || u.RawQuery == "" {
			continue
		}
		out = append(out, l.URL)
	}
	return out
}

// analyse analyses a page's text field as the index does
// (index.IndexedText, index.Analyzer): the field length is the number of
// tokens and each term's frequency the number of its tokens. Terms come
// back sorted.
func analyse(an analysis.Analyzer, title, text string) (length int, terms []string, tf []uint32) {
	tokens := an.Analyze([]byte(index.IndexedText(title, text)))
	counts := make(map[string]uint32, len(tokens)/2+1)
	for _, tok := range tokens {
		counts[string(tok.Term)]++
	}
	terms = make([]string, 0, len(counts))
	for t := range counts {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	tf = make([]uint32, len(terms))
	for i, t := range terms {
		tf[i] = counts[t]
	}
	return len(tokens), terms, tf
}
