package index

import (
	"errors"
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"
)

// An assumed compaction stands in for Compact where only BM25's
// statistics need it. Bleve's average field length is the text field's
// vocabulary summed over the segments (scorer.go); a Compact makes it the
// vocabulary of the live documents by rewriting every segment, which on a
// 5,000-page index costs about a second. A caller that knows that
// vocabulary (an evaluation that follows what it indexed) records it
// instead: the current segments then count as one segment holding it,
// and segments added later count as Bleve counts them, exactly the
// statistics the index would have had after a Compact at that point and
// the batches since. Documents, postings and document frequencies do not
// depend on segments (a deleted document's postings are masked, and
// Bleve's df excludes them), so rankings and ΔQ_A measurements are those
// of the compacted index, bit for bit.
type assumedCompaction struct {
	segments map[uint64]struct{} // ids of the segments it covers
	card     int                 // their live documents' text vocabulary
}

// AssumeCompacted records that the index's current segments hold
// textVocabulary distinct words of the text field over their live
// documents, the cardinality a Compact would leave, and counts them as
// one segment in BM25's statistics from now on (see assumedCompaction).
// The count must be exact; when the index is a single segment without
// deletions it is checked against Bleve's.
func (ix *Index) AssumeCompacted(textVocabulary int) error {
	ix.apply.Lock()
	defer ix.apply.Unlock()
	r, err := ix.openReader()
	if err != nil {
		return err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return fmt.Errorf("index: assume compacted: reader is a %T", r)
	}
	a := &assumedCompaction{segments: map[uint64]struct{}{}, card: textVocabulary}
	segs := snap.Segments()
	for _, s := range segs {
		a.segments[s.Id()] = struct{}{}
	}
	if len(segs) == 1 && (segs[0].Deleted() == nil || segs[0].Deleted().IsEmpty()) {
		card, err := snap.FieldCardinality(FieldText)
		if err != nil {
			return fmt.Errorf("index: field cardinality: %w", err)
		}
		if card != textVocabulary {
			return fmt.Errorf("index: assume compacted: text vocabulary %d, but the compacted index holds %d words", textVocabulary, card)
		}
	}
	ix.assumed.Store(a)
	return nil
}

// textCardinality is the text field's cardinality BM25 uses on r: Bleve's,
// or with an assumed compaction the cardinality it recorded plus that of
// the segments added since.
func (ix *Index) textCardinality(r bindex.IndexReader) (int, error) {
	a := ix.assumed.Load()
	snap, ok := r.(*scorch.IndexSnapshot)
	if a == nil || !ok {
		br, ok := r.(bindex.BM25Reader)
		if !ok {
			return 0, errors.New("index: reader does not report field cardinality")
		}
		card, err := br.FieldCardinality(FieldText)
		if err != nil {
			return 0, fmt.Errorf("index: field cardinality: %w", err)
		}
		return card, nil
	}
	card := a.card
	for _, s := range snap.Segments() {
		if _, covered := a.segments[s.Id()]; covered {
			continue
		}
		d, err := s.Segment().Dictionary(FieldText)
		if err != nil {
			return 0, fmt.Errorf("index: text dictionary: %w", err)
		}
		card += d.Cardinality()
	}
	return card, nil
}

// bm25Stats is what Bleve's term searchers on r must use for BM25 under an
// assumed compaction (they would otherwise read the segments' own
// cardinality: search.BM25StatsKey), nil without one.
func (ix *Index) bm25Stats(r bindex.IndexReader) (*search.BM25Stats, error) {
	if ix.cfg.Scoring != ScoringBM25 || ix.assumed.Load() == nil {
		return nil, nil
	}
	n, err := r.DocCount()
	if err != nil {
		return nil, fmt.Errorf("index: doc count: %w", err)
	}
	card, err := ix.textCardinality(r)
	if err != nil {
		return nil, err
	}
	return &search.BM25Stats{DocCount: float64(n), FieldCardinality: map[string]int{FieldText: card}}, nil
}
