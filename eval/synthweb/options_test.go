package synthweb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*synthweb.Config)
		want   []string // substrings of the error; none means valid
	}{
		{"the test config is valid", func(*synthweb.Config) {}, nil},
		{"a sub-second arrival interval is rejected", func(c *synthweb.Config) { c.NewArticleInterval = time.Millisecond },
			[]string{"web.synth.new_article_interval = 1ms: must be >= 1s"}},
		{"zero sites is rejected", func(c *synthweb.Config) { c.Sites = 0 },
			[]string{"web.synth.sites = 0: must be in [1, 10000]"}},
		{"too many sections is rejected", func(c *synthweb.Config) { c.Sections = 13 },
			[]string{"web.synth.sections = 13: must be in [1, 12]"}},
		{"a slow interval shorter than the fast one is rejected", func(c *synthweb.Config) {
			c.SlowChangeInterval = time.Second
		}, []string{"web.synth.slow_change_interval = 1s: must be > 0 and >= fast_change_interval (2m0s)"}},
		{"fractions outside [0,1] are rejected", func(c *synthweb.Config) {
			c.MajorChangeFraction, c.ChainFraction, c.DeleteFraction = 1.5, 1, -0.1
		}, []string{"major_change_fraction = 1.5", "chain_fraction = 1", "delete_fraction = -0.1"}},
		{"every problem is reported at once", func(c *synthweb.Config) { *c = synthweb.Config{CrawlDelay: -1} },
			[]string{"sites", "pages_per_site", "sections", "page_size", "feed_size", "time_scale",
				"fast_change_interval", "slow_change_interval", "change_rate_shape", "new_article_interval",
				"mean_lifetime", "crawl_delay"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			tt.mutate(&cfg)
			err := cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want errors containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q", err, w)
				}
			}
			if _, err := synthweb.New(synthweb.Options{Config: cfg}); err == nil {
				t.Errorf("New accepted a config Validate rejects")
			}
		})
	}
}
