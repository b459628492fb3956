package index

import (
	"errors"
	"fmt"
	"time"

	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/repo"
)

// BatchObserver sees every page a batch indexes, new or changed, with the
// analysis Bleve made of its text, while the batch's repository writes are
// still open. What it writes into rb commits atomically with the
// watermark and the page's snapshot, and a copy whose snapshot committed
// is not shown again (a change-feed entry applied twice, the whole feed
// replayed into a new index, a rebuild), so it happens once per indexed
// copy, also across kill -9.
// Package alert matches standing search queries this way.
type BatchObserver interface {
	ObserveBatch(rb *repo.Batch, pages []IndexedPage) error
}

// IndexedPage is one new or changed page of a batch.
type IndexedPage struct {
	URL   string
	Title string
	// At is the fetch time of the indexed copy.
	At time.Time
	// New is set when the index held no copy of the page before the batch.
	New bool
	// Terms are the analyzed terms of FieldText, with their positions and
	// byte offsets.
	Terms bindex.TokenFrequencies
	text  string // FieldText as stored
}

// Snippet cuts about size bytes of the page's text around the given
// analyzed terms, as search results do, in plain text: no <mark>, no
// entities (a notification's summary, which an e-mail's text, a webhook's
// JSON and an Atom entry each escape their own way).
func (p *IndexedPage) Snippet(terms []string, size int) string {
	var matches []Span
	for _, t := range terms {
		if tf, ok := p.Terms[t]; ok {
			for _, l := range tf.Locations {
				matches = append(matches, Span{l.Start, l.End})
			}
		}
	}
	return cutPageSnippet(p.text, p.Title, matches, size, new(snippetBufs)).Text
}

// observe hands the batch's indexed pages to the observer, but for a copy
// the repository's page snapshot already names: that copy was indexed and
// observed by a batch that committed, and an index rebuilt from the
// change feed (its directory lost, or replaced) re-applies every page.
// New is read from the page snapshots as committed before this batch.
func (ix *Index) observe(rb *repo.Batch, pages []*pending) error {
	var out []IndexedPage
	for _, p := range pages {
		if p.del {
			continue
		}
		seen, err := ix.snapshotHolds(p.url, p.at)
		if err != nil {
			return err
		}
		if seen.holds {
			continue
		}
		_, freqs, _ := analyzedText(p.doc)
		out = append(out, IndexedPage{URL: p.url, Title: p.title, At: p.at, New: !seen.found, Terms: freqs, text: IndexedText(p.title, p.text)})
	}
	if len(out) == 0 {
		return nil
	}
	return ix.observer.ObserveBatch(rb, out)
}

// snapshotSeen is what a committed page snapshot tells of a copy.
type snapshotSeen struct {
	found bool // the page has a snapshot: some copy was indexed before
	holds bool // the snapshot names this copy, or a newer one
}

// snapshotHolds reads url's committed snapshot for the copy fetched at.
// An unreadable snapshot counts as found but not holding the copy: the
// copy is observed again rather than lost.
func (ix *Index) snapshotHolds(url string, at time.Time) (snapshotSeen, error) {
	raw, err := ix.db.Bucket(snapshotBucket, url)
	if errors.Is(err, repo.ErrNotFound) {
		return snapshotSeen{}, nil
	}
	if err != nil {
		return snapshotSeen{}, fmt.Errorf("index: observe %s: %w", url, err)
	}
	snap, err := decodeSnapshot(raw)
	if err != nil {
		ix.logger.Warn("unreadable page snapshot; observing the copy again", "url", url, "err", err)
		return snapshotSeen{found: true}, nil
	}
	return snapshotSeen{found: true, holds: !snap.fetched.Before(at)}, nil
}
