package crawler

import (
	"context"
	"errors"
	"maps"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// fetcher performs HTTP requests through Colly. Colly does the request and
// response cycle; deltaq decides what and when to fetch, so Colly's own
// robots handling, limit rules, revisit store and redirect following are
// all switched off. Each request runs on a clone of one base collector,
// carrying its own context so a cancelled crawl stops it.
type fetcher struct {
	base    *colly.Collector
	maxBody int // bytes read at most
	types   map[string]bool
	// robots marks the robots.txt fetcher: it follows redirects, takes any
	// content type, and cuts a longer body to maxBody rather than refusing it.
	robots bool
	clock  clock.Clock // times each request (response.took)
}

// response is what one request came to.
type response struct {
	url         string
	status      int
	header      http.Header
	body        []byte
	contentType string // media type and charset of body as handed to parsers
	took        time.Duration
	outcome     repo.Outcome
	err         error // the cause of a network-level outcome, for logs
}

// newTransport builds the one HTTP transport of a crawl.
func newTransport(cfg Config, d *dialer) http.RoundTripper {
	return keepCompressed{&http.Transport{
		Proxy:                  nil, // never an environment proxy: the crawl goes where the config says
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    cfg.Timeouts.TLSHandshake,
		ResponseHeaderTimeout:  cfg.Timeouts.ResponseHeader,
		IdleConnTimeout:        cfg.Timeouts.Idle,
		MaxIdleConns:           4 * cfg.Politeness.Global,
		MaxIdleConnsPerHost:    idlePerHost(cfg.Politeness),
		MaxResponseHeaderBytes: 1 << 20,
		ForceAttemptHTTP2:      true,
	}}
}

// idlePerHost is how many idle keep-alive connections the transport keeps
// per host: as many as any host may have requests in flight, its override
// included, but never more than the crawl has in flight at all. A pool
// smaller than a host's parallelism closes a connection after nearly every
// request and dials a new one for the next (a tldr-en crawl with per_host
// 8 by override opened 3,186 connections for 6,155 fetches).
func idlePerHost(p PolitenessConfig) int {
	n := p.PerHost
	for _, o := range p.Overrides {
		n = max(n, o.PerHost)
	}
	return max(2, min(n, p.Global))
}

// maxRobotsRedirects is how many redirects a robots.txt fetch follows
// (RFC 9309 §2.3.1.2 asks for at least five).
const maxRobotsRedirects = 5

func newFetcher(cfg Config, transport http.RoundTripper, clk clock.Clock, robots bool) *fetcher {
	client := &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeouts.Request,
		// Page redirects are not followed inside a fetch: the target is a
		// new URL with its own robots check, politeness slot and record.
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if robots && len(via) <= maxRobotsRedirects {
				return nil
			}
			return http.ErrUseLastResponse
		},
	}
	c := colly.NewCollector(
		colly.UserAgent(cfg.UserAgent),
		colly.AllowURLRevisit(),
		colly.IgnoreRobotsTxt(),
		colly.ParseHTTPErrorResponse(),
	)
	c.SetClient(client)
	types := make(map[string]bool, len(cfg.ContentTypes))
	for _, t := range cfg.ContentTypes {
		types[strings.ToLower(t)] = true
	}
	f := &fetcher{base: c, maxBody: cfg.Limits.MaxBodyBytes, types: types, robots: robots, clock: clk}
	if robots {
		f.maxBody = cfg.Robots.MaxBytes
	}
	return f
}

// keepCompressed marks every response as already decompressed, so Colly
// never gunzips a body itself: Go's transport already decodes gzip it asked
// for (and Colly's read limit then bounds the decoded size), while a raw
// .xml.gz sitemap stays compressed for crawler/sitemap, which decompresses
// through its own limit. Without this a small gzip bomb named *.xml.gz would
// expand without bound inside Colly.
type keepCompressed struct{ rt http.RoundTripper }

func (k keepCompressed) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := k.rt.RoundTrip(r)
	if res != nil {
		res.Uncompressed = true
	}
	return res, err
}

// fetch GETs url with the given extra headers.
func (f *fetcher) fetch(ctx context.Context, url string, hdr http.Header) response {
	res := response{url: url}
	start := f.clock.Now()
	c := f.base.Clone()
	c.Context = ctx
	// One byte over the limit tells a body at the limit from a larger one:
	// Colly truncates silently, deltaq records too_large.
	c.MaxBodySize = f.maxBody + 1
	var rejected repo.Outcome
	c.OnResponseHeaders(func(r *colly.Response) {
		if f.robots || r.StatusCode < 200 || r.StatusCode >= 300 {
			return
		}
		if !f.accepts(r.Headers.Get("Content-Type")) {
			rejected = repo.OutcomeBadContentType
			r.Request.Abort()
			return
		}
		if n, err := strconv.ParseInt(r.Headers.Get("Content-Length"), 10, 64); err == nil && n > int64(f.maxBody) {
			rejected = repo.OutcomeTooLarge
			r.Request.Abort()
		}
	})
	var got *colly.Response
	c.OnResponse(func(r *colly.Response) { got = r })
	h := http.Header{"Accept": {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}}
	maps.Copy(h, hdr)
	err := c.Request(http.MethodGet, url, nil, nil, h)
	res.took = f.clock.Now().Sub(start)
	switch {
	case rejected != 0:
		res.outcome = rejected
		return res
	case err != nil && got == nil:
		res.err = err
		res.outcome = classify(ctx, err)
		return res
	case got == nil:
		res.err = errors.New("no response")
		res.outcome = repo.OutcomeNetworkError
		return res
	}
	res.status = got.StatusCode
	res.header = *got.Headers
	res.body = got.Body
	res.contentType = decodedContentType(res.header.Get("Content-Type"))
	res.outcome = statusOutcome(res.status)
	if len(res.body) > f.maxBody {
		if f.robots {
			res.body = res.body[:f.maxBody] // RFC 9309 §2.5: parse the first 500 KiB
		} else if res.outcome == repo.OutcomeOK {
			res.outcome = repo.OutcomeTooLarge
			res.body = nil
		}
	}
	return res
}

// accepts reports whether a Content-Type is one crawler.content_types
// lists. A missing Content-Type is sniffed as HTML by the parsers.
func (f *fetcher) accepts(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return f.types[mt]
}

func statusOutcome(status int) repo.Outcome {
	switch {
	case status >= 200 && status < 300:
		return repo.OutcomeOK
	case status == http.StatusNotModified:
		return repo.OutcomeNotModified
	case status == http.StatusNotFound || status == http.StatusGone:
		return repo.OutcomeGone
	case status == http.StatusMovedPermanently, status == http.StatusFound, status == http.StatusSeeOther,
		status == http.StatusTemporaryRedirect, status == http.StatusPermanentRedirect:
		return repo.OutcomeRedirect
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		return repo.OutcomeThrottled
	default:
		return repo.OutcomeHTTPError
	}
}

// classify maps a transport error to an outcome.
func classify(ctx context.Context, err error) repo.Outcome {
	var ne net.Error
	switch {
	case errors.Is(err, ErrRefusedAddress):
		return repo.OutcomeRefused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return repo.OutcomeTimeout
	case ctx.Err() != nil:
		return repo.OutcomeTimeout
	default:
		return repo.OutcomeNetworkError
	}
}

// decodedContentType is the Content-Type of a body after Colly: Colly
// converts a body whose header declares a charset other than UTF-8 into
// UTF-8, so the parsers must be told it is UTF-8 now, or they would decode
// it a second time.
func decodedContentType(ct string) string {
	lc := strings.ToLower(ct)
	if !strings.Contains(lc, "charset") || strings.Contains(lc, "utf-8") || strings.Contains(lc, "utf8") {
		return ct
	}
	for _, binary := range []string{"image/", "video/", "audio/", "font/"} {
		if strings.Contains(lc, binary) {
			return ct
		}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "text/html; charset=utf-8"
	}
	return mt + "; charset=utf-8"
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// RetryAfter exports retryAfter for the other clients that must honour a
// 429's Retry-After (relation sources).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) { return retryAfter(h, now) }
