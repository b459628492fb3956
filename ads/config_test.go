package ads

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

func TestConfigValidate(t *testing.T) {
	if err := testConfig().Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	// A ring of ids allocated whole: a huge one would exhaust memory.
	huge := testConfig()
	huge.RecentClicks = 1 << 62
	if err := huge.Validate(); err == nil || !strings.Contains(err.Error(), "ads.recent_clicks = 4611686018427387904: must be in [1, 4194304]") {
		t.Errorf("recent_clicks 2^62: %v, want it refused naming the limit", err)
	}
	bad := Config{
		Policy: "ucb", PerQuery: 0, TimeZone: "Mars/Olympus", QueryCount: "week",
		MaxAdsPerAdvertiser: 0, MaxPhrasesPerAd: 0, MinBid: 0, MaxBid: -1, MaxDailyBudget: 0,
		Secret: "short", ClickTTL: time.Second, RecentClicks: 0, FlushInterval: 0, MaxRequestBytes: 10,
	}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{
		`ads.policy = "ucb": must be one of greedy, mix, bmix, bmix-e, bmix-t, bmix-et`,
		"ads.per_query = 0: must be in [1, 32]",
		`ads.time_zone = "Mars/Olympus": must name an IANA time zone`,
		`ads.query_count = "week": must be day or total`,
		"ads.max_ads_per_advertiser = 0: must be >= 1",
		"ads.max_phrases_per_ad = 0: must be >= 1",
		"ads.min_bid = 0: must be >= 0.000001",
		"ads.max_bid = -1: must be in [ads.min_bid, 1e+09]",
		"ads.max_daily_budget = 0: must be in",
		"ads.secret = (5 bytes): must be empty or at least 32 bytes",
		"ads.click_ttl = 1s: must be >= 1m",
		"ads.recent_clicks = 0: must be in [1, 4194304]",
		"ads.flush_interval = 0s: must be >= 1s",
		"ads.max_request_bytes = 10: must be >= 1024",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// TestConfigUpperBounds: a count of ads or phrases, or a request size, past
// its bound is refused with the key and the range, and accepted at the
// bound.
func TestConfigUpperBounds(t *testing.T) {
	boundstest.CheckExact(t, "ads.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "max_ads_per_advertiser", Lo: 1, Hi: maxAdsPerAdvertiser, Set: func(c *Config, v int64) { c.MaxAdsPerAdvertiser = int(v) }},
		{Key: "max_phrases_per_ad", Lo: 1, Hi: maxPhrasesPerAd, Set: func(c *Config, v int64) { c.MaxPhrasesPerAd = int(v) }},
		{Key: "max_request_bytes", Lo: 1024, Hi: maxRequestBytes, Set: func(c *Config, v int64) { c.MaxRequestBytes = v }},
	})
}

// TestConfigValidateRefusesBoundsFinerThanAMicro: a bound the Store would
// round to whole micros is refused, as UnitsIn refuses such an amount in a
// request.
func TestConfigValidateRefusesBoundsFinerThanAMicro(t *testing.T) {
	c := testConfig()
	c.MinBid, c.MaxBid, c.MaxDailyBudget = 0.0000015, 10.0000001, 1000.0000001
	err := c.Validate()
	for _, want := range []string{
		"ads.min_bid = 1.5e-06: must have at most 6 decimals",
		"ads.max_bid = 10.0000001: must have at most 6 decimals",
		"ads.max_daily_budget = 1000.0000001: must have at most 6 decimals",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
