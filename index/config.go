package index

import (
	"fmt"
	"math"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/internal/querylog"
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
	// ScrubEvery is how often Run checks the segments against their
	// CRC-32s (Scrub), so that damage is found before a search reads the
	// damaged part; 0 never.
	ScrubEvery time.Duration `mapstructure:"scrub_every"`
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
	// Retrieval is the searcher's best-match ranking (match.go).
	Retrieval RetrievalConfig `mapstructure:"retrieval"`
}

// RetrievalConfig sets the searcher's ranking: BM25 over the text field
// with a title component, the coordination rule and the proximity boost
// (match.go describes each formula).
type RetrievalConfig struct {
	// K1 is BM25's term-frequency saturation.
	K1 float64 `mapstructure:"k1"`
	// B is BM25's length normalization of the text field, in [0, 1].
	B float64 `mapstructure:"b"`
	// TitleWeight weighs a query word's title occurrences against its
	// text score; 0 leaves the title out.
	TitleWeight float64 `mapstructure:"title_weight"`
	// ShortQueryTerms: a query of at most this many distinct words needs
	// all of them in a page.
	ShortQueryTerms int `mapstructure:"short_query_terms"`
	// MinShouldMatch is the fraction of a longer query's distinct words a
	// page needs, in [0, 1].
	MinShouldMatch float64 `mapstructure:"min_should_match"`
	// MinResults: when fewer pages satisfy the coordination rule, pages
	// with any of the words qualify.
	MinResults int `mapstructure:"min_results"`
	// FeedbackDocs is how many of the best pages a long query (more than
	// ShortQueryTerms words) is expanded from (RM3); 0 turns it off.
	FeedbackDocs int `mapstructure:"feedback_docs"`
	// FeedbackTerms is how many words the feedback model keeps.
	FeedbackTerms int `mapstructure:"feedback_terms"`
	// FeedbackWeight is 1−λ of RM3: the feedback model's share of the
	// expanded query, in [0, 1).
	FeedbackWeight float64 `mapstructure:"feedback_weight"`
	// FeedbackMaxDF leaves out of the feedback model the words new to the
	// query that more than this share of the pages hold, in (0, 1]; 1
	// keeps them all.
	FeedbackMaxDF float64 `mapstructure:"feedback_max_df"`
	// ProximityWeight weighs the proximity of words adjacent in the query;
	// 0 turns it off.
	ProximityWeight float64 `mapstructure:"proximity_weight"`
	// ProximityWindow is the largest distance, in positions, at which two
	// words count as near.
	ProximityWindow int `mapstructure:"proximity_window"`
	// ProximityDepth is how many of the best pages get the proximity boost.
	ProximityDepth int `mapstructure:"proximity_depth"`
}

// Upper bounds, far above any real use, of the settings that set work per
// query or per measured page, or a size held in memory.
const (
	// maxHistogramBatches: past it the histograms are rebuilt only by
	// histogram_interval.
	maxHistogramBatches = 1_000_000
	// maxRankCutoff bounds the terms summed one by one for each query
	// word of each re-downloaded page.
	maxRankCutoff = 10_000
	// maxWorkloadTerms bounds |Q′|, held in memory.
	maxWorkloadTerms = 100_000_000
	// maxQueryBytes: a query is read, parsed and analysed whole.
	maxQueryBytes = 1 << 20
	// maxSnippetBytes: every result of a page carries one.
	maxSnippetBytes = 64 << 10
	// maxPagesPerQuery bounds min_results, pages a query keeps aside and
	// looks up among its candidates, and proximity_depth, pages whose
	// positions a query reads.
	maxPagesPerQuery = 10_000
	// maxProximityWindow is positions, far past any page's text.
	maxProximityWindow = 100_000
)

// validate reports r's problems to report.
func (r RetrievalConfig) validate(report *bounds.Report) {
	if !(r.K1 > 0 && r.K1 <= 10) {
		report.Add("retrieval.k1", r.K1, "must be in (0, 10]")
	}
	if !(r.B >= 0 && r.B <= 1) {
		report.Add("retrieval.b", r.B, "must be in [0, 1]")
	}
	if !(r.TitleWeight >= 0 && r.TitleWeight <= 100) {
		report.Add("retrieval.title_weight", r.TitleWeight, "must be in [0, 100]")
	}
	// A query has at most maxMatchTerms distinct words.
	report.Add("retrieval.short_query_terms", r.ShortQueryTerms, bounds.Limit(r.ShortQueryTerms, 1, maxMatchTerms))
	if !(r.MinShouldMatch >= 0 && r.MinShouldMatch <= 1) {
		report.Add("retrieval.min_should_match", r.MinShouldMatch, "must be in [0, 1]")
	}
	if r.FeedbackDocs < 0 || r.FeedbackDocs > 100 {
		report.Add("retrieval.feedback_docs", r.FeedbackDocs, "must be in [0, 100]")
	}
	if r.FeedbackTerms < 0 || r.FeedbackTerms > maxMatchTerms {
		report.Add("retrieval.feedback_terms", r.FeedbackTerms, fmt.Sprintf("must be in [0, %d]", maxMatchTerms))
	}
	if !(r.FeedbackWeight >= 0 && r.FeedbackWeight < 1) {
		report.Add("retrieval.feedback_weight", r.FeedbackWeight, "must be in [0, 1)")
	}
	if !(r.FeedbackMaxDF > 0 && r.FeedbackMaxDF <= 1) {
		report.Add("retrieval.feedback_max_df", r.FeedbackMaxDF, "must be in (0, 1]")
	}
	report.Add("retrieval.min_results", r.MinResults, bounds.Limit(r.MinResults, 0, maxPagesPerQuery))
	if !(r.ProximityWeight >= 0 && r.ProximityWeight <= 100) {
		report.Add("retrieval.proximity_weight", r.ProximityWeight, "must be in [0, 100]")
	}
	report.Add("retrieval.proximity_window", r.ProximityWindow, bounds.Limit(r.ProximityWindow, 1, maxProximityWindow))
	report.Add("retrieval.proximity_depth", r.ProximityDepth, bounds.Limit(r.ProximityDepth, 0, maxPagesPerQuery))
}

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("index.")
	if c.Scoring != ScoringBM25 && c.Scoring != ScoringTFIDF {
		report.Add("scoring", fmt.Sprintf("%q", c.Scoring), fmt.Sprintf("must be %q or %q", ScoringBM25, ScoringTFIDF))
	}
	if c.BatchSize < 1 || c.BatchSize > 100000 {
		report.Add("batch_size", c.BatchSize, "must be in [1, 100000]")
	}
	if c.ScrubEvery != 0 && c.ScrubEvery < MinScrubEvery {
		report.Add("scrub_every", c.ScrubEvery, fmt.Sprintf("must be 0 (never) or at least %v: each scrub reads the whole index", MinScrubEvery))
	}
	if c.PollInterval <= 0 {
		report.Add("poll_interval", c.PollInterval, "must be > 0")
	}
	if c.HistogramBuckets < 1 || c.HistogramBuckets > 32 {
		report.Add("histogram_buckets", c.HistogramBuckets, "must be in [1, 32]")
	}
	report.Add("histogram_batches", c.HistogramBatches, bounds.Limit(c.HistogramBatches, 1, maxHistogramBatches))
	if c.HistogramInterval <= 0 {
		report.Add("histogram_interval", c.HistogramInterval, "must be > 0")
	}
	report.Add("rank_cutoff", c.RankCutoff, bounds.Limit(c.RankCutoff, 0, maxRankCutoff))
	if !(c.InspectionC > 0) || math.IsInf(c.InspectionC, 0) {
		report.Add("inspection_c", c.InspectionC, "must be a finite number > 0")
	}
	report.Add("workload_max_terms", c.WorkloadMaxTerms, bounds.Limit(c.WorkloadMaxTerms, 1, maxWorkloadTerms))
	report.Add("max_query_bytes", c.MaxQueryBytes, bounds.Limit(c.MaxQueryBytes, 1, maxQueryBytes))
	if c.MaxQueryTerms < 1 || c.MaxQueryTerms > maxMatchTerms {
		report.Add("max_query_terms", c.MaxQueryTerms, fmt.Sprintf("must be in [1, %d]", maxMatchTerms))
	}
	report.Add("snippet_bytes", c.SnippetBytes, bounds.Limit(c.SnippetBytes, 16, maxSnippetBytes))
	c.Retrieval.validate(report)
	if _, err := querylog.ParseFormat(c.WorkloadFormat); err != nil {
		report.Add("workload_format", fmt.Sprintf("%q", c.WorkloadFormat), err.Error())
	}
	return report.Err()
}

// Limits returns the query limits of the configuration.
func (c Config) Limits() Limits {
	return Limits{MaxBytes: c.MaxQueryBytes, MaxTerms: c.MaxQueryTerms}
}

func (c Config) estimator() Estimator {
	return Estimator{C: c.InspectionC, Cutoff: c.RankCutoff}
}
