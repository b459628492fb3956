package relation

import (
	"fmt"
	"net/http"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the defaults of user relations; they live in
// configs/default.yaml under "relation".
type Config struct {
	Budget          int           `mapstructure:"budget"`            // requests one sync may send
	SyncEvery       time.Duration `mapstructure:"sync_every"`        // serve and run sync each relation this often; 0: never
	Method          int           `mapstructure:"method"`            // 1 (all pages) or 2 (first page), §5.1
	MaxKeywords     int           `mapstructure:"max_keywords"`      // keyword subsets up to this size, §5.1
	Pool            int           `mapstructure:"pool"`              // GreedyProbes' keyword pool
	Alpha           float64       `mapstructure:"alpha"`             // staleness target α of §4.4
	RatePrior       float64       `mapstructure:"rate_prior"`        // λ̂ per unit before observations
	RatePriorWeight float64       `mapstructure:"rate_prior_weight"` // units of observation the prior weighs
	Unit            time.Duration `mapstructure:"unit"`              // time unit of λ and I
	PageSize        int           `mapstructure:"page_size"`         // p when a source does not declare it
	MaxResults      int           `mapstructure:"max_results"`       // K when a source does not declare it
	Quota           int           `mapstructure:"quota"`             // requests per quota_period, per source
	QuotaPeriod     time.Duration `mapstructure:"quota_period"`
	Timeout         time.Duration `mapstructure:"timeout"`   // one request
	MaxBytes        int64         `mapstructure:"max_bytes"` // one response body
	Retries         int           `mapstructure:"retries"`   // 429s waited out per request
	Backoff         time.Duration `mapstructure:"backoff"`   // first wait after a 429 without Retry-After
	APIMaxRows      int           `mapstructure:"api_max_rows"`
}

// Upper bounds of the settings, far beyond any sensible use.
const (
	// A sync plans up to a probe per request and reports each.
	maxBudget = 1000000
	// Each probe picked scores up to pool²/2 keyword pairs.
	maxPool = 10000
	// A query costs ⌈min(hits, K)/p⌉ requests, an int from a float; real
	// search interfaces stop near 1,000 results.
	maxResults = 1000000
	// Requests per quota_period: a million a minute throttles nothing.
	maxQuota = 1000000
	// A response body is held in memory whole.
	maxBodyBytes = 1 << 30
	// A source that keeps answering 429 holds the request that long;
	// without Retry-After the wait doubles per retry, 2s·2^29 being 34
	// years and 2s·2^33 past a time.Duration.
	maxRetries = 30
	// One API response's rows are held in memory and encoded whole.
	maxAPIRows = 100000
)

// MaxRatePrior bounds a prior rate λ̂ (updates per unit): at a million a
// unit every record has changed between any two reads, and more only
// brings the staleness sums (w·λ·I) nearer to overflow.
const MaxRatePrior = 1e6

// Validate reports every problem, naming the key, the value and the limit.
func (c Config) Validate() error {
	report := bounds.NewReport("relation.")
	// The lower bounds are checked on their own, each with its reason.
	report.Add("budget", c.Budget, bounds.Limit(c.Budget, 1, maxBudget))
	if c.SyncEvery != 0 && c.SyncEvery < time.Minute {
		report.Add("sync_every", c.SyncEvery, "must be 0 (off) or >= 1m")
	}
	if c.Method != 1 && c.Method != 2 {
		report.Add("method", c.Method, "must be 1 or 2")
	}
	if c.MaxKeywords < 1 || c.MaxKeywords > 2 {
		report.Add("max_keywords", c.MaxKeywords, "must be 1 or 2")
	}
	report.Add("pool", c.Pool, bounds.Limit(c.Pool, 1, maxPool))
	// No upper bound: an α past every g(I) gets no interval reported
	// (ErrNoInterval), and the sync goes on.
	if !(c.Alpha > 0) {
		report.Add("alpha", c.Alpha, "must be > 0")
	}
	if !(c.RatePrior >= 0 && c.RatePrior <= MaxRatePrior) {
		report.Add("rate_prior", c.RatePrior, fmt.Sprintf("must be in [0, %g]", MaxRatePrior))
	}
	if c.RatePriorWeight < 0 {
		report.Add("rate_prior_weight", c.RatePriorWeight, "must be >= 0")
	}
	if c.Unit <= 0 {
		report.Add("unit", c.Unit, "must be > 0")
	}
	if c.PageSize < 1 {
		report.Add("page_size", c.PageSize, "must be >= 1")
	}
	if c.MaxResults < c.PageSize {
		report.Add("max_results", c.MaxResults, fmt.Sprintf("must be >= page_size (%d)", c.PageSize))
	}
	report.Add("max_results", c.MaxResults, bounds.Over(c.MaxResults, c.PageSize, maxResults))
	if c.Quota < 0 || c.QuotaPeriod < 0 || (c.Quota > 0) != (c.QuotaPeriod > 0) {
		report.Add("quota", fmt.Sprintf("%d per %v", c.Quota, c.QuotaPeriod), "want both quota and quota_period > 0, or both 0")
	}
	report.Add("quota", c.Quota, bounds.Over(c.Quota, 0, maxQuota))
	if c.Timeout <= 0 {
		report.Add("timeout", c.Timeout, "must be > 0")
	}
	report.Add("max_bytes", c.MaxBytes, bounds.Limit(c.MaxBytes, 1, maxBodyBytes))
	report.Add("retries", c.Retries, bounds.Limit(c.Retries, 0, maxRetries))
	if c.Backoff < 0 {
		report.Add("backoff", c.Backoff, "must be >= 0")
	}
	report.Add("api_max_rows", c.APIMaxRows, bounds.Limit(c.APIMaxRows, 1, maxAPIRows))
	return report.Err()
}

// SyncOptions are the configured options of one sync.
func (c Config) SyncOptions(dryRun bool) SyncOptions {
	return SyncOptions{Budget: c.Budget, Method: Method(c.Method), MaxKeywords: c.MaxKeywords, Pool: c.Pool, Alpha: c.Alpha,
		RatePrior: c.RatePrior, RatePriorWeight: c.RatePriorWeight, Unit: c.Unit, DryRun: dryRun}
}

// ClientOptions are the configured options of a source's client.
func (c Config) ClientOptions(userAgent string) ClientOptions {
	return ClientOptions{HTTP: &http.Client{Timeout: c.Timeout}, Timeout: c.Timeout, UserAgent: userAgent, MaxBytes: c.MaxBytes, MaxBytesKey: "relation.max_bytes", Retries: c.Retries, Backoff: c.Backoff}
}
