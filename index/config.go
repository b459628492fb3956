package index

import (
	"errors"
	"fmt"
	"github.com/deltaq/deltaq/internal/querylog"
	"math"
	"time"
)

// Config holds the index's settings; the defaults live in
// configs/default.yaml under "index".
type Config struct {
	// Scoring is the Bleve scoring model, "bm25" or "tf-idf"; S() of §4.2.1.
	// An index keeps the model it was built with.
	Scoring Scoring `mapstructure:"scoring"`
	// BatchSize is the number of change-feed entries applied per Bleve batch.
	BatchSize int `mapstructure:"batch_size"`
	// PollInterval is how long Run waits for a notification before looking
	// at the change feed again.
	PollInterval time.Duration `mapstructure:"poll_interval"`
	// HistogramBuckets is the number of rank buckets of each H_q (§4.6.1).
	HistogramBuckets int `mapstructure:"histogram_buckets"`
	// HistogramBatches rebuilds H_q after this many applied batches.
	HistogramBatches int `mapstructure:"histogram_batches"`
	// HistogramInterval rebuilds H_q when it is this old at the end of a batch.
	HistogramInterval time.Duration `mapstructure:"histogram_interval"`
	// RankCutoff is the longest rank shift |r2 − r1| whose sum is evaluated
	// term by term; longer ones use the closed form (§4.6.1).
	RankCutoff int `mapstructure:"rank_cutoff"`
	// InspectionC is c of I(r) = c·r^(−3/2) (eq. 4.2).
	InspectionC float64 `mapstructure:"inspection_c"`
	// WorkloadMaxTerms bounds |Q′|: the most frequent terms are kept.
	WorkloadMaxTerms int `mapstructure:"workload_max_terms"`
	// MaxQueryBytes is the longest query accepted, in bytes.
	MaxQueryBytes int `mapstructure:"max_query_bytes"`
	// MaxQueryTerms is the most words, phrases, exclusions and site:
	// filters one query may have.
	MaxQueryTerms int `mapstructure:"max_query_terms"`
	// SnippetBytes is the length of a result snippet, in bytes of text.
	SnippetBytes int `mapstructure:"snippet_bytes"`
	// WorkloadLog is the query log Q the ΔQ measurement weighs queries by
	// (§4.6.1), loaded by the binary; "" turns the measurement off.
	WorkloadLog string `mapstructure:"workload_log"`
	// WorkloadFormat is its format for querylog.ParseFormat.
	WorkloadFormat string `mapstructure:"workload_format"`
}

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, v any, limit string) {
		errs = append(errs, fmt.Errorf("index.%s = %v: %s", key, v, limit))
	}
	if c.Scoring != ScoringBM25 && c.Scoring != ScoringTFIDF {
		bad("scoring", fmt.Sprintf("%q", c.Scoring), fmt.Sprintf("must be %q or %q", ScoringBM25, ScoringTFIDF))
	}
	if c.BatchSize < 1 || c.BatchSize > 100000 {
		bad("batch_size", c.BatchSize, "must be in [1, 100000]")
	}
	if c.PollInterval <= 0 {
		bad("poll_interval", c.PollInterval, "must be > 0")
	}
	if c.HistogramBuckets < 1 || c.HistogramBuckets > 32 {
		bad("histogram_buckets", c.HistogramBuckets, "must be in [1, 32]")
	}
	if c.HistogramBatches < 1 {
		bad("histogram_batches", c.HistogramBatches, "must be >= 1")
	}
	if c.HistogramInterval <= 0 {
		bad("histogram_interval", c.HistogramInterval, "must be > 0")
	}
	if c.RankCutoff < 0 {
		bad("rank_cutoff", c.RankCutoff, "must be >= 0")
	}
	if !(c.InspectionC > 0) || math.IsInf(c.InspectionC, 0) {
		bad("inspection_c", c.InspectionC, "must be a finite number > 0")
	}
	if c.WorkloadMaxTerms < 1 {
		bad("workload_max_terms", c.WorkloadMaxTerms, "must be >= 1")
	}
	if c.MaxQueryBytes < 1 {
		bad("max_query_bytes", c.MaxQueryBytes, "must be >= 1")
	}
	if c.MaxQueryTerms < 1 {
		bad("max_query_terms", c.MaxQueryTerms, "must be >= 1")
	}
	if c.SnippetBytes < 16 {
		bad("snippet_bytes", c.SnippetBytes, "must be >= 16")
	}
	if _, err := querylog.ParseFormat(c.WorkloadFormat); err != nil {
		bad("workload_format", fmt.Sprintf("%q", c.WorkloadFormat), err.Error())
	}
	return errors.Join(errs...)
}

// Limits returns the query limits of the configuration.
func (c Config) Limits() Limits {
	return Limits{MaxBytes: c.MaxQueryBytes, MaxTerms: c.MaxQueryTerms}
}

func (c Config) estimator() Estimator {
	return Estimator{C: c.InspectionC, Cutoff: c.RankCutoff}
}
