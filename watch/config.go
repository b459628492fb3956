package watch

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/internal/bounds"
)

// Config bounds sentinels and checks. Defaults live in
// configs/default.yaml (watch).
type Config struct {
	// ContextWords is the length of each side of a bounding box, B and E
	// (WebCQ §3.2: 10).
	ContextWords int `mapstructure:"context_words"`
	// PhraseMinWords is the shortest phrase object (WebCQ §3.2: 5).
	PhraseMinWords int `mapstructure:"phrase_min_words"`
	// MaxBodyBytes is the largest page a check reads; a longer body is a
	// failed check, not a truncated one.
	MaxBodyBytes int64 `mapstructure:"max_body_bytes"`
	// FetchTimeout bounds one fetch.
	FetchTimeout time.Duration `mapstructure:"fetch_timeout"`
	// MaxRegexBytes is the longest regex a sentinel may have.
	MaxRegexBytes int `mapstructure:"max_regex_bytes"`
	// MaxMatchBytes caps the text a regex sentinel keeps from its matches.
	MaxMatchBytes int `mapstructure:"max_match_bytes"`
	// MaxKeywords is the most keywords a sentinel may have.
	MaxKeywords int `mapstructure:"max_keywords"`
	// Duration is how long a sentinel runs when no stop time is given
	// (WebCQ §8.2: one year).
	Duration time.Duration `mapstructure:"duration"`
	// HistoryKept is how many detected changes each sentinel keeps.
	HistoryKept int `mapstructure:"history_kept"`
	// DigestKept is the most changes a periodic digest holds.
	DigestKept int `mapstructure:"digest_kept"`
	// Tick and ChecksPerTick pace the stand-alone check loop (Run): every
	// Tick the planner picks at most ChecksPerTick groups.
	Tick          time.Duration `mapstructure:"tick"`
	ChecksPerTick int           `mapstructure:"checks_per_tick"`
	// MaxRequestBytes bounds a request body of the watch and alert API.
	MaxRequestBytes int64 `mapstructure:"max_request_bytes"`
	// Diff bounds each difference.
	Diff    diff.Options   `mapstructure:"diff"`
	Extract extract.Limits `mapstructure:"extract"`
}

// Upper bounds of the settings, far beyond any sensible use.
const (
	// A box copies this many words on each side, and locate tries each of
	// B's suffixes in turn: quadratic in it.
	maxContextWords = 1000
	// Only compared with a phrase's words: a larger minimum refuses every
	// phrase sentinel.
	maxPhraseMinWords = 10000
	// A page is held in memory whole, and so is its kept copy unpacked.
	maxBodyBytes = 1 << 30
	// RE2 runs in time proportional to the regex times the page.
	maxRegexBytes = 1 << 16
	// The kept match text is stored with the sentinel and diffed on each
	// check.
	maxMatchBytes = 1 << 26
	// Each keyword is a search of the whole page text.
	maxKeywords = 1000
	// History reads a sentinel's kept changes whole, and its failure runs
	// live in its page's record, read and rewritten on each check.
	maxHistoryKept = 100000
	// Pending changes live in the sentinel's record, read and rewritten on
	// each evaluation, and go out in one notification.
	maxDigestKept = 10000
	// Checks run one after another within a tick.
	maxChecksPerTick = 100000
	// An API request body is read into memory whole, by any client.
	maxRequestBytes = 1 << 24
	// Each view of a change's diff is kept in its history entries and
	// sent whole in each of its notifications.
	maxDiffBytes = 1 << 26
)

// Validate reports every value out of range, naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("watch.")
	report.Add("context_words", c.ContextWords, bounds.Positive(c.ContextWords, maxContextWords))
	report.Add("phrase_min_words", c.PhraseMinWords, bounds.Positive(c.PhraseMinWords, maxPhraseMinWords))
	report.Add("max_body_bytes", c.MaxBodyBytes, bounds.Positive(c.MaxBodyBytes, maxBodyBytes))
	report.Add("max_regex_bytes", c.MaxRegexBytes, bounds.Positive(c.MaxRegexBytes, maxRegexBytes))
	report.Add("max_match_bytes", c.MaxMatchBytes, bounds.Positive(c.MaxMatchBytes, maxMatchBytes))
	report.Add("max_keywords", c.MaxKeywords, bounds.Positive(c.MaxKeywords, maxKeywords))
	report.Add("history_kept", c.HistoryKept, bounds.Positive(c.HistoryKept, maxHistoryKept))
	report.Add("digest_kept", c.DigestKept, bounds.Positive(c.DigestKept, maxDigestKept))
	report.Add("max_request_bytes", c.MaxRequestBytes, bounds.Positive(c.MaxRequestBytes, maxRequestBytes))
	report.Add("checks_per_tick", c.ChecksPerTick, bounds.Positive(c.ChecksPerTick, maxChecksPerTick))
	// Durations, shown as such; their own type bounds them.
	report.Add("fetch_timeout", c.FetchTimeout, bounds.AboveZero(c.FetchTimeout))
	report.Add("duration", c.Duration, bounds.AboveZero(c.Duration))
	report.Add("tick", c.Tick, bounds.AboveZero(c.Tick))
	report.Add("diff.max_bytes", c.Diff.MaxBytes, bounds.Positive(c.Diff.MaxBytes, maxDiffBytes))
	if c.Diff.Timeout < 0 {
		report.Add("diff.timeout", c.Diff.Timeout, "must be ≥ 0")
	}
	if err := c.Extract.Validate(); err != nil {
		report.Include(fmt.Errorf("watch.%w", err))
	}
	return report.Err()
}
