// Package indextest gives other packages' tests an index configuration
// that passes Validate and keeps small test webs fast: one place to update
// when the index gains a setting.
package indextest

import (
	"time"

	"github.com/deltaq/deltaq/index"
)

// Config is a valid index configuration for tests: BM25, small batches,
// and MinResults 1 so that on a few pages a short query keeps its AND
// unless nothing has every word.
func Config() index.Config {
	return index.Config{Scoring: index.ScoringBM25, BatchSize: 200, PollInterval: time.Second, HistogramBuckets: 8,
		HistogramBatches: 1000, HistogramInterval: time.Hour, RankCutoff: 64, InspectionC: 1, WorkloadMaxTerms: 1 << 20,
		MaxQueryBytes: 1000, MaxQueryTerms: 32, SnippetBytes: 160, WorkloadFormat: "auto",
		Retrieval: index.RetrievalConfig{K1: 1.2, B: 0.75, ShortQueryTerms: 4, MinResults: 1, FeedbackMaxDF: 1,
			ProximityWindow: 8, ProximityDepth: 100}}
}
