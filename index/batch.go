package index

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/repo"
)

// Stats summarize a CatchUp, a Rebuild or a RefreshPopularity.
type Stats struct {
	Changes   int           // change-feed entries read
	Indexed   int           // documents (re)indexed
	Deleted   int           // documents removed
	Measured  int           // ΔQ_A measurements written (§4.6.2)
	Batches   int           // Bleve batches applied
	Watermark uint64        // last change-feed sequence applied
	Took      time.Duration // wall time
	// Measuring is the part of Took spent on the ΔQ_A measurement: old
	// copies, scores, histograms, ΔQ_A and recording it (§4.6.3).
	Measuring time.Duration
}

func (s *Stats) add(o Stats) {
	s.Changes += o.Changes
	s.Indexed += o.Indexed
	s.Deleted += o.Deleted
	s.Measured += o.Measured
	s.Batches += o.Batches
	s.Measuring += o.Measuring
	s.Watermark = max(s.Watermark, o.Watermark)
}

// ErrClosed is returned by calls on a closed index.
var ErrClosed = errors.New("index: closed")

// CatchUp applies the change-feed entries after the watermark, in batches
// of index.batch_size, until it reaches the last entry committed when it
// started. Each batch is one Bleve batch followed by one repository batch
// holding the new watermark, the ΔQ_A measurements and the page snapshots.
// The measurement runs while Bleve writes its batch to disk; the
// repository batch is committed only once Bleve has persisted it, so after
// a crash the index re-applies from the watermark (upserts and deletes are
// idempotent) and ends up agreeing with the repository.
func (ix *Index) CatchUp(ctx context.Context) (Stats, error) {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	start := time.Now()
	var st Stats
	st.Watermark = ix.watermark.Load()
	target := ix.db.LastChangeSeq()
	for ix.watermark.Load() < target {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		changes, err := ix.db.Changes(ctx, ix.watermark.Load(), ix.cfg.BatchSize)
		if err != nil {
			return st, fmt.Errorf("index: read change feed: %w", err)
		}
		if len(changes) == 0 {
			break
		}
		bs, err := ix.applyBatch(ctx, changes)
		if err != nil {
			// The in-memory df may have moved for a batch that will be
			// applied again: recount it before the next measurement.
			ix.histStale.Store(true)
			return st, err
		}
		st.add(bs)
		ix.batchesSinceHist++
		if ix.recoverUntil != 0 && ix.watermark.Load() >= ix.recoverUntil {
			// Past the entries that were pending at Open, one of which
			// may have been half applied: recount df (docfreq.go).
			ix.recoverUntil = 0
			ix.histStale.Store(true)
		}
		m := ix.measureClock()
		if err := ix.maybeRebuildHistogramsLocked(ctx); err != nil {
			return st, err
		}
		if ix.workload.Load().Len() > 0 {
			st.Measuring += ix.measureClock() - m
		}
	}
	st.Took = time.Since(start)
	if ix.caughtUp != nil {
		ix.caughtUp(st)
	}
	if st.Changes > 0 {
		ix.logger.Debug("caught up", "n", st.Changes, "indexed", st.Indexed, "deleted", st.Deleted,
			"measured", st.Measured, "watermark", st.Watermark, "took", st.Took, "measuring", st.Measuring)
	}
	return st, nil
}

// Run follows the change feed until ctx is done: it catches up, then waits
// for a notification on notify (the crawler signals after a commit), for a
// search that found a snapshot newer than the last built (a merge), or for
// index.poll_interval, and catches up again. After each pass it builds the
// in-memory text field of the snapshot the pass left (warm), and while it
// runs searches do not wait for that: they search the last snapshot built
// (snapText). Every index.scrub_every it checks the segments (Scrub). It
// returns nil when ctx is cancelled and the first error otherwise.
func (ix *Index) Run(ctx context.Context, notify <-chan struct{}) error {
	ix.texts.setServing(true)
	defer ix.texts.setServing(false)
	nextScrub := ix.clock().Add(ix.cfg.ScrubEvery) // Open has just checked
	for {
		if _, err := ix.CatchUp(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		ix.warm(ctx)
		if ix.cfg.ScrubEvery > 0 && !ix.clock().Before(nextScrub) {
			ix.Scrub() // damage is logged and marked; searches and /healthz answer it
			nextScrub = ix.clock().Add(ix.cfg.ScrubEvery)
		}
		// What the searches during the build told of is built now; a
		// snapshot newer still, the next search tells of again.
		select {
		case <-ix.texts.stale:
		default:
		}
		t := time.NewTimer(ix.cfg.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-notify:
		case <-ix.texts.stale:
		case <-t.C:
		}
		t.Stop()
	}
}

// warm builds the text field (snapText) of the index's newest snapshot
// unless it is built already. A failure is logged, not returned: the next
// search builds it again, and reports the error if it recurs.
func (ix *Index) warm(ctx context.Context) {
	err := ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) error {
		_, err := ix.snapText(ctx, r)
		return err
	})
	if err != nil && ctx.Err() == nil && !errors.Is(err, ErrClosed) {
		// Damage found here fails searches too: mark it now.
		if d := ix.CheckFailure(err); d != nil {
			err = d
		}
		ix.logger.Warn("building the text field of the current snapshot", "err", err)
	}
	if ix.warmed != nil {
		ix.warmed()
	}
}

// pending is one page of a batch.
type pending struct {
	url     string
	del     bool
	at      time.Time          // t: fetch time of the new copy, or of the fetch that removed the page
	doc     *document.Document // upserts
	old     *oldCopy           // the indexed copy being replaced; nil if none is known
	measure bool               // old is set and differs from the new copy
	// reapplied: the index already holds this very copy (a change-feed
	// entry applied twice); nothing changes and nothing is measured.
	reapplied bool
	length    int // analyzed length of the new copy's text field
	// title and text of the new copy, for Options.Observer.
	title, text string
}

// oldCopy is what the measurement knows of a page's indexed copy.
type oldCopy struct {
	fetched time.Time // LR(p, t)
	length  int
	terms   []termScore // workload terms present, ascending id
}

// termScore is one workload term of a copy: its id, tf and score S.
type termScore struct {
	id int32
	tf uint32
	s  float64
}

// termTrace describes one term of one measurement, for tests.
type termTrace struct {
	URL      string
	Term     string
	S1, S2   float64
	Had, Has bool
	R1, R2   int
	Delta    float64 // TermDelta, before multiplying by f_q
}

// applyBatch applies one slice of the change feed.
func (ix *Index) applyBatch(ctx context.Context, changes []repo.Change) (Stats, error) {
	st := Stats{Changes: len(changes), Batches: 1, Watermark: changes[len(changes)-1].Seq}
	bi := ix.bleve()
	if bi == nil {
		return st, ErrClosed
	}
	wl := ix.workload.Load()
	measuring := wl.Len() > 0
	if measuring {
		m := ix.measureClock()
		if err := ix.ensureHistogramsLocked(ctx, wl); err != nil {
			return st, err
		}
		st.Measuring += ix.measureClock() - m
	}

	// One entry per URL: the page's current state is what gets indexed.
	pages := make([]*pending, 0, len(changes))
	byURL := make(map[string]*pending, len(changes))
	for _, c := range changes {
		p, ok := byURL[c.URL]
		if !ok {
			p = &pending{url: c.URL}
			byURL[c.URL] = p
			pages = append(pages, p)
		}
		p.at = c.At
	}
	m := bi.Mapping()
	for _, p := range pages {
		if err := ix.resolve(ctx, m, p); err != nil {
			return st, err
		}
	}

	// The old copies and their scores, with the statistics before the batch.
	if measuring {
		m := ix.measureClock()
		if err := ix.scoreOldCopies(bi, wl, pages); err != nil {
			return st, err
		}
		st.Measuring += ix.measureClock() - m
	}

	b := bi.NewBatch()
	for _, p := range pages {
		if p.del {
			b.Delete(p.url)
			st.Deleted++
			continue
		}
		if err := b.IndexAdvanced(p.doc); err != nil {
			return st, fmt.Errorf("index: batch %s: %w", p.url, err)
		}
		st.Indexed++
	}
	putApplied(b, st.Watermark)
	persisted, err := applyBleve(bi, b)
	if err != nil {
		return st, fmt.Errorf("index: apply batch: %w", err)
	}

	// The new copies, with the statistics after the batch; the measurement;
	// then everything the repository keeps, in one atomic batch.
	rb := ix.db.NewBatch(ctx)
	defer rb.Close()
	if ix.observer != nil {
		if err := ix.observe(rb, pages); err != nil {
			return st, err
		}
	}
	if err := ix.measureAndRecord(bi, wl, pages, rb, &st); err != nil {
		return st, err
	}
	if err := rb.PutMeta(watermarkKey, encodeWatermark(ix.generation, st.Watermark)); err != nil {
		return st, fmt.Errorf("index: put watermark: %w", err)
	}
	if err := persisted(ctx); err != nil {
		return st, fmt.Errorf("index: persist batch: %w", err)
	}
	if ix.beforeCommit != nil {
		if err := ix.beforeCommit(); err != nil {
			return st, err
		}
	}
	if err := rb.Commit(); err != nil {
		return st, fmt.Errorf("index: commit watermark %d: %w", st.Watermark, err)
	}
	ix.watermark.Store(st.Watermark)
	st.Measuring += time.Duration(ix.workerCPU.Swap(0))
	return st, nil
}

// resolve reads a page's current state and builds its document, or marks
// it for deletion.
func (ix *Index) resolve(ctx context.Context, m mapping.IndexMapping, p *pending) error {
	page, err := ix.db.Page(p.url)
	if errors.Is(err, repo.ErrNotFound) || err == nil && !page.Indexable() {
		p.del = true
		if p.at.IsZero() {
			p.at = ix.clock()
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("index: read page %s: %w", p.url, err)
	}
	return ix.loadDocument(ctx, m, p)
}

// loadDocument builds the document of an indexable page from its latest
// stored version, or marks the page for deletion if it has none.
func (ix *Index) loadDocument(ctx context.Context, m mapping.IndexMapping, p *pending) error {
	v, err := ix.db.LatestVersion(ctx, p.url)
	if errors.Is(err, repo.ErrNotFound) {
		ix.logger.Debug("indexable page without a stored version; removing it", "url", p.url)
		p.del = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("index: read version %s: %w", p.url, err)
	}
	pd := pageDoc{URL: p.url, Title: v.Title, Text: v.Text, Fetched: v.FetchedAt}
	if ix.popularity != nil {
		if pd.Popularity, err = ix.popularity(ctx, p.url); err != nil {
			return fmt.Errorf("index: popularity of %s: %w", p.url, err)
		}
	}
	doc, err := newDocument(m, &pd)
	if err != nil {
		return err
	}
	p.doc, p.at = doc, v.FetchedAt
	p.title, p.text = v.Title, v.Text
	return nil
}

// scoreOldCopies finds each page's indexed copy (from its snapshot, or by
// re-analyzing the old text when the snapshot is missing or was built for
// another workload) and scores its workload terms on the index as it is
// before the batch: s1 = S(W^L[p], q). Pages are handled in parallel.
func (ix *Index) scoreOldCopies(bi bleve.Index, wl *Workload, pages []*pending) error {
	r, err := reader(bi)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := ix.readerStats(r)
	if err != nil {
		return err
	}
	if ix.readerHook != nil {
		ix.readerHook("before", r)
	}
	errs := make([]error, len(pages))
	ix.parallel(len(pages), func(lo, hi int) {
		for _, p := range pages[lo:hi] {
			old, err := ix.oldCopy(r, wl, p.url)
			if err != nil {
				errs[lo] = err
				return
			}
			switch {
			case old == nil: // first indexing
			case !p.del && old.fetched.Equal(p.at):
				p.reapplied = true // this very copy is applied again
			default:
				p.old, p.measure = old, true
				for i := range old.terms {
					t := &old.terms[i]
					t.s = TermScore(uint64(t.tf), old.length, st, ix.df.get(t.id))
				}
			}
		}
	})
	return errors.Join(errs...)
}

// parallel calls fn on consecutive ranges of [0, n) from up to GOMAXPROCS
// goroutines (one for small n) and waits for them. The measurement's
// per-page work is independent across pages; spreading it over the cores
// keeps it off the indexer's critical path (§4.6.3).
func (ix *Index) parallel(n int, fn func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), (n+15)/16)
	if w <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			if ix.cpuClock != nil { // benchmarks: count the worker's CPU time
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				start := ix.cpuClock()
				defer func() { ix.workerCPU.Add(int64(ix.cpuClock() - start)) }()
			}
			fn(lo, hi)
		}(lo, min(n, lo+chunk))
	}
	wg.Wait()
}

// openReader opens a reader on the index's current snapshot.
func (ix *Index) openReader() (bindex.IndexReader, error) {
	bi := ix.bleve()
	if bi == nil {
		return nil, ErrClosed
	}
	return reader(bi)
}

func reader(bi bleve.Index) (bindex.IndexReader, error) {
	adv, err := bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("index: reader: %w", err)
	}
	return r, nil
}

// oldCopy returns what is known of the indexed copy of url, or nil if the
// index (of this generation) holds none.
func (ix *Index) oldCopy(r bindex.IndexReader, wl *Workload, url string) (*oldCopy, error) {
	raw, err := ix.db.Bucket(snapshotBucket, url)
	if errors.Is(err, repo.ErrNotFound) {
		// Snapshots are written with every indexed copy, so none means
		// none in this generation (a crash between the Bleve batch and the
		// repository commit leaves the new copy, which is not "old").
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index: read snapshot %s: %w", url, err)
	}
	snap, err := decodeSnapshot(raw)
	if err != nil {
		ix.logger.Warn("unreadable page snapshot; re-analyzing the indexed copy", "url", url, "err", err)
		return ix.oldCopyFromIndex(r, wl, url)
	}
	if snap.generation != ix.generation {
		return ix.oldCopyFromIndex(r, wl, url)
	}
	if snap.workload == wl.Fingerprint() {
		if n := len(snap.terms); n > 0 && int(snap.terms[n-1].id) >= wl.Len() {
			ix.logger.Warn("page snapshot names a term the workload does not have; re-analyzing the indexed copy",
				"url", url, "id", snap.terms[n-1].id, "n", wl.Len())
			return ix.oldCopyFromIndex(r, wl, url)
		}
		return &oldCopy{fetched: snap.fetched, length: snap.length, terms: snap.terms}, nil
	}
	// Built for another workload: re-analyze the stored version it names.
	v, err := ix.db.VersionAt(url, snap.fetched)
	if errors.Is(err, repo.ErrNotFound) {
		return ix.oldCopyFromIndex(r, wl, url)
	}
	if err != nil {
		return nil, fmt.Errorf("index: read version %s@%s: %w", url, snap.fetched, err)
	}
	return ix.analyzeCopy(wl, snap.fetched, IndexedText(v.Title, v.Text)), nil
}

// oldCopyFromIndex re-analyzes the text Bleve stored for url.
func (ix *Index) oldCopyFromIndex(r bindex.IndexReader, wl *Workload, url string) (*oldCopy, error) {
	doc, err := r.Document(url)
	if err != nil {
		return nil, fmt.Errorf("index: stored document %s: %w", url, err)
	}
	if doc == nil {
		return nil, nil
	}
	_, text, fetched := storedFields(doc)
	return ix.analyzeCopy(wl, fetched, text), nil
}

// storedFields returns what Bleve stored of a document: the title, the
// whole of FieldText and the fetch time.
func storedFields(doc bindex.Document) (title, text string, fetched time.Time) {
	doc.VisitFields(func(f bindex.Field) {
		switch f.Name() {
		case FieldTitle:
			title = string(f.Value())
		case FieldText:
			text = string(f.Value())
		case FieldFetched:
			if dt, ok := f.(bindex.DateTimeField); ok {
				if t, _, err := dt.DateTime(); err == nil {
					fetched = t
				}
			}
		}
	})
	return title, text, fetched
}

// analyzeCopy analyzes a copy's text field as Bleve does: the length is the
// number of tokens, a term's frequency the number of its tokens.
func (ix *Index) analyzeCopy(wl *Workload, fetched time.Time, text string) *oldCopy {
	tokens := ix.Analyzer().Analyze([]byte(text))
	tf := map[int32]uint32{}
	for _, t := range tokens {
		if id, ok := wl.id(string(t.Term)); ok {
			tf[int32(id)]++
		}
	}
	old := &oldCopy{fetched: fetched, length: len(tokens), terms: make([]termScore, 0, len(tf))}
	for id, n := range tf {
		old.terms = append(old.terms, termScore{id: id, tf: n})
	}
	slices.SortFunc(old.terms, func(a, b termScore) int { return int(a.id - b.id) })
	return old
}

// measureAndRecord scores the new copies on the index after the batch
// (s2 = S(W^{L+p}[p], q)), computes ΔQ_A for every measured page (§4.6.1)
// and adds measurements and snapshots to the repository batch.
func (ix *Index) measureAndRecord(bi bleve.Index, wl *Workload, pages []*pending, rb *repo.Batch, st *Stats) error {
	measuring := wl.Len() > 0
	newTerms := make([][]termScore, len(pages))
	for _, p := range pages {
		if p.del {
			continue
		}
		length, _, ok := analyzedText(p.doc)
		if !ok {
			return fmt.Errorf("index: %s: the batch left no analysis of %q", p.url, FieldText)
		}
		p.length = length
	}
	var values []float64
	var counts []int
	if measuring {
		m := ix.measureClock()
		var err error
		values, counts, err = ix.measure(bi, wl, pages, newTerms)
		st.Measuring += ix.measureClock() - m
		if err != nil {
			return err
		}
	}
	m := ix.measureClock()
	var buf []byte
	for i, p := range pages {
		if p.del {
			if err := rb.DeleteBucket(snapshotBucket, p.url); err != nil {
				return fmt.Errorf("index: delete snapshot: %w", err)
			}
		} else {
			snap := snapshot{generation: ix.generation, workload: wl.Fingerprint(), fetched: p.at, length: p.length, terms: newTerms[i]}
			buf = snap.encode(buf)
			if err := rb.PutBucket(snapshotBucket, p.url, buf); err != nil {
				return fmt.Errorf("index: put snapshot: %w", err)
			}
		}
		if !p.measure {
			continue
		}
		dq := &repo.DeltaQ{At: p.at, LastFetch: p.old.fetched, Value: values[i], Terms: counts[i]}
		if err := rb.PutDeltaQ(p.url, dq); err != nil {
			return fmt.Errorf("index: put ΔQ_A: %w", err)
		}
		st.Measured++
	}
	if measuring {
		st.Measuring += ix.measureClock() - m
	}
	return nil
}

// measure finds the workload terms of the new copies (filling newTerms),
// moves the document frequencies by the batch's removed and added
// postings, scores the new copies and returns ΔQ_A and |S| per page.
func (ix *Index) measure(bi bleve.Index, wl *Workload, pages []*pending, newTerms [][]termScore) ([]float64, []int, error) {
	ix.parallel(len(pages), func(lo, hi int) {
		var scratch []uint64
		for i := lo; i < hi; i++ {
			if p := pages[i]; !p.del {
				_, freqs, _ := analyzedText(p.doc)
				newTerms[i] = workloadTerms(wl, freqs, &scratch)
			}
		}
	})
	// The batch removed the old copies' postings and added the new ones:
	// move the document frequencies the same way.
	for i, p := range pages {
		if p.reapplied {
			continue
		}
		if p.old != nil {
			for _, t := range p.old.terms {
				ix.df.add(t.id, -1)
			}
		}
		for _, t := range newTerms[i] {
			ix.df.add(t.id, 1)
		}
	}
	values := make([]float64, len(pages))
	counts := make([]int, len(pages))
	if !slices.ContainsFunc(pages, func(p *pending) bool { return p.measure }) {
		return values, counts, nil
	}
	r, err := reader(bi)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	cs, err := ix.readerStats(r)
	if err != nil {
		return nil, nil, err
	}
	if ix.readerHook != nil {
		ix.readerHook("after", r)
	}
	hs := ix.hists.Load()
	score := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := pages[i]
			if !p.measure {
				continue
			}
			var cur []termScore
			if !p.del {
				cur = newTerms[i]
				for j := range cur {
					cur[j].s = TermScore(uint64(cur[j].tf), p.length, cs, ix.df.get(cur[j].id))
				}
			}
			values[i], counts[i] = ix.deltaQ(wl, hs, p.url, p.old.terms, cur)
		}
	}
	if ix.trace != nil {
		score(0, len(pages)) // tests' trace functions need not be safe for concurrent use
	} else {
		ix.parallel(len(pages), score)
	}
	return values, counts, nil
}

// deltaQ is ΔQ_A(p, t) ≈ Σ_{q∈S} f_q·TermDelta(H_q, s1, s2) over
// S = Q′ ∩ (old terms ∪ new terms) (§4.6.1); it returns the value and |S|.
func (ix *Index) deltaQ(wl *Workload, hs *histogramSet, url string, old, cur []termScore) (float64, int) {
	var sum float64
	n := 0
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		var id int32
		var s1, s2 float64
		var had, has bool
		switch {
		case j >= len(cur) || i < len(old) && old[i].id < cur[j].id:
			id, s1, had = old[i].id, old[i].s, true
			i++
		case i >= len(old) || cur[j].id < old[i].id:
			id, s2, has = cur[j].id, cur[j].s, true
			j++
		default:
			id, s1, s2, had, has = old[i].id, old[i].s, cur[j].s, true, true
			i++
			j++
		}
		term := wl.terms[id]
		h := hs.get(term)
		d := ix.est.TermDelta(h, s1, had, s2, has)
		sum += wl.freq[id] * d
		n++
		if ix.trace != nil {
			r1, r2 := ix.est.Ranks(h, s1, had, s2, has)
			ix.trace(termTrace{URL: url, Term: term, S1: s1, S2: s2, Had: had, Has: has, R1: r1, R2: r2, Delta: d})
		}
	}
	return sum, n
}

// ensureHistogramsLocked builds H_q if there are none for the workload yet.
func (ix *Index) ensureHistogramsLocked(ctx context.Context, wl *Workload) error {
	hs := ix.hists.Load()
	if hs != nil && hs.workload == wl.Fingerprint() && ix.df.workload == wl.Fingerprint() && !ix.histStale.Load() {
		return nil
	}
	return ix.rebuildHistogramsLocked(ctx)
}

// maybeRebuildHistogramsLocked rebuilds H_q every index.histogram_batches
// batches or when they are older than index.histogram_interval.
func (ix *Index) maybeRebuildHistogramsLocked(ctx context.Context) error {
	if ix.workload.Load().Len() == 0 {
		return nil
	}
	hs := ix.hists.Load()
	if hs != nil && !ix.histStale.Load() && ix.batchesSinceHist < ix.cfg.HistogramBatches &&
		ix.clock().Sub(hs.built) < ix.cfg.HistogramInterval {
		return nil
	}
	return ix.rebuildHistogramsLocked(ctx)
}

// RebuildHistograms rebuilds every H_q now.
func (ix *Index) RebuildHistograms(ctx context.Context) error {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	return ix.rebuildHistogramsLocked(ctx)
}

func (ix *Index) rebuildHistogramsLocked(ctx context.Context) error {
	wl := ix.workload.Load()
	ix.histStale.Store(false)
	ix.batchesSinceHist = 0
	if wl.Len() == 0 {
		ix.hists.Store(nil)
		return nil
	}
	r, err := ix.openReader()
	if err != nil {
		return err
	}
	defer r.Close()
	start := time.Now()
	st, err := ix.readerStats(r)
	if err != nil {
		return err
	}
	hs, df, err := buildHistograms(ctx, r, st, wl, ix.cfg.HistogramBuckets)
	if err != nil {
		ix.histStale.Store(true)
		return err
	}
	ix.df = df
	hs.built, hs.took = ix.clock(), time.Since(start)
	ix.hists.Store(hs)
	ix.logger.Debug("histograms rebuilt", "n", len(hs.slot), "bytes", hs.bytes(), "took", hs.took)
	return nil
}

// workloadTerms returns the workload terms among a document's analyzed
// term frequencies, in ascending id order. scratch is reused between calls.
func workloadTerms(wl *Workload, freqs bindex.TokenFrequencies, scratch *[]uint64) []termScore {
	packed := (*scratch)[:0]
	for term, f := range freqs {
		if id, ok := wl.ids[term]; ok {
			packed = append(packed, uint64(id)<<32|uint64(uint32(f.Frequency())))
		}
	}
	slices.Sort(packed) // by id: ids are the high bits
	*scratch = packed
	out := make([]termScore, len(packed))
	for i, v := range packed {
		out[i] = termScore{id: int32(v >> 32), tf: uint32(v)}
	}
	return out
}
