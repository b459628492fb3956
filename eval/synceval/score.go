package synceval

import (
	"math"

	"github.com/deltaq/deltaq/index"
)

// weekStats returns the corpus statistics of week w's live pages as Bleve
// would have them if the week were indexed as one segment: N live pages
// and, under BM25, the average field length ceil(vocabulary / N)
// (index/scorer.go).
func (c *corpus) weekStats(w int, s index.Scoring) index.CorpusStats {
	return index.BleveCorpusStats(s, uint64(len(c.live[w])), c.vocab[w])
}

// scoring is what S(W[p], q) of one query needs for one week: the
// statistics, each token's document frequency and its conjunction weight
// (index.ConjunctionWeights).
type scoring struct {
	st      index.CorpusStats
	dfs     []uint64
	weights []float64
}

// newScoring prepares S(·, q) for statistics st and the tokens' document
// frequencies dfs.
func newScoring(st index.CorpusStats, dfs []uint64) scoring {
	return scoring{st: st, dfs: dfs, weights: index.ConjunctionWeights(st, dfs, nil)}
}

// score is S(b, q): Bleve's score of a page holding body b for the query
// whose tokens are terms (index.ConjunctionScore), 0 if b lacks a term.
func (sc *scoring) score(b *body, terms []uint32) float64 {
	var buf [16]uint64
	tfs := buf[:0]
	for _, t := range terms {
		tf := b.tfOf(t)
		if tf == 0 {
			return 0
		}
		tfs = append(tfs, uint64(tf))
	}
	return index.ConjunctionScore(tfs, b.length, sc.st, sc.dfs, sc.weights)
}

// inspection is I(r) = c·r^(−3/2) (eq. 4.2) tabulated for ranks 1..n
// (n: every URL the archive ever has, the longest possible result list);
// I(0) is unused. Read-only after newInspection.
type inspection []float64

func newInspection(c float64, n int) inspection {
	t := make(inspection, n+1)
	for r := 1; r <= n; r++ {
		t[r] = c * math.Pow(float64(r), -1.5)
	}
	return t
}
