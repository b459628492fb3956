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
// watermark, so it happens once per indexed copy, also across kill -9.
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

// observe hands the batch's indexed pages to the observer. New is read
// from the page snapshots as committed before this batch.
func (ix *Index) observe(rb *repo.Batch, pages []*pending) error {
	var out []IndexedPage
	for _, p := range pages {
		if p.del {
			continue
		}
		_, err := ix.db.Bucket(snapshotBucket, p.url)
		if err != nil && !errors.Is(err, repo.ErrNotFound) {
			return fmt.Errorf("index: observe %s: %w", p.url, err)
		}
		_, freqs, _ := analyzedText(p.doc)
		out = append(out, IndexedPage{URL: p.url, Title: p.title, At: p.at, New: err != nil, Terms: freqs, text: IndexedText(p.title, p.text)})
	}
	if len(out) == 0 {
		return nil
	}
	return ix.observer.ObserveBatch(rb, out)
}
