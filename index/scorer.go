package index

import (
	"fmt"
	"math"

	bindex "github.com/blevesearch/bleve_index_api"
)

// The scorer reproduces, bit for bit, the score Bleve v2.6.1 gives a page
// for a single-term query on FieldText, S(W^L[p], q) of §4.2.1, from the
// term's postings statistics. What Bleve does (search/scorer/scorer_term.go,
// search/searcher/search_term.go, zapx/v17 posting.go):
//
//   - tf is √freq, freq the term's occurrences in the field.
//   - The field norm is float32(1/√L), L the field's analyzed length
//     (tokens after stop-word removal); zap stores L and rounds the norm to
//     float32 when it reads the posting.
//   - TF-IDF (the default model): idf = 1 + ln(N/(df+1)),
//     score = tf · norm · idf.
//   - BM25: idf = ln(1 + (N − df + 0.5)/(df + 0.5)), the field length is
//     recovered from the norm as 1/norm², and
//     score = idf · tf·k1 / (tf + k1·(1 − b + b·len/avg)), k1 = 1.2, b = 0.75.
//     avg is ceil(C/N) where C is the field's "cardinality": the number of
//     distinct terms in the field's dictionary, summed over the index's
//     segments (so it is a vocabulary size per document, not a mean token
//     count, and it moves when segments merge). If avg is 0 (an empty index)
//     Bleve falls back to the TF-IDF formula.
//   - N is the number of live documents, df the number of live documents
//     containing the term.
//   - A lone term query is not normalized (queryWeight 1). Inside a
//     conjunction or disjunction each term's score is multiplied by
//     boost·idf/√(Σ (boost·idf)²) (the queryNorm), in both models; a
//     conjunction sums its children, a disjunction multiplies the sum by
//     coord = matched/total.

// BM25 parameters, as in Bleve's search.BM25_k1 and search.BM25_b.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// CorpusStats are the collection statistics a single-term score depends on
// besides the term's own document frequency.
type CorpusStats struct {
	// DocCount is N, the number of documents.
	DocCount uint64
	// AvgFieldLength is BM25's average field length; 0 selects the TF-IDF
	// formula (as Bleve does when the model is TF-IDF or the index is empty).
	// For a Bleve index it is ceil(FieldCardinality/DocCount), see
	// BleveCorpusStats.
	AvgFieldLength float64
}

// BleveCorpusStats returns the statistics Bleve uses for a scoring model,
// given the document count and the text field's cardinality (the sum over
// segments of the number of distinct terms in the field's dictionary).
func BleveCorpusStats(s Scoring, docCount uint64, fieldCardinality int) CorpusStats {
	st := CorpusStats{DocCount: docCount}
	if s == ScoringBM25 && !(docCount == 0 && fieldCardinality == 0) {
		st.AvgFieldLength = math.Ceil(float64(fieldCardinality) / float64(docCount))
	}
	return st
}

// TermScore is S(p, q) for a single-term query q: the score of a page whose
// text field has analyzed length fieldLength and contains the term tf
// times, when df documents of the corpus contain the term. A page without
// the term scores 0.
func TermScore(tf uint64, fieldLength int, st CorpusStats, df uint64) float64 {
	if tf == 0 {
		return 0
	}
	return scoreWithNorm(tf, fieldNorm(fieldLength), st, df)
}

// fieldNorm is the norm zap returns for a field of the given length.
func fieldNorm(length int) float64 {
	return float64(float32(1.0 / math.Sqrt(float64(length))))
}

// idf is the inverse document frequency of a term under the statistics.
func idf(st CorpusStats, df uint64) float64 {
	if st.AvgFieldLength > 0 {
		return math.Log(1 + (float64(st.DocCount)-float64(df)+0.5)/(float64(df)+0.5))
	}
	return 1.0 + math.Log(float64(st.DocCount)/float64(df+1.0))
}

// scoreWithNorm scores a posting (freq, norm) the way TermQueryScorer does.
func scoreWithNorm(freq uint64, norm float64, st CorpusStats, df uint64) float64 {
	tf := math.Sqrt(float64(freq))
	w := idf(st, df)
	if st.AvgFieldLength > 0 {
		fieldLength := 1 / (norm * norm)
		return w * (tf * bm25K1) / (tf + bm25K1*(1-bm25B+(bm25B*fieldLength/st.AvgFieldLength)))
	}
	return tf * norm * w
}

// readerStats reads N and the text field's cardinality from an index
// reader: the statistics every term query made on that reader uses
// (with a compaction assumed, the cardinality it stands for: compact.go).
func (ix *Index) readerStats(r bindex.IndexReader) (CorpusStats, error) {
	n, err := r.DocCount()
	if err != nil {
		return CorpusStats{}, fmt.Errorf("index: doc count: %w", err)
	}
	card := 0
	if ix.cfg.Scoring == ScoringBM25 {
		if card, err = ix.textCardinality(r); err != nil {
			return CorpusStats{}, err
		}
	}
	return BleveCorpusStats(ix.cfg.Scoring, n, card), nil
}
