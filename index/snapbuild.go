package index

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// A snapshot differs from the one searched before it by a batch (one new
// segment, and documents deleted from old ones) or a merge (segments
// replaced by one). So a snapText is built segment by segment:
//
//   - a segment the previous snapText held is carried over from it, its
//     documents renumbered and those deleted since dropped;
//   - a segment whose every live document the previous snapText held,
//     with the same URL, title and stored text, as after a merge of
//     segments it held, is derived from it: from its forward index, in
//     the segment's document order;
//   - any other segment (a batch's) is read, through the segment's own
//     dictionary, postings and stored fields.
//
// Reading the postings is what costs (Bleve's postings iterators);
// carrying is copying, and deriving costs a read of the stored fields,
// which the columns need anyway. A build from nothing reads every
// segment, and yields what carrying and deriving would.
//
// The dictionary holds the words with at least one live document: a
// segment's dictionary keeps the words of its deleted documents, which
// a merge then drops, and which no carried build could tell from a word
// the segment never had.

// maxSnapPostings bounds the postings a snapText holds: offsets are 32-bit.
const maxSnapPostings = math.MaxUint32

// segRef is how a snapText remembers one of its segments.
type segRef struct {
	id      uint64 // scorch's segment id, kept when it persists the segment
	size    uint64 // documents, deleted ones included
	first   uint64 // its first document number in the snapshot
	deleted uint64 // documents deleted from it in the snapshot
}

// segPart is one segment of the snapshot being built and where its text
// comes from: read or derived (read not nil), or carried from prev's
// documents from, from+size.
type segPart struct {
	ss    *scorch.SegmentSnapshot
	first uint64
	read  *segRead
	from  uint64
	// drop are the carried documents deleted since prev, a bit per local
	// number; nil when none were.
	drop []uint64
}

// dropped reports whether the carried document local was deleted since.
func (p *segPart) dropped(local uint64) bool {
	return p.drop != nil && p.drop[local/64]&(1<<(local%64)) != 0
}

// segRead is the text field of one segment's live documents, numbered
// within the segment, laid out as a snapText's.
type segRead struct {
	terms  []string
	termAt []uint32
	post   []termPosting
	spanAt []uint32
	spans  []textSpan
	// Of a segment derived from prev (deriveSegment): each live
	// document's stored fields but its text, and its number in prev,
	// whose stored text is the same.
	hits []Hit
	olds []uint64
}

// buildCounts says how a snapText's segments were had: read from their
// postings, carried over from the last snapText, or derived from it.
type buildCounts struct {
	read, carried, derived int
}

// buildSnapText makes the in-memory text field of the snapshot r,
// carrying what it can from prev, the snapText of an earlier snapshot of
// the same index (nil for none). A panic reading the segments is an
// error: zapx reads a segment damaged since the index opened out of
// bounds, and the index's refresh builds this too, where a panic would
// end the server rather than fail one search.
func buildSnapText(ctx context.Context, r bindex.IndexReader, prev *snapText) (st *snapText, err error) {
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, fmt.Errorf("index: reading the snapshot's text: a segment could not be read (%v)", p)
		}
	}()
	n, err := r.DocCount()
	if err != nil {
		return nil, fmt.Errorf("index: doc count: %w", err)
	}
	segs, err := segmentsOf(r)
	if err != nil {
		return nil, err
	}
	st = &snapText{snap: r, n: n, meanLen: 1}
	parts, size, err := st.plan(ctx, segs, prev)
	if err != nil {
		return nil, err
	}
	st.length = make([]uint32, size)
	if err := st.mergeTerms(ctx, parts, prev); err != nil {
		return nil, err
	}
	if err := st.mergeStored(ctx, parts, prev); err != nil {
		return nil, err
	}
	st.sats = make([]atomic.Pointer[termSats], len(st.terms))
	st.ids = make(map[string]uint32, len(st.terms))
	for t, term := range st.terms {
		st.ids[term] = uint32(t)
	}
	if n > 0 && st.total > 0 {
		st.meanLen = float64(st.total) / float64(n)
	}
	st.forward()
	return st, nil
}

// plan lists the snapshot's segments as parts, carried from prev, derived
// from it or read, and records them in st.segs and st.built; size is the
// number of document numbers.
func (st *snapText) plan(ctx context.Context, segs segments, prev *snapText) ([]segPart, uint64, error) {
	var held map[uint64]segRef
	if prev != nil {
		held = make(map[uint64]segRef, len(prev.segs))
		for _, s := range prev.segs {
			held[s.id] = s
		}
	}
	parts := make([]segPart, len(segs.segs))
	st.segs = make([]segRef, len(segs.segs))
	var size uint64
	for i, ss := range segs.segs {
		ref := segRef{id: ss.Id(), size: uint64(ss.FullSize()), first: segs.first[i]}
		deleted := ss.Deleted()
		if deleted != nil {
			ref.deleted = deleted.GetCardinality()
		}
		st.segs[i] = ref
		size = ref.first + ref.size
		p := segPart{ss: ss, first: ref.first}
		if old, ok := held[ref.id]; ok && old.size == ref.size && old.deleted <= ref.deleted {
			p.from = old.first
			if old.deleted < ref.deleted {
				p.drop = make([]uint64, (ref.size+63)/64)
				for it := deleted.Iterator(); it.HasNext(); {
					d := it.Next()
					p.drop[d/64] |= 1 << (d % 64)
				}
			}
			st.built.carried++
		} else {
			rd, err := deriveSegment(ctx, ss, prev)
			switch {
			case err != nil:
				return nil, 0, err
			case rd != nil:
				st.built.derived++
			default:
				if rd, err = readSegment(ctx, ss); err != nil {
					return nil, 0, err
				}
				st.built.read++
			}
			p.read = rd
		}
		parts[i] = p
	}
	if size > math.MaxUint32+1 {
		return nil, 0, fmt.Errorf("index: %d document numbers: retrieval keeps at most %d in memory", size, uint64(math.MaxUint32)+1)
	}
	return parts, size, nil
}

// readSegment reads the text field of ss's live documents.
func readSegment(ctx context.Context, ss *scorch.SegmentSnapshot) (*segRead, error) {
	dict, err := ss.Segment().Dictionary(FieldText)
	if err != nil {
		return nil, fmt.Errorf("index: text dictionary of segment %d: %w", ss.Id(), err)
	}
	rd := &segRead{}
	var pl segment.PostingsList
	var it segment.PostingsIterator
	words := dict.AutomatonIterator(nil, nil, nil)
	for {
		e, err := words.Next()
		if err != nil {
			return nil, fmt.Errorf("index: text dictionary of segment %d: %w", ss.Id(), err)
		}
		if e == nil {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if pl, err = dict.PostingsList([]byte(e.Term), ss.Deleted(), pl); err != nil {
			return nil, fmt.Errorf("index: postings of %q: %w", e.Term, err)
		}
		it = pl.Iterator(true, false, true, it)
		rd.terms = append(rd.terms, e.Term)
		rd.termAt = append(rd.termAt, uint32(len(rd.post)))
		for {
			p, err := it.Next()
			if err != nil {
				return nil, fmt.Errorf("index: postings of %q: %w", e.Term, err)
			}
			if p == nil {
				break
			}
			if p.Frequency() > math.MaxUint32 {
				return nil, fmt.Errorf("index: postings of %q: frequency %d: retrieval keeps at most %d", e.Term, p.Frequency(), uint32(math.MaxUint32))
			}
			rd.post = append(rd.post, termPosting{of: uint32(p.Number()), tf: uint32(p.Frequency())})
			rd.spanAt = append(rd.spanAt, uint32(len(rd.spans)))
			for _, l := range p.Locations() {
				if l.End() > math.MaxUint32 {
					return nil, fmt.Errorf("index: postings of %q: occurrence ending at byte %d: retrieval keeps at most %d", e.Term, l.End(), uint32(math.MaxUint32))
				}
				rd.spans = append(rd.spans, textSpan{uint32(l.Start()), uint32(l.End())})
			}
		}
	}
	rd.termAt = append(rd.termAt, uint32(len(rd.post)))
	rd.spanAt = append(rd.spanAt, uint32(len(rd.spans)))
	return rd, nil
}

// deriveSegment makes the text field of ss, a segment prev did not hold,
// from prev's, when every live document of ss is one prev holds: the
// same URL, title and stored text (which is what was analyzed), as after
// a merge of segments prev held. It returns nil when one is not, having
// read the stored fields up to it. Reading a document's stored fields
// costs a fraction of reading its postings.
func deriveSegment(ctx context.Context, ss *scorch.SegmentSnapshot, prev *snapText) (*segRead, error) {
	if prev == nil {
		return nil, nil
	}
	live := ss.DocNumbersLive()
	rd := &segRead{hits: make([]Hit, 0, live.GetCardinality()), olds: make([]uint64, 0, live.GetCardinality())}
	for it := live.Iterator(); it.HasNext(); {
		if len(rd.hits)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var h Hit
		old, same := uint64(0), false
		err := storedIn(ss, uint64(it.Next()), &h, func(text []byte) {
			// _id comes first: h.URL is set.
			old, same = prev.docs[h.URL]
			same = same && bytes.Equal(prev.storedText(old), text)
		})
		if err != nil {
			return nil, fmt.Errorf("index: stored fields in segment %d: %w", ss.Id(), err)
		}
		if !same || prev.titles[old] != h.Title {
			return nil, nil
		}
		rd.hits, rd.olds = append(rd.hits, h), append(rd.olds, old)
	}
	// The postings, by prev's term ids: the forward index of the
	// documents, transposed (each posting naming the document's rank);
	// then, for the words with documents here, in prev's (ascending)
	// order, each posting's occurrences and its document's number here.
	termAt, post := transpose(len(rd.olds), len(prev.terms), func(i int) []termPosting {
		return prev.docTerms(rd.olds[i])
	})
	locals := live.ToArray()
	rd.post = post
	rd.spanAt = make([]uint32, 0, len(post)+1)
	for t, term := range prev.terms {
		if termAt[t] == termAt[t+1] {
			continue
		}
		rd.terms = append(rd.terms, term)
		rd.termAt = append(rd.termAt, termAt[t])
		for j := termAt[t]; j < termAt[t+1]; j++ {
			i := post[j].of
			rd.spanAt = append(rd.spanAt, uint32(len(rd.spans)))
			rd.spans = append(rd.spans, prev.occurrences(uint32(t), rd.olds[i])...)
			post[j].of = locals[i]
		}
	}
	rd.termAt = append(rd.termAt, uint32(len(rd.post)))
	rd.spanAt = append(rd.spanAt, uint32(len(rd.spans)))
	return rd, nil
}

// mergeTerms fills the dictionary, the postings, their occurrences, the
// lengths and their total: the words of every part in order, and for
// each word its postings part by part, so documents ascend.
func (st *snapText) mergeTerms(ctx context.Context, parts []segPart, prev *snapText) error {
	// A cursor per source of words: prev's dictionary, for the carried
	// parts, and each read or derived part's.
	type cursor struct {
		terms []string
		at    int
	}
	var curs []cursor
	postings, spans, words := 0, 0, 0
	carried := false
	for _, p := range parts {
		if p.read == nil {
			carried = true
			continue
		}
		curs = append(curs, cursor{terms: p.read.terms})
		postings, spans, words = postings+len(p.read.post), spans+len(p.read.spans), max(words, len(p.read.terms))
	}
	if carried {
		curs = append(curs, cursor{terms: prev.terms})
		postings, spans, words = postings+len(prev.post), spans+len(prev.spans), max(words, len(prev.terms))
	}
	st.terms = make([]string, 0, words)
	st.termAt = make([]uint32, 0, words+1)
	st.post = make([]termPosting, 0, postings)
	st.spanAt = make([]uint32, 0, postings+1)
	st.spans = make([]textSpan, 0, spans)
	// Which word each source is at (-1: past it), by source; read parts
	// take the sources in order, prev the last.
	at := make([]int, len(curs))
	for step := 0; ; step++ {
		if step%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		word, found := "", false
		for _, c := range curs {
			if c.at < len(c.terms) && (!found || c.terms[c.at] < word) {
				word, found = c.terms[c.at], true
			}
		}
		if !found {
			break
		}
		for i := range curs {
			at[i] = -1
			if c := &curs[i]; c.at < len(c.terms) && c.terms[c.at] == word {
				at[i] = c.at
				c.at++
			}
		}
		start := len(st.post)
		src := 0
		for _, p := range parts {
			var err error
			if p.read != nil {
				if t := at[src]; t >= 0 {
					err = st.appendRead(word, p, t)
				}
				src++
			} else if t := at[len(at)-1]; t >= 0 {
				err = st.appendCarried(word, p, prev, t)
			}
			if err != nil {
				return err
			}
		}
		if len(st.post) > start { // a word of deleted documents only is not kept
			st.terms = append(st.terms, word)
			st.termAt = append(st.termAt, uint32(start))
		}
	}
	st.termAt = append(st.termAt, uint32(len(st.post)))
	st.spanAt = append(st.spanAt, uint32(len(st.spans)))
	return nil
}

// appendRead appends word's postings in the read part p, t its id there.
func (st *snapText) appendRead(word string, p segPart, t int) error {
	rd := p.read
	return st.appendRun(word, p, rd.post, rd.spanAt, rd.spans, int(rd.termAt[t]), int(rd.termAt[t+1]))
}

// appendCarried appends word's postings in the carried part p, t its id
// in prev, less those of documents deleted since.
func (st *snapText) appendCarried(word string, p segPart, prev *snapText, t int) error {
	lo := int(prev.termAt[t])
	l := prev.post[lo:prev.termAt[t+1]]
	a, _ := findPosting(l, p.from)
	end, _ := findPosting(l, p.from+uint64(p.ss.FullSize()))
	for a < end {
		b := a
		for b < end && !p.dropped(uint64(l[b].of)-p.from) {
			b++
		}
		if err := st.appendRun(word, p, prev.post, prev.spanAt, prev.spans, lo+a, lo+b); err != nil {
			return err
		}
		a = b + 1 // past the dropped one
	}
	return nil
}

// appendRun appends the postings a to b of post (of the part p, read,
// derived or carried: documents p.from on are p.first on here), with
// their occurrences, which are contiguous in spans and copied whole.
func (st *snapText) appendRun(word string, p segPart, post []termPosting, spanAt []uint32, spans []textSpan, a, b int) error {
	if a == b {
		return nil
	}
	occ := spans[spanAt[a]:spanAt[b]]
	if err := st.room(word, b-a, len(occ)); err != nil {
		return err
	}
	shift := uint32(len(st.spans)) - spanAt[a]
	for _, q := range post[a:b] {
		doc := uint32(p.first + uint64(q.of) - p.from)
		st.length[doc] += q.tf
		st.total += uint64(q.tf)
		st.post = append(st.post, termPosting{of: doc, tf: q.tf})
	}
	for _, at := range spanAt[a:b] {
		st.spanAt = append(st.spanAt, at+shift)
	}
	st.spans = append(st.spans, occ...)
	return nil
}

// room reports an error if posts more postings and spans more
// occurrences of word would pass what a snapText holds.
func (st *snapText) room(word string, posts, spans int) error {
	if len(st.post)+posts > maxSnapPostings || len(st.spans)+spans > maxSnapPostings {
		return fmt.Errorf("index: postings of %q: posting %d, occurrence %d: retrieval keeps at most %d of each in memory",
			word, len(st.post)+posts, len(st.spans)+spans, uint32(math.MaxUint32))
	}
	return nil
}

// mergeStored fills the columns a result page reads, part by part: a
// carried document's from prev's, a derived one's from the fields read
// when deriving and prev's text, a read one's from its stored fields.
func (st *snapText) mergeStored(ctx context.Context, parts []segPart, prev *snapText) error {
	size := len(st.length)
	st.urls, st.titles = make([]string, size), make([]string, size)
	st.fetched, st.popularity = make([]time.Time, size), make([]float64, size)
	st.textAt, st.snippetAt = make([]uint32, size+1), make([]uint32, size)
	st.docs = make(map[string]uint64, st.n)
	if prev != nil {
		st.text = make([]byte, 0, len(prev.text)+len(prev.text)/8)
	}
	var h Hit
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := 0 // the live document's rank, in a derived part
		for it := p.ss.DocNumbersLive().Iterator(); it.HasNext(); k++ {
			local := uint64(it.Next())
			doc := p.first + local
			from := len(st.text) // where the document's text goes
			var err error
			switch {
			case p.read == nil:
				old := p.from + local
				h = Hit{URL: prev.urls[old], Title: prev.titles[old], FetchedAt: prev.fetched[old], Popularity: prev.popularity[old]}
				err = st.appendText(doc, prev.storedText(old))
			case p.read.hits != nil:
				h = p.read.hits[k]
				err = st.appendText(doc, prev.storedText(p.read.olds[k]))
			default:
				h = Hit{}
				var textErr error
				// The segment reuses the text's buffer after the call.
				err = storedIn(p.ss, local, &h, func(b []byte) { textErr = st.appendText(doc, b) })
				if err == nil {
					err = textErr
				}
			}
			if err != nil {
				return fmt.Errorf("index: stored fields of document %d: %w", doc, err)
			}
			st.urls[doc], st.titles[doc], st.fetched[doc], st.popularity[doc] = h.URL, h.Title, h.FetchedAt, h.Popularity
			st.docs[h.URL] = doc
			st.textAt[doc+1] = uint32(len(st.text))
			st.snippetAt[doc] = uint32(snippetStart(st.text[from:], h.Title))
		}
	}
	// Documents were visited in number order, each text appended: a
	// deleted document's empty range ends where the one before it does.
	for d := 1; d < len(st.textAt); d++ {
		st.textAt[d] = max(st.textAt[d], st.textAt[d-1])
	}
	return nil
}

// appendText appends document doc's stored text to the text column.
func (st *snapText) appendText(doc uint64, text []byte) error {
	if len(st.text)+len(text) > math.MaxUint32 {
		return fmt.Errorf("stored text: %d bytes in all with document %d's: retrieval keeps at most %d in memory", len(st.text)+len(text), doc, uint32(math.MaxUint32))
	}
	st.text = append(st.text, text...)
	return nil
}

// forward builds the forward index: the postings transposed, so each
// document's list is ascending by term id.
func (st *snapText) forward() {
	st.docAt, st.fwd = transpose(len(st.terms), len(st.length), func(t int) []termPosting {
		return st.postingsOf(uint32(t))
	})
}

// transpose turns rows lists, row r's entries naming their columns
// (.of < cols), into column lists: at[c] to at[c+1] in out are column
// c's entries, each naming its row, rows ascending, with its frequency.
// Counted first, then filled row by row.
func transpose(rows, cols int, row func(r int) []termPosting) (at []uint32, out []termPosting) {
	at = make([]uint32, cols+1)
	for r := range rows {
		for _, p := range row(r) {
			at[p.of+1]++
		}
	}
	for c := 1; c < len(at); c++ {
		at[c] += at[c-1]
	}
	out = make([]termPosting, at[cols])
	next := slices.Clone(at[:cols])
	for r := range rows {
		for _, p := range row(r) {
			out[next[p.of]] = termPosting{of: uint32(r), tf: p.tf}
			next[p.of]++
		}
	}
	return at, out
}
