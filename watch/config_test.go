package watch

import (
	"fmt"
	"strings"
	"testing"
)

// TestValidateBoundsEachSetting: a setting past its upper bound (2^62, or
// the bound plus one) is refused with its key, its value and its range; the
// bound itself is accepted.
func TestValidateBoundsEachSetting(t *testing.T) {
	for _, b := range []struct {
		key   string
		bound int64
		set   func(*Config, int64)
	}{
		{"context_words", 1000, func(c *Config, v int64) { c.ContextWords = int(v) }},
		{"phrase_min_words", 10000, func(c *Config, v int64) { c.PhraseMinWords = int(v) }},
		{"max_body_bytes", 1 << 30, func(c *Config, v int64) { c.MaxBodyBytes = v }},
		{"max_regex_bytes", 1 << 16, func(c *Config, v int64) { c.MaxRegexBytes = int(v) }},
		{"max_match_bytes", 1 << 26, func(c *Config, v int64) { c.MaxMatchBytes = int(v) }},
		{"max_keywords", 1000, func(c *Config, v int64) { c.MaxKeywords = int(v) }},
		{"history_kept", 100000, func(c *Config, v int64) { c.HistoryKept = int(v) }},
		{"digest_kept", 10000, func(c *Config, v int64) { c.DigestKept = int(v) }},
		{"checks_per_tick", 100000, func(c *Config, v int64) { c.ChecksPerTick = int(v) }},
		{"max_request_bytes", 1 << 24, func(c *Config, v int64) { c.MaxRequestBytes = v }},
	} {
		for _, v := range []int64{1 << 62, b.bound + 1} {
			c := testConfig()
			b.set(&c, v)
			want := fmt.Sprintf("watch.%s = %d: must be in [1, %d]", b.key, v, b.bound)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %d: Validate() = %v, want %q", b.key, v, err, want)
			}
		}
		c := testConfig()
		b.set(&c, b.bound)
		if err := c.Validate(); err != nil {
			t.Errorf("%s = %d (the bound): Validate() = %v, want nil", b.key, b.bound, err)
		}
	}
}
