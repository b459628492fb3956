package watch

import (
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
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

// Validate reports every value out of range, naming its key.
func (c Config) Validate() error {
	var errs []error
	for _, f := range []struct {
		key string
		v   int64
	}{
		{"context_words", int64(c.ContextWords)}, {"phrase_min_words", int64(c.PhraseMinWords)},
		{"max_body_bytes", c.MaxBodyBytes}, {"fetch_timeout", int64(c.FetchTimeout)},
		{"max_regex_bytes", int64(c.MaxRegexBytes)}, {"max_match_bytes", int64(c.MaxMatchBytes)},
		{"max_keywords", int64(c.MaxKeywords)}, {"duration", int64(c.Duration)},
		{"history_kept", int64(c.HistoryKept)}, {"digest_kept", int64(c.DigestKept)}, {"max_request_bytes", c.MaxRequestBytes},
		{"tick", int64(c.Tick)}, {"checks_per_tick", int64(c.ChecksPerTick)},
	} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("watch.%s = %d: must be > 0", f.key, f.v))
		}
	}
	if c.Diff.Timeout < 0 {
		errs = append(errs, fmt.Errorf("watch.diff.timeout = %v: must be ≥ 0", c.Diff.Timeout))
	}
	if err := c.Extract.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("watch.%w", err))
	}
	return errors.Join(errs...)
}
