package index

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

func TestConfigValidateNamesEveryProblem(t *testing.T) {
	err := Config{Scoring: "cosine", InspectionC: -1, RankCutoff: -1, ScrubEvery: 10 * time.Second}.Validate()
	if err == nil {
		t.Fatal("zero config accepted")
	}
	for _, want := range []string{
		`index.scoring = "cosine": must be "bm25" or "tf-idf"`,
		"index.batch_size = 0: must be in [1, 100000]",
		"index.poll_interval = 0s: must be > 0",
		"index.scrub_every = 10s: must be 0 (never) or at least 1m0s: each scrub reads the whole index",
		"index.histogram_buckets = 0: must be in [1, 32]",
		"index.histogram_batches = 0: must be >= 1",
		"index.histogram_interval = 0s: must be > 0",
		"index.rank_cutoff = -1: must be >= 0",
		"index.inspection_c = -1: must be a finite number > 0",
		"index.workload_max_terms = 0: must be >= 1",
		"index.max_query_bytes = 0: must be >= 1",
		"index.max_query_terms = 0: must be in [1, 64]",
		"index.retrieval.k1 = 0: must be in (0, 10]",
		"index.retrieval.short_query_terms = 0: must be >= 1",
		"index.retrieval.proximity_window = 0: must be >= 1",
		"index.snippet_bytes = 0: must be >= 16",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if err := testConfig(ScoringTFIDF).Validate(); err != nil {
		t.Fatalf("test config rejected: %v", err)
	}
}

// TestConfigUpperBounds: each count that sets work per query or per
// measured page, or a size held in memory, is refused past its bound with
// the key and the range, and accepted at the bound.
func TestConfigUpperBounds(t *testing.T) {
	fresh := func() Config { return testConfig(ScoringBM25) }
	boundstest.Check(t, "index.", fresh, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "histogram_batches", Lo: 1, Hi: maxHistogramBatches, Set: func(c *Config, v int64) { c.HistogramBatches = int(v) }},
		{Key: "rank_cutoff", Lo: 0, Hi: maxRankCutoff, Set: func(c *Config, v int64) { c.RankCutoff = int(v) }},
		{Key: "workload_max_terms", Lo: 1, Hi: maxWorkloadTerms, Set: func(c *Config, v int64) { c.WorkloadMaxTerms = int(v) }},
		{Key: "max_query_bytes", Lo: 1, Hi: maxQueryBytes, Set: func(c *Config, v int64) { c.MaxQueryBytes = int(v) }},
		{Key: "snippet_bytes", Lo: 16, Hi: maxSnippetBytes, Set: func(c *Config, v int64) { c.SnippetBytes = int(v) }},
		{Key: "retrieval.short_query_terms", Lo: 1, Hi: maxMatchTerms, Set: func(c *Config, v int64) { c.Retrieval.ShortQueryTerms = int(v) }},
		{Key: "retrieval.min_results", Lo: 0, Hi: maxPagesPerQuery, Set: func(c *Config, v int64) { c.Retrieval.MinResults = int(v) }},
		{Key: "retrieval.proximity_window", Lo: 1, Hi: maxProximityWindow, Set: func(c *Config, v int64) { c.Retrieval.ProximityWindow = int(v) }},
		{Key: "retrieval.proximity_depth", Lo: 0, Hi: maxPagesPerQuery, Set: func(c *Config, v int64) { c.Retrieval.ProximityDepth = int(v) }},
	})
}
