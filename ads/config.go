package ads

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the ads settings; the defaults live in configs/default.yaml
// under the key "ads".
type Config struct {
	// Policy names the selection policy: greedy, mix, bmix, bmix-e, bmix-t
	// or bmix-et (§6.5–6.7).
	Policy string `mapstructure:"policy"`
	// PerQuery is C, the most ads shown for one query (§6.1).
	PerQuery int `mapstructure:"per_query"`
	// TimeZone is the IANA zone whose midnight resets daily budgets and the
	// per-day query counts, unless an advertiser names its own.
	TimeZone string `mapstructure:"time_zone"`
	// QueryCount says what n_j counts in the exploration term of MIX and
	// its variants: "day" (queries of the phrase so far today, the §6.5
	// wording) or "total" (since the phrase was first targeted).
	QueryCount string `mapstructure:"query_count"`
	// MaxAdsPerAdvertiser bounds the active ads of one advertiser.
	MaxAdsPerAdvertiser int `mapstructure:"max_ads_per_advertiser"`
	// MaxPhrasesPerAd bounds the target phrases of one ad.
	MaxPhrasesPerAd int `mapstructure:"max_phrases_per_ad"`
	// MinBid and MaxBid bound b_ij, in currency units per click.
	MinBid float64 `mapstructure:"min_bid"`
	MaxBid float64 `mapstructure:"max_bid"`
	// MaxDailyBudget bounds d_i, in currency units per day.
	MaxDailyBudget float64 `mapstructure:"max_daily_budget"`
	// Secret keys the HMAC of click URLs. Empty means a random secret made
	// at first start and kept in the repository.
	Secret string `mapstructure:"secret"`
	// ClickTTL is how long a click URL can be charged after the impression.
	ClickTTL time.Duration `mapstructure:"click_ttl"`
	// RecentClicks is how many clicked impression ids are remembered in
	// memory; older ones are looked up in the repository.
	RecentClicks int `mapstructure:"recent_clicks"`
	// FlushInterval is how often impression and query counts are written to
	// the repository.
	FlushInterval time.Duration `mapstructure:"flush_interval"`
	// MaxRequestBytes bounds the body of an advertiser API request.
	MaxRequestBytes int64 `mapstructure:"max_request_bytes"`
}

// maxRecentClicks bounds recent_clicks: its ring of ids is allocated
// whole when the store opens.
const maxRecentClicks = 1 << 22

// Upper bounds, far above any real use: an advertiser's ads and their
// phrases are held in memory and matched against queries, and a request
// body is read whole.
const (
	maxAdsPerAdvertiser = 1_000_000
	maxPhrasesPerAd     = 10_000
	maxRequestBytes     = 64 << 20
)

// Validate reports every problem in c, each naming its key, value and limit.
func (c Config) Validate() error {
	report := bounds.NewReport("ads.")
	if _, err := PolicyByName(c.Policy); err != nil {
		report.Add("policy", fmt.Sprintf("%q", c.Policy), "must be one of "+policyNames())
	}
	if c.PerQuery < 1 || c.PerQuery > MaxPerQuery {
		report.Add("per_query", c.PerQuery, fmt.Sprintf("must be in [1, %d]", MaxPerQuery))
	}
	if c.TimeZone == "" {
		report.Add("time_zone", `""`, "must name an IANA time zone, e.g. UTC")
	} else if _, err := time.LoadLocation(c.TimeZone); err != nil {
		report.Add("time_zone", fmt.Sprintf("%q", c.TimeZone), "must name an IANA time zone, e.g. UTC")
	}
	switch c.QueryCount {
	case QueryCountDay, QueryCountTotal:
	default:
		report.Add("query_count", fmt.Sprintf("%q", c.QueryCount), "must be day or total")
	}
	report.Add("max_ads_per_advertiser", c.MaxAdsPerAdvertiser, bounds.Limit(c.MaxAdsPerAdvertiser, 1, maxAdsPerAdvertiser))
	report.Add("max_phrases_per_ad", c.MaxPhrasesPerAd, bounds.Limit(c.MaxPhrasesPerAd, 1, maxPhrasesPerAd))
	// Amounts are micros (Money): a configured bound finer than that
	// would be rounded where UnitsIn refuses the same amount in a request.
	micros := func(key string, v float64) {
		if v >= Micro.Units() && v <= MaxMoneyUnits && !wholeMicros(v) {
			report.Add(key, v, "must have at most 6 decimals (whole micros)")
		}
	}
	micros("min_bid", c.MinBid)
	micros("max_bid", c.MaxBid)
	micros("max_daily_budget", c.MaxDailyBudget)
	if c.MinBid < 1e-6 {
		report.Add("min_bid", c.MinBid, "must be >= 0.000001 (one micro)")
	}
	if c.MaxBid < c.MinBid || c.MaxBid > MaxMoneyUnits {
		report.Add("max_bid", c.MaxBid, fmt.Sprintf("must be in [ads.min_bid, %g]", MaxMoneyUnits))
	}
	if c.MaxDailyBudget < 1e-6 || c.MaxDailyBudget > MaxMoneyUnits {
		report.Add("max_daily_budget", c.MaxDailyBudget, fmt.Sprintf("must be in [0.000001, %g]", MaxMoneyUnits))
	}
	if c.Secret != "" && len(c.Secret) < 32 {
		report.Add("secret", fmt.Sprintf("(%d bytes)", len(c.Secret)), "must be empty or at least 32 bytes")
	}
	if c.ClickTTL < time.Minute {
		report.Add("click_ttl", c.ClickTTL, "must be >= 1m")
	}
	if c.RecentClicks < 1 || c.RecentClicks > maxRecentClicks {
		report.Add("recent_clicks", c.RecentClicks, fmt.Sprintf("must be in [1, %d]: the ids are held in memory", maxRecentClicks))
	}
	if c.FlushInterval < time.Second {
		report.Add("flush_interval", c.FlushInterval, "must be >= 1s")
	}
	report.Add("max_request_bytes", c.MaxRequestBytes, bounds.Limit(c.MaxRequestBytes, 1024, maxRequestBytes))
	return report.Err()
}

// Values of Config.QueryCount.
const (
	QueryCountDay   = "day"
	QueryCountTotal = "total"
)

// MaxPerQuery is the largest C accepted anywhere; a results page has room
// for few ads, and Select's cost grows with C.
const MaxPerQuery = 32
