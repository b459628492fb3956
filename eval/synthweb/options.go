package synthweb

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// configPrefix is where Config lives in configs/default.yaml; validation
// messages name keys under it so a user can find the line to fix.
const configPrefix = "web.synth"

// Config holds the settings of the synthetic web. Every duration is in model
// time: the web's clock runs TimeScale model seconds per wall second, so a
// NewArticleInterval of 1h with TimeScale 60 produces a new article about
// every wall minute. Defaults live in configs/default.yaml only.
type Config struct {
	// Seed selects the web: the same seed at the same time serves the same
	// bytes.
	Seed int64 `mapstructure:"seed"`
	// Sites is the number of sites, served as site0.synth.test … site<Sites-1>.synth.test.
	Sites int `mapstructure:"sites"`
	// PagesPerSite is the number of articles each site already holds at
	// Start (its initial repository, X at the first period, §3.2).
	PagesPerSite int `mapstructure:"pages_per_site"`
	// Sections is the number of section hubs per site (at most 12).
	Sections int `mapstructure:"sections"`
	// PageSize is the number of articles listed per hub or tag page.
	PageSize int `mapstructure:"page_size"`
	// FeedSize is the number of articles in a site's RSS or Atom feed.
	FeedSize int `mapstructure:"feed_size"`
	// TimeScale is model seconds per wall second (1 = real time).
	TimeScale float64 `mapstructure:"time_scale"`
	// FastChangeInterval is 1/λ_max, the mean change interval of the fastest
	// articles; rates are capped there (§4.7, Poisson change model).
	FastChangeInterval time.Duration `mapstructure:"fast_change_interval"`
	// SlowChangeInterval is 1/λ_min, the mean change interval of the slowest
	// and most common articles.
	SlowChangeInterval time.Duration `mapstructure:"slow_change_interval"`
	// ChangeRateShape is α of the Pareto law of λ: P(λ > x·λ_min) = x^(-α).
	// Small α means a heavier tail of fast-changing pages.
	ChangeRateShape float64 `mapstructure:"change_rate_shape"`
	// MajorChangeFraction is the probability that a change rewrites
	// paragraphs and topic words rather than only the date line, ad and
	// related box.
	MajorChangeFraction float64 `mapstructure:"major_change_fraction"`
	// NewArticleInterval is the mean time between new articles on one site
	// (a Poisson arrival process, the new pages Y_t of §3.2).
	NewArticleInterval time.Duration `mapstructure:"new_article_interval"`
	// ChainFraction is the probability that a new article is linked only from
	// the article published just before it, not from hubs, feeds or the
	// sitemap (a chain x → y1 → y2, §3.2).
	ChainFraction float64 `mapstructure:"chain_fraction"`
	// DeleteFraction is the probability that an article is deleted some day.
	DeleteFraction float64 `mapstructure:"delete_fraction"`
	// MeanLifetime is the mean time from publication to deletion of the
	// articles that are deleted.
	MeanLifetime time.Duration `mapstructure:"mean_lifetime"`
	// CrawlDelay, when positive, is written as Crawl-delay (whole seconds,
	// rounded up) into site0's robots.txt. Wall time, not model time.
	CrawlDelay time.Duration `mapstructure:"crawl_delay"`
	// Adversarial adds the trap hosts (trap.synth.test and its robots
	// variants) and links site0 to them.
	Adversarial bool `mapstructure:"adversarial"`
}

// Options is Config plus what configuration cannot carry.
type Options struct {
	Config
	// Start is wall time at model time zero: the initial articles were
	// published before it, arrivals and changes after it follow the clock.
	// Zero means Now() at New.
	Start time.Time
	// Now is the clock read on every request. Nil means time.Now.
	Now func() time.Time
	// Logger receives per-request Debug lines; nil discards.
	Logger *slog.Logger
}

// Limits that keep a Web's per-request work and memory bounded.
const (
	maxSites        = 10000
	maxPagesPerSite = 1_000_000
	maxSections     = len(sectionNames)
	maxPageSize     = 1000
	maxTimeScale    = 1e7
	maxShape        = 10
	minInterval     = time.Second
)

// Validate reports every problem with c at once, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport(configPrefix + ".")
	report.Add("sites", c.Sites, bounds.Within(c.Sites, 1, maxSites))
	report.Add("pages_per_site", c.PagesPerSite, bounds.Within(c.PagesPerSite, 1, maxPagesPerSite))
	report.Add("sections", c.Sections, bounds.Within(c.Sections, 1, maxSections))
	report.Add("page_size", c.PageSize, bounds.Within(c.PageSize, 1, maxPageSize))
	report.Add("feed_size", c.FeedSize, bounds.Within(c.FeedSize, 1, maxPageSize))
	if !(c.TimeScale > 0 && c.TimeScale <= maxTimeScale) {
		report.Add("time_scale", c.TimeScale, fmt.Sprintf("must be in (0, %g]", float64(maxTimeScale)))
	}
	// Floors of one model second keep the number of buckets and event
	// windows a request walks proportional to elapsed model seconds.
	if c.FastChangeInterval < minInterval {
		report.Add("fast_change_interval", c.FastChangeInterval, "must be >= 1s")
	}
	if c.SlowChangeInterval < c.FastChangeInterval || c.SlowChangeInterval <= 0 {
		report.Add("slow_change_interval", c.SlowChangeInterval,
			fmt.Sprintf("must be > 0 and >= fast_change_interval (%v)", c.FastChangeInterval))
	}
	if !(c.ChangeRateShape > 0 && c.ChangeRateShape <= maxShape) {
		report.Add("change_rate_shape", c.ChangeRateShape, fmt.Sprintf("must be in (0, %d]", maxShape))
	}
	if !(c.MajorChangeFraction >= 0 && c.MajorChangeFraction <= 1) {
		report.Add("major_change_fraction", c.MajorChangeFraction, "must be in [0, 1]")
	}
	if c.NewArticleInterval < minInterval {
		report.Add("new_article_interval", c.NewArticleInterval, "must be >= 1s")
	}
	if !(c.ChainFraction >= 0 && c.ChainFraction < 1) {
		report.Add("chain_fraction", c.ChainFraction, "must be in [0, 1)")
	}
	if !(c.DeleteFraction >= 0 && c.DeleteFraction <= 1) {
		report.Add("delete_fraction", c.DeleteFraction, "must be in [0, 1]")
	}
	if c.MeanLifetime <= 0 {
		report.Add("mean_lifetime", c.MeanLifetime, "must be > 0")
	}
	if c.CrawlDelay < 0 {
		report.Add("crawl_delay", c.CrawlDelay, "must be >= 0")
	}
	return report.Err()
}
