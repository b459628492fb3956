package crawler

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/deltaq/deltaq/crawler/robots"
	"github.com/deltaq/deltaq/repo"
)

// hostInfo is what a worker needs to know about a host before fetching
// from it. It is immutable once published; updates replace it.
type hostInfo struct {
	rules        *robots.Group // nil until robots.txt is known
	sitemaps     []string
	delay        time.Duration // Crawl-delay, 0 if none
	expires      time.Time     // robots.txt must be fetched again after this
	deferUntil   time.Time     // robots.txt answered 5xx or was unreachable
	refused      bool          // the address guard refused it (kept in memory only)
	backoffUntil time.Time     // throttled (429/503)
	backoffs     int
}

// hostCache holds hostInfo for at most crawler.robots.cache_entries hosts;
// a host evicted from it is read back from its repository record, where its
// robots.txt body is stored. The bound keeps memory flat however many hosts
// a crawl touches (unlike a robots map that grows for the whole crawl).
type hostCache struct {
	db        *repo.DB
	userAgent string
	capacity  int
	mu        struct {
		sync.RWMutex
		m map[string]*hostInfo
	}
}

func newHostCache(db *repo.DB, userAgent string, capacity int) *hostCache {
	c := &hostCache{db: db, userAgent: userAgent, capacity: capacity}
	c.mu.m = make(map[string]*hostInfo)
	return c
}

// peek returns the cached info of host without touching the repository;
// the politeness gate calls it under the frontier's lock.
func (c *hostCache) peek(host string) *hostInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mu.m[host]
}

// get returns the info of host, loading it from the repository on a miss.
// A host never seen has an empty info (robots unknown).
func (c *hostCache) get(host string) (*hostInfo, error) {
	if h := c.peek(host); h != nil {
		return h, nil
	}
	st, err := c.db.Host(host)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return nil, fmt.Errorf("crawler: host %s: %w", host, err)
	}
	h := c.fromState(&st)
	c.put(host, h)
	return h, nil
}

// fromState rebuilds hostInfo from a stored host record.
func (c *hostCache) fromState(st *repo.HostState) *hostInfo {
	h := &hostInfo{backoffUntil: st.BackoffUntil, backoffs: st.Backoffs}
	if st.RobotsFetched.IsZero() {
		return h
	}
	h.expires = st.RobotsExpires
	r := robotsFor(st.RobotsStatus, st.RobotsBody)
	if r == nil { // 5xx or unreachable: deferred until the record expires
		h.deferUntil = st.RobotsExpires
		return h
	}
	h.rules = r.Group(c.userAgent)
	h.sitemaps = r.Sitemaps()
	h.delay, _ = h.rules.CrawlDelay()
	return h
}

// robotsFor interprets a robots.txt fetch (RFC 9309 §2.3.1): 2xx is parsed;
// 4xx, and a 3xx left after the fetcher followed its five redirects, mean
// no restrictions; anything else (5xx, network error, status 0) means the
// host is unavailable for now (nil).
func robotsFor(status int, body []byte) *robots.Robots {
	switch {
	case !robotsKnown(status):
		return nil
	case status < 300:
		return robots.Parse(body)
	default:
		return robots.AllowAll()
	}
}

// robotsKnown reports whether a robots.txt status gives rules (2xx to
// 4xx), so callers that only need the distinction need not parse the body.
func robotsKnown(status int) bool {
	return status >= 200 && status < 500
}

// robotsDeferred counts the cached hosts a 5xx or unreachable robots.txt
// defers at now. Hosts evicted from the cache are not counted: the
// progress line that asks every tick must not scan the repository.
func (c *hostCache) robotsDeferred(now time.Time) robotsWait {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var w robotsWait
	for _, h := range c.mu.m {
		if now.Before(h.deferUntil) {
			w.hosts++
			if w.until.IsZero() || h.deferUntil.Before(w.until) {
				w.until = h.deferUntil
			}
		}
	}
	return w
}

func (c *hostCache) put(host string, h *hostInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.mu.m[host]; !ok && len(c.mu.m) >= c.capacity {
		for k := range c.mu.m { // evict an arbitrary host; it reloads from Pebble
			delete(c.mu.m, k)
			break
		}
	}
	c.mu.m[host] = h
}

// politeness is the frontier.Gate of a crawl: requests in flight per host
// and the least interval between starts, from crawler.politeness, its
// per-host overrides, and the host's Crawl-delay.
type politeness struct {
	cfg       PolitenessConfig
	overrides map[string]HostOverride
	hosts     *hostCache
}

func newPoliteness(cfg PolitenessConfig, hosts *hostCache) *politeness {
	p := &politeness{cfg: cfg, overrides: map[string]HostOverride{}, hosts: hosts}
	for _, o := range cfg.Overrides {
		p.overrides[o.Host] = o
	}
	return p
}

// override is the override for host (host[:port], as URLs name it): the
// one naming it with its port, else one naming its host name alone, which
// holds on every port (a test web's 127.0.0.1 whatever port it listens on).
func (p *politeness) override(host string) (HostOverride, bool) {
	if o, ok := p.overrides[host]; ok {
		return o, true
	}
	if name, _, err := net.SplitHostPort(host); err == nil {
		if o, ok := p.overrides[name]; ok {
			return o, true
		}
		o, ok := p.overrides["["+name+"]"] // an IPv6 address as a URL writes it
		return o, ok
	}
	return HostOverride{}, false
}

// Capacity implements frontier.Gate.
func (p *politeness) Capacity(host string) int {
	if o, ok := p.override(host); ok {
		return o.PerHost
	}
	return p.cfg.PerHost
}

// Interval implements frontier.Gate.
func (p *politeness) Interval(host string) time.Duration {
	d := p.cfg.MinDelay
	if o, ok := p.override(host); ok {
		d = o.MinDelay
	}
	if h := p.hosts.peek(host); h != nil && h.delay > d {
		d = h.delay
	}
	return d
}

// backoff returns how long a host must rest after its n-th consecutive
// throttled response: Retry-After when the server gave one, else
// crawler.politeness.backoff_initial doubled per repeat; never more than
// backoff_max.
func (p *politeness) backoff(n int, retryAfter time.Duration, given bool) time.Duration {
	if given {
		return min(max(retryAfter, p.cfg.MinDelay), p.cfg.BackoffMax)
	}
	d := p.cfg.BackoffInitial
	for i := 1; i < n && d < p.cfg.BackoffMax; i++ {
		d *= 2
	}
	return min(d, p.cfg.BackoffMax)
}
