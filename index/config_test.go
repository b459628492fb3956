package index

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
	for _, tc := range []struct {
		key       string
		lo, bound int
		set       func(*Config, int)
	}{
		{"histogram_batches", 1, maxHistogramBatches, func(c *Config, v int) { c.HistogramBatches = v }},
		{"rank_cutoff", 0, maxRankCutoff, func(c *Config, v int) { c.RankCutoff = v }},
		{"workload_max_terms", 1, maxWorkloadTerms, func(c *Config, v int) { c.WorkloadMaxTerms = v }},
		{"max_query_bytes", 1, maxQueryBytes, func(c *Config, v int) { c.MaxQueryBytes = v }},
		{"snippet_bytes", 16, maxSnippetBytes, func(c *Config, v int) { c.SnippetBytes = v }},
		{"retrieval.short_query_terms", 1, maxMatchTerms, func(c *Config, v int) { c.Retrieval.ShortQueryTerms = v }},
		{"retrieval.min_results", 0, maxPagesPerQuery, func(c *Config, v int) { c.Retrieval.MinResults = v }},
		{"retrieval.proximity_window", 1, maxProximityWindow, func(c *Config, v int) { c.Retrieval.ProximityWindow = v }},
		{"retrieval.proximity_depth", 0, maxPagesPerQuery, func(c *Config, v int) { c.Retrieval.ProximityDepth = v }},
	} {
		for _, v := range []int{1 << 62, tc.bound + 1} {
			c := testConfig(ScoringBM25)
			tc.set(&c, v)
			want := fmt.Sprintf("index.%s = %d: must be in [%d, %d]", tc.key, v, tc.lo, tc.bound)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Validate() = %v, want %q", err, want)
			}
		}
		c := testConfig(ScoringBM25)
		tc.set(&c, tc.bound)
		if err := c.Validate(); err != nil {
			t.Errorf("index.%s = %d (the bound): %v", tc.key, tc.bound, err)
		}
	}
}
