package index

import (
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
