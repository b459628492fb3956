package index

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	bindex "github.com/blevesearch/bleve_index_api"
)

// snapText is what retrieval keeps in memory of one index snapshot's text
// field, so a query reads slices instead of Bleve's postings iterators
// and RM3 reads a page's words instead of analyzing its stored text again:
//
//   - the postings: for each term of the field's dictionary (ascending,
//     term id = position), its documents in document-number order with
//     the term's frequency;
//   - each document's analyzed length (the sum of its frequencies: every
//     token is one occurrence of one term), and their mean over the
//     snapshot's documents;
//   - the forward index: each document's terms, by term id, with their
//     frequencies;
//   - each posting's occurrences: the byte ranges of the term in the
//     document's stored text (its term vectors), from which a result
//     page's snippets are cut without a postings iterator per word;
//   - what a result page shows of each live document (columns by
//     document number): its URL (and back), title, fetch time,
//     popularity and stored text, so a page of results reads neither
//     Bleve's stored documents nor decompresses anything.
//
// It is built the first time a snapshot is searched, and replaced when a
// search sees another snapshot (a batch or a merge). A serving index
// (Run) builds it after each pass over the change feed (warm), and its
// searches do not wait for a build: until the new snapshot's is built
// they search the last snapshot built, which the index keeps open for
// them (snapTexts.published), and a search that finds a newer snapshot
// (a merge) has Run build it. So in a serving index a page indexed is
// found once its snapshot's build ends, tens of milliseconds after the
// pass; elsewhere (CatchUp alone) every search sees the newest snapshot,
// waiting for its build. It is read-only after that, but for each word's
// BM25 saturations, kept per posting from the word's first search on. A
// build carries over from the last snapText the segments it held and
// derives a merge of them; it reads only the others (snapbuild.go).
// Size: 20 bytes per posting (8 in each direction, 4 for its
// occurrences' offset), 8 per occurrence (token), 4 per document number,
// the dictionary's strings and a map entry (~40 bytes) per dictionary
// word, and per document its stored text and title, its URL twice
// (column and map, ~150 bytes) and 40 bytes of fetch time, popularity and
// length; and 8 bytes per posting of each word searched (its
// saturations). On digitalgov-2023's week (5,000 pages, 21,000
// words, 600,000 postings, 1.2 million tokens) the text field takes about
// 23 MB and the columns 14 MB (BenchmarkSnapText). Reading all of it
// took 210–290 ms on two cores, most of it in Bleve's postings iterators;
// after a batch of 100 changed pages, carrying took 25–45 ms. In a crawl
// of it, the first search after each batch took 36–52 ms at the median
// and at most 66–94 ms, merges included (BenchmarkSearchAfterBatch).
type snapText struct {
	snap    bindex.IndexReader         // the snapshot it describes
	held    refCounted                 // snap, with a reference the snapTexts holds while it is current; nil unless built while serving
	id      uint64                     // its number among the snapTexts this index built, from 1 (Retrieved.Snapshot)
	n       uint64                     // live documents
	meanLen float64                    // mean analyzed length of FieldText, 1 for an empty index
	total   uint64                     // analyzed length of FieldText summed over the documents
	terms   []string                   // the field's dictionary, ascending
	ids     map[string]uint32          // and back: a query's words are looked up by hash, not by string comparisons in the dictionary
	termAt  []uint32                   // postings of term t: post[termAt[t]:termAt[t+1]]
	post    []termPosting              // .of is a document number
	length  []uint32                   // analyzed length by document number
	docAt   []uint32                   // terms of document d: fwd[docAt[d]:docAt[d+1]]
	fwd     []termPosting              // .of is a term id, ascending per document
	spanAt  []uint32                   // occurrences of posting j: spans[spanAt[j]:spanAt[j+1]]
	spans   []textSpan                 // byte ranges in the stored text, by position
	sats    []atomic.Pointer[termSats] // by term id: its postings' saturations, nil until first used

	// The snapshot's segments, in order, as the next snapshot's build
	// recognises the ones it can carry over (snapbuild.go).
	segs  []segRef
	built buildCounts // how its segments were had

	// The columns a result page reads, by document number ("" and zero
	// for a deleted one).
	urls       []string
	docs       map[string]uint64 // live URL → document number
	titles     []string
	fetched    []time.Time // to the second
	popularity []float64
	textAt     []uint32 // stored text of document d: text[textAt[d]:textAt[d+1]]
	snippetAt  []uint32 // where its snippet is cut from, in its stored text (snippetStart)
	text       []byte
}

// textSpan is one occurrence of a word: its bytes in the stored text.
type textSpan struct{ start, end uint32 }

// termPosting is one posting: a document (or, in the forward index, a term)
// and the term's frequency in the document.
type termPosting struct {
	of uint32
	tf uint32
}

// snapTexts holds the snapText of the snapshot searched last.
type snapTexts struct {
	// build serializes the builds; a build holds it throughout, and mu
	// only to publish what it built, so searches go on meanwhile.
	build sync.Mutex
	mu    sync.Mutex
	cur   *snapText
	built uint64
	// serving is set while Run follows the change feed: searches then
	// take cur rather than wait for a newer snapshot's build, and say
	// so on stale, which Run answers with a pass and a build. Not after
	// a failed build: searches then build themselves and report it.
	serving bool
	failed  bool
	stale   chan struct{} // buffered, 1
	// What the builds took (metrics.go).
	metrics textMetrics
}

// refCounted is a snapshot that counts its readers (Bleve's scorch
// snapshots do): the snapTexts takes a reference on the current one so
// that a serving index can search it after the index has moved on. Close
// drops a reference, as for every reader.
type refCounted interface {
	bindex.IndexReader
	AddRef()
}

// published returns the text field to search r with at once, and the
// snapshot it describes: r's own when it is built; while the index
// serves, the last one built, whose snapshot it takes a reference on for
// the caller to close (taken true), when r is newer; nil when r's must be
// built first.
func (c *snapTexts) published(r bindex.IndexReader) (st *snapText, taken bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.cur == nil:
		return nil, false
	case c.cur.snap == r:
		return c.cur, false
	case !c.serving || c.failed || c.cur.held == nil:
		return nil, false
	}
	c.cur.held.AddRef()
	c.metrics.lastBuilt.Inc()
	select {
	case c.stale <- struct{}{}:
	default: // Run has been told already
	}
	return c.cur, true
}

// publish makes st, built for r, the current text field, and releases
// the reference held on the last one's snapshot. While the index serves
// it takes one on r, when r counts them; otherwise the snapshot is not
// kept open after its searches, nor its files after a merge.
func (c *snapTexts) publish(st *snapText, r bindex.IndexReader) {
	c.mu.Lock()
	if rc, ok := r.(refCounted); ok && c.serving {
		rc.AddRef()
		st.held = rc
	}
	c.failed = false
	c.built++
	st.id = c.built
	old := c.cur
	c.cur = st
	c.mu.Unlock()
	old.release()
}

// reset forgets the current text field and releases its snapshot, for
// the Bleve index it came from is closing or being replaced.
func (c *snapTexts) reset() {
	c.mu.Lock()
	old := c.cur
	c.cur = nil
	c.mu.Unlock()
	old.release()
}

// release drops the reference the snapTexts held on st's snapshot (st
// may be nil). Searches that took their own still read it.
func (st *snapText) release() {
	if st == nil || st.held == nil {
		return
	}
	st.held.Close() // nothing to do about an error: the snapshot is gone either way
}

// setServing marks the index as serving (Run) or not.
func (c *snapTexts) setServing(on bool) {
	c.mu.Lock()
	c.serving = on
	c.mu.Unlock()
}

// snapText returns the in-memory text field of the snapshot r, building
// it if r is not the snapshot searched last. Searches on the same new
// snapshot wait for one build. Searches ask published first (withText),
// so one whose field is built does not come here.
func (ix *Index) snapText(ctx context.Context, r bindex.IndexReader) (*snapText, error) {
	c := &ix.texts
	c.build.Lock()
	defer c.build.Unlock()
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if cur != nil && cur.snap == r { // built already, or by the build waited for
		return cur, nil
	}
	var err error
	if ix.beforeBuild != nil {
		err = ix.beforeBuild()
	}
	start := time.Now()
	var st *snapText
	if err == nil {
		st, err = buildSnapText(ctx, r, cur)
	}
	if err != nil {
		if ctx.Err() == nil { // a search given up on says nothing of the index
			c.mu.Lock()
			c.failed = true
			c.mu.Unlock()
		}
		return nil, err
	}
	c.metrics.observe(time.Since(start), st.built)
	c.publish(st, r)
	return st, nil
}

// liveDoc returns the document number of url, ok false when the
// snapshot does not hold it.
func (st *snapText) liveDoc(url string) (uint64, bool) {
	doc, ok := st.docs[url]
	return doc, ok
}

// storedText is document doc's stored text field.
func (st *snapText) storedText(doc uint64) []byte {
	return st.text[st.textAt[doc]:st.textAt[doc+1]]
}

// lengthNorm is BM25's length normalization of a document of length
// tokens, 1 − b + b·length/meanLen: one expression wherever a score is
// computed, so every path gets the same bits.
func lengthNorm(b float64, length uint32, meanLen float64) float64 {
	return 1 - b + b*float64(length)/meanLen
}

// saturation is BM25's term-frequency saturation tf·(k1+1)/(tf+k1·norm)
// of a word tf times on a page of lengthNorm norm. A word's share of the
// page's score is its weight (idf × query weight) times this, wherever a
// score is computed, so that a saturation kept per posting (saturations)
// and one computed on the spot give the same float64.
func saturation(tf, norm, k1 float64) float64 {
	return tf * (k1 + 1) / (tf + k1*norm)
}

// termSats are the saturations of one word's postings, in their order,
// and the largest of them.
type termSats struct {
	v   []float64
	max float64
}

// saturations returns the saturations of term t's postings for k1, b and
// the mean length meanLen. With the snapshot's mean they are computed on
// first use and kept, as a query word's postings are scored by every
// search that has it, and the division is most of what scoring a posting
// costs; concurrent searches may both compute them, and keep equal
// values. k1 and b are the index's, the same on every call. With another
// mean (a cluster's) they are computed for the caller alone.
func (st *snapText) saturations(t uint32, k1, b, meanLen float64) *termSats {
	kept := meanLen == st.meanLen
	if kept {
		if s := st.sats[t].Load(); s != nil {
			return s
		}
	}
	post := st.postingsOf(t)
	s := &termSats{v: make([]float64, len(post))}
	for j, d := range post {
		s.v[j] = saturation(float64(d.tf), lengthNorm(b, st.length[d.of], meanLen), k1)
		s.max = max(s.max, s.v[j])
	}
	if kept {
		st.sats[t].Store(s)
	}
	return s
}

// term returns the id of term, ok false when no document has it.
func (st *snapText) term(term string) (uint32, bool) {
	t, ok := st.ids[term]
	return t, ok
}

// postings returns the documents holding term, ascending, with the
// term's frequency.
func (st *snapText) postings(term string) []termPosting {
	t, ok := st.term(term)
	if !ok {
		return nil
	}
	return st.postingsOf(t)
}

// postingsOf is postings by term id.
func (st *snapText) postingsOf(t uint32) []termPosting {
	return st.post[st.termAt[t]:st.termAt[t+1]]
}

// occurrences returns where term t (its id) occurs in document doc's
// stored text (byte ranges, by position), none if it does not.
func (st *snapText) occurrences(t uint32, doc uint64) []textSpan {
	lo, hi := st.termAt[t], st.termAt[t+1]
	k, found := findPosting(st.post[lo:hi], doc)
	if !found {
		return nil
	}
	j := int(lo) + k
	return st.spans[st.spanAt[j]:st.spanAt[j+1]]
}

// findPosting returns where doc's posting is, or would be, in l
// (ascending by document), and whether it is there: a binary search
// without a comparison function's call per step, as a result page makes
// one per query word and page.
func findPosting(l []termPosting, doc uint64) (int, bool) {
	lo, hi := 0, len(l)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if uint64(l[mid].of) < doc {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(l) && uint64(l[lo].of) == doc
}

// docTerms returns document doc's terms (ids ascending) with their
// frequencies; none for a document the snapshot does not hold.
func (st *snapText) docTerms(doc uint64) []termPosting {
	if doc >= uint64(len(st.length)) {
		return nil
	}
	return st.fwd[st.docAt[doc]:st.docAt[doc+1]]
}

// docLength is document doc's analyzed length, 0 for a document the
// snapshot does not hold.
func (st *snapText) docLength(doc uint64) uint32 {
	if doc >= uint64(len(st.length)) {
		return 0
	}
	return st.length[doc]
}

// resolveURLs returns the URL of each candidate, from the column.
func (st *snapText) resolveURLs(cands []candidate) []string {
	urls := make([]string, len(cands))
	for i, c := range cands {
		urls[i] = st.urls[c.doc]
	}
	return urls
}
