package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// fetcher performs HTTP requests with net/http: one GET per call, its
// own context, a read limit, and nothing else. Deciding what and when to
// fetch, robots.txt and redirects belong to the crawler and the frontier
// (see doc.go for why this is not Colly any more).
type fetcher struct {
	client    *http.Client
	userAgent string
	maxBody   int    // bytes read at most
	limitKey  string // the setting maxBody comes from, for errors
	types     map[string]bool
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
	return &http.Transport{
		Proxy:                  nil, // never an environment proxy: the crawl goes where the config says
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    cfg.Timeouts.TLSHandshake,
		ResponseHeaderTimeout:  cfg.Timeouts.ResponseHeader,
		IdleConnTimeout:        cfg.Timeouts.Idle,
		MaxIdleConns:           4 * cfg.Politeness.Global,
		MaxIdleConnsPerHost:    idlePerHost(cfg.Politeness),
		MaxResponseHeaderBytes: 1 << 20,
		ForceAttemptHTTP2:      true,
	}
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
	types := make(map[string]bool, len(cfg.ContentTypes))
	for _, t := range cfg.ContentTypes {
		types[strings.ToLower(t)] = true
	}
	f := &fetcher{client: client, userAgent: cfg.UserAgent, maxBody: cfg.Limits.MaxBodyBytes, limitKey: "crawler.limits.max_body_bytes",
		types: types, robots: robots, clock: clk}
	if robots {
		f.maxBody, f.limitKey = cfg.Robots.MaxBytes, "crawler.robots.max_bytes"
	}
	return f
}

// accept is the Accept header of every request.
const accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// fetch GETs url with the given extra headers. The transport decodes a
// gzip transfer it asked for, the fetcher any other Content-Encoding it
// knows (encoding.go), and the read limit bounds both the body as sent
// and decoded; a body served as gzip without Content-Encoding (a .xml.gz
// sitemap) stays compressed for crawler/sitemap, which decompresses
// through its own limit.
func (f *fetcher) fetch(ctx context.Context, url string, hdr http.Header) response {
	return f.fetchAs(ctx, url, hdr, false)
}

// fetchAs is fetch; feed fetches a subscribed feed's URL as a feed reader
// does (feedAccepts).
func (f *fetcher) fetchAs(ctx context.Context, url string, hdr http.Header, feed bool) response {
	start := f.clock.Now()
	res := f.get(ctx, url, hdr, feed)
	res.took = f.clock.Now().Sub(start)
	return res
}

func (f *fetcher) get(ctx context.Context, url string, hdr http.Header, feed bool) response {
	res := response{url: url}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		res.err = err
		res.outcome = repo.OutcomeNetworkError
		return res
	}
	req.Header = make(http.Header, 2+len(hdr))
	maps.Copy(req.Header, hdr)
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", accept)
	r, err := f.client.Do(req)
	if err != nil {
		res.err = err
		res.outcome = classify(ctx, err)
		return res
	}
	defer r.Body.Close()
	res.status = r.StatusCode
	res.header = r.Header
	res.contentType = r.Header.Get("Content-Type")
	res.outcome = statusOutcome(res.status)
	// sniff: a feed's body of a type neither list takes is read, and kept
	// only if it looks like XML.
	sniff := false
	if !f.robots && res.outcome == repo.OutcomeOK {
		if !f.accepts(res.contentType) {
			switch {
			case feed && feedAccepts(res.contentType):
			case feed:
				sniff = true
			default:
				// Refused on its headers: the body is never read.
				res.outcome = repo.OutcomeBadContentType
				return res
			}
		}
		if r.ContentLength > int64(f.maxBody) {
			res.outcome = repo.OutcomeTooLarge
			res.err = f.overLimit("body")
			return res
		}
	}
	body, declared, encoding := io.Reader(r.Body), r.ContentLength, ""
	if res.outcome == repo.OutcomeOK {
		// Only a body that is kept is decoded; an error status's is not.
		if body, declared, encoding, err = f.decoding(r); err != nil {
			res.outcome, res.err = repo.OutcomeBadEncoding, err
			return res
		}
	}
	// One byte over the limit tells a body at the limit from a larger one.
	res.body, err = readBody(body, declared, f.maxBody+1)
	var over *limitError // sent larger than the limit: larger still decoded
	var bad *encodingError
	switch {
	case errors.As(err, &over):
	case errors.As(err, &bad):
		res.body, res.err, res.outcome = nil, err, repo.OutcomeBadEncoding
		return res
	case err != nil:
		res.body = nil
		res.err = err
		res.outcome = classify(ctx, err)
		return res
	}
	if len(res.body) > f.maxBody || over != nil {
		f.overflow(&res, over, encoding)
	}
	if sniff && res.outcome == repo.OutcomeOK && !sniffXML(res.body) {
		res.outcome = repo.OutcomeBadContentType
		res.body = nil
	}
	return res
}

// decoding returns r's body with the Content-Encoding the transport left
// undone, the length it declares (-1 once decoded: unknown) and the
// Content-Encoding; an error names a coding the fetcher cannot undo.
func (f *fetcher) decoding(r *http.Response) (io.Reader, int64, string, error) {
	encoding, codings, err := contentEncoding(r.Header)
	if err != nil || len(codings) == 0 {
		return r.Body, r.ContentLength, encoding, err
	}
	over := f.overLimit(fmt.Sprintf("body as sent with Content-Encoding %q", encoding))
	return newDecoder(r.Body, encoding, codings, f.maxBody+1, over), -1, encoding, nil
}

// overflow settles a body past the limit: robots.txt is cut to it (RFC
// 9309 §2.5: parse the first 500 KiB); a page's is too large, its error
// naming the limit and the body that passed it: as sent (over), or
// decoded from encoding.
func (f *fetcher) overflow(res *response, over *limitError, encoding string) {
	switch {
	case f.robots:
		res.body = res.body[:min(len(res.body), f.maxBody)]
	case res.outcome != repo.OutcomeOK:
	case over != nil:
		res.outcome, res.body, res.err = repo.OutcomeTooLarge, nil, over
	default:
		res.outcome, res.body, res.err = repo.OutcomeTooLarge, nil, f.overLimit(decodedBody(encoding))
	}
}

// overLimit is the error of a body over the fetcher's limit; what says
// which body.
func (f *fetcher) overLimit(what string) *limitError {
	return &limitError{what: what, key: f.limitKey, limit: f.maxBody}
}

// decodedBody names a body read with its Content-Encoding undone.
func decodedBody(encoding string) string {
	if encoding == "" {
		return "body"
	}
	return fmt.Sprintf("body decoded from Content-Encoding %q", encoding)
}

// readBody reads at most limit bytes of body, into one allocation when the
// server declared the length.
func readBody(body io.Reader, declared int64, limit int) ([]byte, error) {
	size := 512
	if declared >= 0 {
		size = int(min(declared+1, int64(limit))) // +1: see the end of the body without growing
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(body, int64(limit)))
	return buf.Bytes(), err
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

// feedTypes are the Content-Types a subscribed feed's URL is fetched with
// besides crawler.content_types: feeds are often served with a generic
// type (raw file hosting: text/plain, application/octet-stream) or a
// generic XML one, and a feed reader is judged by whether it reads the
// feed. Whether the body is a feed is the feed parser's to say.
var feedTypes = map[string]bool{
	"text/plain":               true,
	"application/octet-stream": true,
	"text/xml":                 true,
	"application/xml":          true,
}

// feedAccepts reports whether a feed served with Content-Type ct is read
// without looking at its body (feedTypes).
func feedAccepts(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && feedTypes[mt]
}

// sniffXML reports whether body looks like an XML document: after a
// byte-order mark and white space, an XML declaration, a comment, a
// doctype or an element. A subscribed feed's body served with a type
// neither crawler.content_types nor feedTypes lists is read only if it
// does, as are bodies served as text/plain or application/octet-stream
// when the crawler parses them.
func sniffXML(body []byte) bool {
	b := body[:min(len(body), 1024)]
	switch {
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")): // UTF-8 BOM
		b = b[3:]
	case bytes.HasPrefix(b, []byte("\xff\xfe")), bytes.HasPrefix(b, []byte("\xfe\xff")):
		// UTF-16: the first character after the BOM, one byte of each pair.
		b = utf16Bytes(b[2:], b[0] == 0xff)
	}
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) < 2 || b[0] != '<' {
		return false
	}
	c := b[1]
	if c == '?' || c == '!' {
		return bytes.HasPrefix(b, []byte("<?xml")) || bytes.HasPrefix(b, []byte("<!--")) || bytes.HasPrefix(b, []byte("<!DOCTYPE")) && !bytes.HasPrefix(bytes.ToLower(b), []byte("<!doctype html"))
	}
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	// An element: HTML is not XML for this purpose.
	return !bytes.HasPrefix(bytes.ToLower(b), []byte("<html"))
}

// utf16Bytes keeps the low byte of each UTF-16 code unit of b (little
// endian when le), enough to see ASCII markup.
func utf16Bytes(b []byte, le bool) []byte {
	out := make([]byte, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		lo, hi := b[i], b[i+1]
		if !le {
			lo, hi = hi, lo
		}
		if hi != 0 {
			out = append(out, '?')
			continue
		}
		out = append(out, lo)
	}
	return out
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

// maxRetryAfterSeconds is the longest Retry-After, in seconds, that a
// time.Duration holds.
const maxRetryAfterSeconds = math.MaxInt64 / int64(time.Second)

// retryAfter reads a Retry-After header, in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		// More seconds than a Duration holds is the longest wait there
		// is, not an overflow to a negative (or arbitrary) one.
		return time.Duration(min(s, maxRetryAfterSeconds)) * time.Second, true
	} else if errors.Is(err, strconv.ErrRange) && strings.Trim(strings.TrimPrefix(v, "+"), "0123456789") == "" {
		return time.Duration(maxRetryAfterSeconds) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// RetryAfter exports retryAfter for the other clients that must honour a
// 429's Retry-After (relation sources).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) { return retryAfter(h, now) }
