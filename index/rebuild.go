package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Rebuild builds a fresh index from every indexable page of the repository
// (for `deltaq index rebuild`) and replaces the current one. The new index
// gets a new generation; the watermark is set to the change-feed position
// read at the start, so changes committed during the rebuild are applied by
// the next CatchUp (re-applying a page is harmless). Searches keep using the
// old index until the swap. Nothing is measured: indexing every page at
// once is not a re-download.
//
// The new index is built in dir + ".rebuild" and renamed into place; a crash
// at any point leaves either the old index with its watermark, or the new
// index with a generation the repository's watermark does not name, which
// makes the next Open apply the change feed from the start.
func (ix *Index) Rebuild(ctx context.Context) (Stats, error) {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	start := time.Now()
	seq := ix.db.LastChangeSeq()
	tmp := ix.dir + ".rebuild"
	// Before the build, not at the swap: a leftover that stays must not
	// cost the user a whole rebuild to learn of.
	for _, left := range []string{tmp, ix.oldDir()} {
		if err := ix.clearLeftover(left); err != nil {
			return Stats{}, err
		}
	}
	nbi, gen, err := createBleve(tmp, ix.cfg.Scoring, ix.mergeOnlyOnCompact)
	if err != nil {
		return Stats{}, err
	}
	st, err := ix.fill(ctx, nbi, gen)
	if err == nil {
		// Only a whole rebuild holds the feed up to seq: a snapshot of
		// part of it keeps createBleve's 0, and Open replays the feed.
		err = markApplied(ctx, nbi, seq)
	}
	if cerr := nbi.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("index: rebuild: close: %w", cerr)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return st, err
	}
	if err := ix.swap(tmp); err != nil {
		return st, err
	}
	ix.generation = gen
	rb := ix.db.NewBatch(ctx)
	defer rb.Close()
	if err := rb.PutMeta(watermarkKey, encodeWatermark(gen, seq)); err != nil {
		return st, fmt.Errorf("index: put watermark: %w", err)
	}
	if err := rb.Commit(); err != nil {
		return st, fmt.Errorf("index: commit watermark: %w", err)
	}
	ix.watermark.Store(seq)
	ix.histStale.Store(true)
	st.Watermark = seq
	st.Took = time.Since(start)
	ix.logger.Info("index rebuilt", "n", st.Indexed, "watermark", seq, "took", st.Took)
	return st, nil
}

// fill indexes every indexable page into bi, writing page snapshots for
// generation gen.
func (ix *Index) fill(ctx context.Context, bi bleve.Index, gen uint64) (Stats, error) {
	var st Stats
	var batch []*pending
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := ix.indexPages(ctx, bi, gen, batch)
		st.Indexed += len(batch)
		st.Batches++
		batch = batch[:0]
		return err
	}
	m := bi.Mapping()
	for page, err := range ix.db.Pages(ctx) {
		if err != nil {
			return st, fmt.Errorf("index: rebuild: %w", err)
		}
		if !page.Indexable() {
			continue
		}
		p := &pending{url: page.URL}
		if err := ix.loadDocument(ctx, m, p); err != nil {
			return st, err
		}
		if p.del {
			continue
		}
		batch = append(batch, p)
		if len(batch) >= ix.cfg.BatchSize {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	return st, flush()
}

// indexPages indexes documents without measuring and records their
// snapshots for generation gen; the observer sees the copies no snapshot
// names yet.
func (ix *Index) indexPages(ctx context.Context, bi bleve.Index, gen uint64, pages []*pending) error {
	b := bi.NewBatch()
	for _, p := range pages {
		if err := b.IndexAdvanced(p.doc); err != nil {
			return fmt.Errorf("index: batch %s: %w", p.url, err)
		}
	}
	persisted, err := applyBleve(bi, b)
	if err != nil {
		return fmt.Errorf("index: apply batch: %w", err)
	}
	wl := ix.workload.Load()
	rb := ix.db.NewBatch(ctx)
	defer rb.Close()
	// A copy the change feed has not brought to the index yet is seen
	// here first, and the feed entries after it find its snapshot.
	if ix.observer != nil {
		if err := ix.observe(rb, pages); err != nil {
			return err
		}
	}
	var buf []byte
	var scratch []uint64
	for _, p := range pages {
		length, freqs, ok := analyzedText(p.doc)
		if !ok {
			return fmt.Errorf("index: %s: the batch left no analysis of %q", p.url, FieldText)
		}
		snap := snapshot{generation: gen, workload: wl.Fingerprint(), fetched: p.at, length: length}
		if wl.Len() > 0 {
			snap.terms = workloadTerms(wl, freqs, &scratch)
		}
		buf = snap.encode(buf)
		if err := rb.PutBucket(snapshotBucket, p.url, buf); err != nil {
			return fmt.Errorf("index: put snapshot: %w", err)
		}
	}
	if err := persisted(ctx); err != nil {
		return fmt.Errorf("index: persist batch: %w", err)
	}
	if err := rb.Commit(); err != nil {
		return fmt.Errorf("index: commit snapshots: %w", err)
	}
	return nil
}

// oldDir is where a rebuild moves the index it replaces.
func (ix *Index) oldDir() string { return ix.dir + ".old" }

// maxAside bounds the names clearLeftover tries for one leftover.
const maxAside = 100

// clearLeftover removes path, left by an earlier rebuild: an unfinished
// build, or the index one replaced and could not remove. Both are
// superseded copies of what the repository makes again, so removing them
// loses nothing. One this process may not remove (read-only, another
// user's) is moved aside under a free name and named in a warning rather
// than failing every later rebuild; only if that fails too does the
// rebuild stop, saying what to remove.
func (ix *Index) clearLeftover(path string) error {
	rerr := os.RemoveAll(path)
	if rerr == nil {
		return nil
	}
	var merr error = fs.ErrExist
	for i := 1; i <= maxAside && errors.Is(merr, fs.ErrExist); i++ {
		aside := fmt.Sprintf("%s.%d", path, i)
		if _, err := os.Lstat(aside); !errors.Is(err, fs.ErrNotExist) {
			continue // taken (or unknowable): try the next name
		}
		if merr = os.Rename(path, aside); merr == nil {
			ix.logger.Warn("a directory an earlier rebuild left could not be removed; it is moved aside, a superseded copy of the index: remove it yourself",
				"dir", aside, "left_as", path, "err", rerr)
			return nil
		}
	}
	return fmt.Errorf("index: rebuild: %s, left by an earlier rebuild, could not be removed (%w) nor moved aside (%v): it is a superseded copy of the index; remove it and run the rebuild again", path, rerr, merr)
}

// swap replaces the index directory with tmp and reopens it.
func (ix *Index) swap(tmp string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.mu.bi != nil {
		ix.texts.reset()
		if err := ix.mu.bi.Close(); err != nil {
			return fmt.Errorf("index: rebuild: close old index: %w", err)
		}
		ix.mu.bi = nil
	}
	old := ix.oldDir() // cleared by Rebuild
	if err := os.Rename(ix.dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("index: rebuild: %w", err)
	}
	if err := os.Rename(tmp, ix.dir); err != nil {
		return fmt.Errorf("index: rebuild: %w", err)
	}
	// The new index is in place: an old one left behind is only space, and
	// failing here would leave the rebuilt index unopened and unrecorded.
	if err := os.RemoveAll(old); err != nil {
		ix.logger.Warn("the old index could not be removed after the rebuild; it is a superseded copy: remove it yourself (the next rebuild moves it aside)", "dir", old, "err", err)
	}
	bi, err := bleve.OpenUsing(ix.dir, scorchConfig(ix.mergeOnlyOnCompact))
	if err != nil {
		return fmt.Errorf("index: rebuild: reopen: %w", err)
	}
	ix.setBleveLocked(bi)
	return nil
}

// RefreshPopularity re-indexes the given pages so that the popularity field
// takes the current value of Options.Popularity. The copy re-indexed is the
// one in the index (its stored fields), not a newer version waiting in the
// change feed, so the next CatchUp still measures that change. Pages not in
// the index are skipped.
func (ix *Index) RefreshPopularity(ctx context.Context, urls []string) (Stats, error) {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	start := time.Now()
	bi := ix.bleve()
	if bi == nil {
		return Stats{}, ErrClosed
	}
	var st Stats
	m := bi.Mapping()
	for len(urls) > 0 {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		n := min(len(urls), ix.cfg.BatchSize)
		batch, err := ix.storedPages(ctx, bi, m, urls[:n])
		if err != nil {
			return st, err
		}
		urls = urls[n:]
		if len(batch) == 0 {
			continue
		}
		if err := ix.indexPages(ctx, bi, ix.generation, batch); err != nil {
			return st, err
		}
		st.Indexed += len(batch)
		st.Batches++
	}
	st.Took = time.Since(start)
	return st, nil
}

// storedPages rebuilds the documents of urls from the fields Bleve stored,
// with the current popularity.
func (ix *Index) storedPages(ctx context.Context, bi bleve.Index, m mapping.IndexMapping, urls []string) ([]*pending, error) {
	var out []*pending
	for _, u := range urls {
		doc, err := bi.Document(u)
		if err != nil {
			return nil, fmt.Errorf("index: stored document %s: %w", u, err)
		}
		if doc == nil {
			continue
		}
		pd := pageDoc{URL: u}
		var field string
		pd.Title, field, pd.Fetched = storedFields(doc)
		pd.Text = mainText(pd.Title, field)
		if ix.popularity != nil {
			if pd.Popularity, err = ix.popularity(ctx, u); err != nil {
				return nil, fmt.Errorf("index: popularity of %s: %w", u, err)
			}
		}
		d, err := newDocument(m, &pd)
		if err != nil {
			return nil, err
		}
		out = append(out, &pending{url: u, doc: d, at: pd.Fetched, title: pd.Title, text: pd.Text})
	}
	return out, nil
}
