package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	boundstest.Check(t, "watch.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "context_words", Lo: 1, Hi: 1000, Set: func(c *Config, v int64) { c.ContextWords = int(v) }},
		{Key: "phrase_min_words", Lo: 1, Hi: 10000, Set: func(c *Config, v int64) { c.PhraseMinWords = int(v) }},
		{Key: "max_body_bytes", Lo: 1, Hi: 1 << 30, Set: func(c *Config, v int64) { c.MaxBodyBytes = v }},
		{Key: "max_regex_bytes", Lo: 1, Hi: 1 << 16, Set: func(c *Config, v int64) { c.MaxRegexBytes = int(v) }},
		{Key: "max_match_bytes", Lo: 1, Hi: 1 << 26, Set: func(c *Config, v int64) { c.MaxMatchBytes = int(v) }},
		{Key: "max_keywords", Lo: 1, Hi: 1000, Set: func(c *Config, v int64) { c.MaxKeywords = int(v) }},
		{Key: "history_kept", Lo: 1, Hi: 100000, Set: func(c *Config, v int64) { c.HistoryKept = int(v) }},
		{Key: "digest_kept", Lo: 1, Hi: 10000, Set: func(c *Config, v int64) { c.DigestKept = int(v) }},
		{Key: "checks_per_tick", Lo: 1, Hi: 100000, Set: func(c *Config, v int64) { c.ChecksPerTick = int(v) }},
		{Key: "max_request_bytes", Lo: 1, Hi: 1 << 24, Set: func(c *Config, v int64) { c.MaxRequestBytes = v }},
		{Key: "diff.max_bytes", Lo: 1, Hi: 1 << 26, Set: func(c *Config, v int64) { c.Diff.MaxBytes = int(v) }},
	})
}

// TestValidateShowsDurationsAsDurations: a duration not > 0 is named as
// a duration, not as a count of nanoseconds.
func TestValidateShowsDurationsAsDurations(t *testing.T) {
	c := testConfig()
	c.FetchTimeout, c.Duration, c.Tick = -5*time.Second, 0, -time.Minute
	err := c.Validate()
	for _, want := range []string{"watch.fetch_timeout = -5s: must be > 0", "watch.duration = 0s: must be > 0", "watch.tick = -1m0s: must be > 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}
