package synthweb

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Web is the synthetic web. It is an http.Handler that serves every site by
// the request's Host header (the port is ignored), and it answers
// ground-truth questions about any instant. It is safe for concurrent use.
type Web struct {
	opts  Options
	log   *slog.Logger
	vocab *vocabulary
	sites []*site

	// Model-time constants, in model seconds (see Config).
	bucketLen  float64 // arrival bucket length
	arrivalGap float64 // spacing of the initial articles
	lifetime   float64
	rateMin    float64 // λ_min per model second
	rateMax    float64 // λ_max per model second
	epoch      float64 // publication of the first initial article

	disallowed atomic.Int64 // requests for robots-disallowed URLs

	bomb struct {
		once   sync.Once
		member []byte // one gzip member of bombMemberSize spaces
	}
	burst struct {
		mu     sync.Mutex
		second int64 // wall second of the current window
		n      int   // requests to /burst/ in it
	}
}

// New builds the web described by opts. It does no I/O; pages are computed
// on demand from (seed, time).
func New(opts Options) (*Web, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("synthweb: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Start.IsZero() {
		opts.Start = opts.Now()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Web{
		opts:       opts,
		log:        log.With("component", "synthweb"),
		vocab:      newVocabulary(),
		bucketLen:  arrivalsPerBucket * opts.NewArticleInterval.Seconds(),
		arrivalGap: opts.NewArticleInterval.Seconds(),
		lifetime:   opts.MeanLifetime.Seconds(),
		rateMin:    1 / opts.SlowChangeInterval.Seconds(),
		rateMax:    1 / opts.FastChangeInterval.Seconds(),
	}
	w.epoch = -float64(opts.PagesPerSite) * w.arrivalGap
	w.sites = make([]*site, opts.Sites)
	for i := range w.sites {
		w.sites[i] = newSite(w, i)
	}
	return w, nil
}

// model converts wall time to model seconds since Start.
func (w *Web) model(t time.Time) float64 {
	return t.Sub(w.opts.Start).Seconds() * w.opts.TimeScale
}

// wall converts model seconds to wall time.
func (w *Web) wall(m float64) time.Time {
	return w.opts.Start.Add(time.Duration(m / w.opts.TimeScale * float64(time.Second)))
}

// Hosts returns every host the web serves: the sites in order, then the
// trap hosts when Adversarial is set.
func (w *Web) Hosts() []string {
	hosts := make([]string, 0, len(w.sites)+3)
	for _, s := range w.sites {
		hosts = append(hosts, s.host)
	}
	if w.opts.Adversarial {
		hosts = append(hosts, trapHost, trapHugeRobotsHost, trapErrRobotsHost)
	}
	return hosts
}

// SeedURLs returns the home page of every site, the natural crawl seeds.
func (w *Web) SeedURLs() []string {
	urls := make([]string, len(w.sites))
	for i, s := range w.sites {
		urls[i] = "http://" + s.host + "/"
	}
	return urls
}

// DisallowedFetches counts requests for URLs a robots.txt-respecting
// crawler never fetches: anything under /private/, and any page of
// trap-robots-error.synth.test, whose robots.txt answers 500 (RFC 9309
// §2.3.1.4: assume complete disallow).
func (w *Web) DisallowedFetches() int64 { return w.disallowed.Load() }

// splitHost returns the lower-cased host name without port or trailing dot,
// and the port suffix (":8080" or "").
func splitHost(hostport string) (host, port string) {
	host = hostport
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, ":"+p
	}
	return strings.TrimSuffix(strings.ToLower(host), "."), port
}

// siteIndex maps siteN.synth.test to N.
func (w *Web) siteIndex(host string) (int, bool) {
	num, ok := strings.CutPrefix(host, "site")
	if !ok {
		return 0, false
	}
	num, ok = strings.CutSuffix(num, hostSuffix)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(num)
	if err != nil || strconv.Itoa(i) != num || i < 0 || i >= len(w.sites) {
		return 0, false
	}
	return i, true
}

// ServeHTTP serves the page for r's Host and path at the clock's time.
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := w.opts.Now()
	rw.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	host, port := splitHost(r.Host)
	if i, ok := w.siteIndex(host); ok {
		w.serveSite(rw, r, w.sites[i], port, now)
		return
	}
	if w.opts.Adversarial && w.serveTrap(rw, r, host, port, now) {
		return
	}
	w.log.Debug("unknown host", "host", host)
	http.Error(rw, "synthweb: no such host "+host, http.StatusNotFound)
}

func (w *Web) serveSite(rw http.ResponseWriter, r *http.Request, s *site, port string, now time.Time) {
	if strings.HasPrefix(r.URL.Path, privateDir) {
		w.disallowed.Add(1)
	}
	v := w.newView(s, w.model(now), port)
	d := v.route(r.URL.Path, r.URL.RawQuery)
	if d == nil {
		w.log.Debug("not found", "host", s.host, "url", r.URL.String())
		http.NotFound(rw, r)
		return
	}
	w.log.Debug("page", "host", s.host, "url", r.URL.String(), "kind", d.kind)
	serveDoc(rw, r, d, w.wall(d.lm))
}

// serveDoc writes d with its validators; http.ServeContent answers HEAD,
// If-None-Match / If-Modified-Since (304) and ranges.
func serveDoc(rw http.ResponseWriter, r *http.Request, d *doc, modified time.Time) {
	h := rw.Header()
	h.Set("Content-Type", d.ctype)
	h.Set("ETag", etag(d.b.Bytes()))
	http.ServeContent(rw, r, "", modified, bytes.NewReader(d.b.Bytes()))
}

// etag is a strong validator: a hash of the exact bytes, so equal bytes
// give equal tags and any change gives a new one.
func etag(body []byte) string {
	h := fnv.New64a()
	h.Write(body) //nolint:errcheck // hash.Hash never fails
	return fmt.Sprintf(`"%016x"`, h.Sum64())
}
