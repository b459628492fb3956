package crawler

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/crawler/shingle"
	"github.com/deltaq/deltaq/crawler/sitemap"
	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/internal/hostport"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// Config holds the crawler's settings; the defaults live in
// configs/default.yaml under the key "crawler".
type Config struct {
	UserAgent    string           `mapstructure:"user_agent"`
	Resolve      []string         `mapstructure:"resolve"`
	AllowPrivate bool             `mapstructure:"allow_private"`
	Scope        string           `mapstructure:"scope"`
	Include      []string         `mapstructure:"include"`
	Exclude      []string         `mapstructure:"exclude"`
	ContentTypes []string         `mapstructure:"content_types"`
	Sitemaps     bool             `mapstructure:"sitemaps"`
	Robots       RobotsConfig     `mapstructure:"robots"`
	Politeness   PolitenessConfig `mapstructure:"politeness"`
	Limits       LimitsConfig     `mapstructure:"limits"`
	Timeouts     TimeoutsConfig   `mapstructure:"timeouts"`
	Extract      extract.Limits   `mapstructure:"extract"`
	Sitemap      sitemap.Limits   `mapstructure:"sitemap"`
	Shingle      shingle.Options  `mapstructure:"shingle"`
}

// Crawl scopes (crawler.scope).
const (
	// ScopeSeedHosts admits only URLs on the hosts of the seeds.
	ScopeSeedHosts = "seed_hosts"
	// ScopeAll admits any URL.
	ScopeAll = "all"
)

// RobotsConfig says how robots.txt is obeyed and cached.
type RobotsConfig struct {
	Obey       bool          `mapstructure:"obey"`
	CacheTTL   time.Duration `mapstructure:"cache_ttl"`
	MaxBytes   int           `mapstructure:"max_bytes"`
	ErrorDefer time.Duration `mapstructure:"error_defer"`
	// StaleFor is how long after a refresh first finds robots.txt
	// unreachable the rules fetched before stay in use (RFC 9309 §2.4);
	// 0 defers the host at the first failed refresh.
	StaleFor    time.Duration `mapstructure:"stale_for"`
	MaxCapacity int           `mapstructure:"cache_entries"`
}

// PolitenessConfig bounds how hard any one host, and the crawl as a whole,
// is hit.
type PolitenessConfig struct {
	MinDelay       time.Duration  `mapstructure:"min_delay"`
	PerHost        int            `mapstructure:"per_host"`
	Global         int            `mapstructure:"global"`
	BackoffInitial time.Duration  `mapstructure:"backoff_initial"`
	BackoffMax     time.Duration  `mapstructure:"backoff_max"`
	Overrides      []HostOverride `mapstructure:"overrides"`
}

// HostOverride replaces the politeness settings for one host, for example
// a loopback test web that may be fetched without delay. Loaded from a
// configuration, a key it leaves out keeps PolitenessConfig's value.
type HostOverride struct {
	Host     string        `mapstructure:"host"`
	MinDelay time.Duration `mapstructure:"min_delay"`
	PerHost  int           `mapstructure:"per_host"`
}

// LimitsConfig protects the crawler from traps and hostile servers.
type LimitsConfig struct {
	MaxBodyBytes    int `mapstructure:"max_body_bytes"`
	MaxRedirects    int `mapstructure:"max_redirects"`
	MaxURLLength    int `mapstructure:"max_url_length"`
	MaxPagesPerHost int `mapstructure:"max_pages_per_host"`
	MaxDepth        int `mapstructure:"max_depth"`
	MaxRetries      int `mapstructure:"max_retries"`
}

// TimeoutsConfig bounds each phase of a fetch.
type TimeoutsConfig struct {
	Request        time.Duration `mapstructure:"request"`
	Connect        time.Duration `mapstructure:"connect"`
	TLSHandshake   time.Duration `mapstructure:"tls_handshake"`
	ResponseHeader time.Duration `mapstructure:"response_header"`
	Idle           time.Duration `mapstructure:"idle"`
}

// Upper bounds of settings that size what is held in memory at once.
const (
	maxBodyBytesLimit = 1 << 30
	// MaxFetches bounds the requests in flight: across all hosts (a fetch
	// worker each), and so to any one host.
	MaxFetches = 4096
)

// Upper bounds of the other counts, far above any real use, so that none
// is taken as a limit to allocate, cache or loop up to.
const (
	// A robots.txt body is read whole, its buffer sized up front from a
	// declared length; robots.Parse reads only its first 500 KiB.
	maxRobotsBytes   = 64 << 20
	maxRobotsEntries = 1_000_000 // parsed rule sets held in memory
	// Rules a site has not been able to confirm for a year are its past
	// owner's, not its own.
	maxRobotsStale  = 365 * 24 * time.Hour
	maxRedirects    = 1000
	maxPagesPerHost = 1_000_000_000
	maxDepth        = 100_000
	maxRetries      = 1000 // each waits up to politeness.backoff_max
)

// Validate reports every problem in c, each naming its key.
func (c Config) Validate() error {
	report := bounds.NewReport("crawler.")
	if strings.TrimSpace(c.UserAgent) == "" {
		report.Add("user_agent", fmt.Sprintf("%q", c.UserAgent), "must not be empty")
	}
	for i, r := range c.Resolve {
		if _, _, err := ParseResolve(r); err != nil {
			report.Add(fmt.Sprintf("resolve[%d]", i), fmt.Sprintf("%q", r), err.Error())
		}
	}
	if c.Scope != ScopeSeedHosts && c.Scope != ScopeAll {
		report.Add("scope", fmt.Sprintf("%q", c.Scope), fmt.Sprintf("must be %q or %q", ScopeSeedHosts, ScopeAll))
	}
	for key, rules := range map[string][]string{"include": c.Include, "exclude": c.Exclude} {
		for i, r := range rules {
			if _, err := regexp.Compile(r); err != nil {
				report.Add(fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("%q", r), "must be a Go regular expression (RE2): "+strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			}
		}
	}
	if len(c.ContentTypes) == 0 {
		report.Add("content_types", "[]", "must list at least one media type")
	}
	c.Robots.validate(report)
	c.Politeness.validate(report)
	c.robotsOutlastTheWait(report)
	c.Limits.validate(report)
	t := c.Timeouts
	report.Add("timeouts.request", t.Request, bounds.AboveZero(t.Request))
	report.Add("timeouts.connect", t.Connect, bounds.AboveZero(t.Connect))
	report.Add("timeouts.tls_handshake", t.TLSHandshake, bounds.AboveZero(t.TLSHandshake))
	report.Add("timeouts.response_header", t.ResponseHeader, bounds.AboveZero(t.ResponseHeader))
	report.Add("timeouts.idle", t.Idle, bounds.AboveZero(t.Idle))
	// The parser packages name their keys relative to their own section.
	for _, err := range []error{c.Extract.Validate(), c.Sitemap.Validate(), c.Shingle.Validate()} {
		report.Include(prefixed("crawler.", err)...)
	}
	return report.Err()
}

// minRobotsTTL is the shortest crawler.robots.cache_ttl: rules must last
// until the job that fetched them is fetched itself (robotsOutlastTheWait).
const minRobotsTTL = time.Minute

// robotsOutlastTheWait refuses rules that expire before the job that
// fetched them comes back: that job waits one politeness interval after
// the robots.txt request, and if the rules are stale by then it fetches
// robots.txt again, and again, and never its page. The interval is
// min_delay, or a longer override's; twice it leaves room for the queue.
func (c Config) robotsOutlastTheWait(report *bounds.Report) {
	ttl, longest := c.Robots.CacheTTL, c.Politeness.MinDelay
	for _, o := range c.Politeness.Overrides {
		longest = max(longest, o.MinDelay)
	}
	switch {
	case ttl <= 0: // refused by RobotsConfig.validate
	case ttl < minRobotsTTL:
		report.Add("robots.cache_ttl", ttl, fmt.Sprintf("must be >= %v", minRobotsTTL))
	case ttl <= 2*longest:
		report.Add("robots.cache_ttl", ttl, fmt.Sprintf("must be more than twice the longest politeness min_delay (%v): a page waits that long after its host's robots.txt is fetched, and would find it stale", longest))
	}
}

// validate adds r's problems to report, under robots.
func (r RobotsConfig) validate(report *bounds.Report) {
	report.Add("robots.cache_ttl", r.CacheTTL, bounds.AboveZero(r.CacheTTL))
	report.Add("robots.max_bytes", r.MaxBytes, bounds.Limit(r.MaxBytes, 1024, maxRobotsBytes))
	report.Add("robots.error_defer", r.ErrorDefer, bounds.AboveZero(r.ErrorDefer))
	report.Add("robots.stale_for", r.StaleFor, bounds.Limit(r.StaleFor, 0, maxRobotsStale))
	report.Add("robots.cache_entries", r.MaxCapacity, bounds.Limit(r.MaxCapacity, 1, maxRobotsEntries))
}

// validate adds p's problems to report, under politeness.
func (p PolitenessConfig) validate(report *bounds.Report) {
	if p.MinDelay < 0 {
		report.Add("politeness.min_delay", p.MinDelay, "must be >= 0")
	}
	report.Add("politeness.per_host", p.PerHost, bounds.Limit(p.PerHost, 1, MaxFetches))
	if p.Global < 1 || p.Global > MaxFetches {
		report.Add("politeness.global", p.Global, fmt.Sprintf("must be in [1, %d]: a fetch worker each", MaxFetches))
	}
	report.Add("politeness.backoff_initial", p.BackoffInitial, bounds.AboveZero(p.BackoffInitial))
	if p.BackoffMax < p.BackoffInitial {
		report.Add("politeness.backoff_max", p.BackoffMax, "must be >= politeness.backoff_initial")
	}
	for i, o := range p.Overrides {
		if o.Host == "" {
			report.Add(fmt.Sprintf("politeness.overrides[%d].host", i), `""`, "must name a host")
		}
		if o.MinDelay < 0 {
			report.Add(fmt.Sprintf("politeness.overrides[%d].min_delay", i), o.MinDelay, "must be >= 0")
		}
		report.Add(fmt.Sprintf("politeness.overrides[%d].per_host", i), o.PerHost, bounds.Limit(o.PerHost, 1, MaxFetches))
	}
}

// validate adds l's problems to report, under limits.
func (l LimitsConfig) validate(report *bounds.Report) {
	if l.MaxBodyBytes <= 0 {
		report.Add("limits.max_body_bytes", l.MaxBodyBytes, "must be > 0")
	}
	if l.MaxBodyBytes > maxBodyBytesLimit {
		report.Add("limits.max_body_bytes", l.MaxBodyBytes, fmt.Sprintf("must be <= %d (1 GiB): a body is held in memory whole", maxBodyBytesLimit))
	}
	if l.MaxURLLength <= 0 {
		report.Add("limits.max_url_length", l.MaxURLLength, "must be > 0")
	}
	if l.MaxURLLength > urlnorm.MaxLength {
		report.Add("limits.max_url_length", l.MaxURLLength, fmt.Sprintf("must be <= %d, the longest URL the repository normalizes", urlnorm.MaxLength))
	}
	report.Add("limits.max_pages_per_host", l.MaxPagesPerHost, bounds.Positive(l.MaxPagesPerHost, maxPagesPerHost))
	report.Add("limits.max_redirects", l.MaxRedirects, bounds.Limit(l.MaxRedirects, 0, maxRedirects))
	report.Add("limits.max_depth", l.MaxDepth, bounds.Limit(l.MaxDepth, 0, maxDepth))
	report.Add("limits.max_retries", l.MaxRetries, bounds.Limit(l.MaxRetries, 0, maxRetries))
}

// ParseResolve splits a HOST=ADDR mapping, as given to --resolve, into the
// host name (lower-cased, without port) and a dialable host:port address.
func ParseResolve(s string) (host, addr string, err error) {
	h, a, ok := strings.Cut(s, "=")
	h = strings.ToLower(strings.TrimSpace(h))
	a = strings.TrimSpace(a)
	if !ok || h == "" || a == "" {
		return "", "", errors.New("want HOST=ADDR, e.g. tldr-en.test=127.0.0.1:8081")
	}
	if strings.ContainsAny(h, "/: ") {
		return "", "", errors.New("HOST must be a bare host name without port or path")
	}
	if _, _, err := hostport.Split(a); err != nil {
		return "", "", fmt.Errorf("ADDR must be %s: %w", hostport.Rule, err)
	}
	return h, a, nil
}

// prefixed returns the problems in err (one per joined error) with prefix
// put before each, so "extract.max_links = 0" reads "crawler.extract.max_links = 0".
func prefixed(prefix string, err error) []error {
	if err == nil {
		return nil
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, len(list))
	for i, e := range list {
		out[i] = fmt.Errorf("%s%w", prefix, e)
	}
	return out
}
