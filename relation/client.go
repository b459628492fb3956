package relation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/crawler/robots"
	"github.com/deltaq/deltaq/internal/clock"
)

// Errors a source can answer with; each is wrapped with the URL.
var (
	ErrDisallowed = errors.New("relation: robots.txt disallows the request")
	ErrThrottled  = errors.New("relation: the source keeps answering 429 Too Many Requests")
	ErrGarbage    = errors.New("relation: the source's answer is not a result or item page")
	ErrNotFound   = errors.New("relation: the source has no such item")
	// ErrUnavailable marks a failure of the source rather than of one
	// record: a network error or time-out, or a 5xx answer. Only these
	// count towards a sync's stop rule; a 429 stops it at once
	// (ErrThrottled).
	ErrUnavailable = errors.New("relation: the source did not answer")
)

// unavailable is err marked ErrUnavailable, its message unchanged.
type unavailable struct{ error }

func (u unavailable) Unwrap() []error { return []error{u.error, ErrUnavailable} }

// ClientOptions configure the requests to one source.
type ClientOptions struct {
	HTTP      *http.Client // nil: a client with Timeout
	Timeout   time.Duration
	UserAgent string
	MaxBytes  int64         // a larger body is an error, not truncated
	Retries   int           // 429 answers waited out before ErrThrottled
	Backoff   time.Duration // first wait after a 429 without Retry-After; doubles
	Clock     clock.Clock   // nil: the wall clock
	Logger    *slog.Logger
	// MaxBytesKey is the setting MaxBytes comes from, named when a body
	// exceeds it so the user knows what to raise; "" names none.
	MaxBytesKey string
}

// Record is one record as the source shows it.
type Record struct {
	ID     string            `json:"id"`
	Fields map[string]string `json:"fields"`
}

// Version is a digest of the record's fields: equal versions mean no
// change the relation can see.
func (r Record) Version() string {
	keys := make([]string, 0, len(r.Fields))
	for k := range r.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", k, r.Fields[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ResultPage is one page of a keyword query's results.
type ResultPage struct {
	Total int // the count the source reports; -1 when it reports none
	// NoTotal says why Total is -1 although the source has a --total
	// selector. A missing count is not garbage: the hits are read all the
	// same, and the query's server coverage stays estimated (§4.1).
	NoTotal  error
	Hits     []Record
	Requests int // requests spent, 429 retries included
}

// Client sends a relation's requests to its source: one at a time per
// source, spaced by the quota, allowed by robots.txt, backing off on 429.
type Client struct {
	src  *compiled
	opts ClientOptions
	http *http.Client
	clk  clock.Clock
	log  *slog.Logger

	mu struct {
		sync.Mutex
		next   time.Time              // earliest next request (quota)
		robots map[string]robotsRules // by scheme://host, one per source's few hosts
		// crawlDelay is the robots.txt Crawl-delay, a floor under the
		// quota's spacing.
		crawlDelay time.Duration
	}
}

// NewClient checks the source and returns its client.
func NewClient(src Source, opts ClientOptions) (*Client, error) {
	c, err := src.compile()
	if err != nil {
		return nil, err
	}
	if opts.MaxBytes <= 0 {
		return nil, fmt.Errorf("relation: max body bytes = %d: must be > 0", opts.MaxBytes)
	}
	if opts.Retries < 0 || opts.Backoff < 0 {
		return nil, fmt.Errorf("relation: retries = %d, backoff = %v: must be >= 0", opts.Retries, opts.Backoff)
	}
	cl := &Client{src: c, opts: opts, clk: opts.Clock, log: opts.Logger}
	hc := http.Client{Timeout: opts.Timeout}
	if opts.HTTP != nil {
		hc = *opts.HTTP
	}
	// Every hop of a redirect is a request to the source like the first:
	// robots.txt and the quota apply to it.
	hc.CheckRedirect = cl.checkRedirect
	cl.http = &hc
	if cl.clk == nil {
		cl.clk = clock.Real{}
	}
	if cl.log == nil {
		cl.log = slog.New(slog.DiscardHandler)
	}
	cl.mu.robots = map[string]robotsRules{}
	return cl, nil
}

// Interface returns p and K.
func (cl *Client) Interface() Interface {
	return Interface{PageSize: cl.src.PageSize, MaxResults: cl.src.MaxResults}
}

// Search fetches page (1-based) of the keyword query's results.
func (cl *Client) Search(ctx context.Context, keywords []string, page int) (ResultPage, error) {
	u := cl.src.searchURL(keywords, page)
	body, _, n, err := cl.get(ctx, u)
	res := ResultPage{Total: -1, Requests: n}
	if err != nil {
		return res, err
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		return res, fmt.Errorf("%w: %s: %w", ErrGarbage, u, err)
	}
	if cl.src.total != nil {
		v, ok := cl.src.total.value(doc.Selection, nil)
		total, perr := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(v, ",", "")))
		if ok && perr == nil && total >= 0 {
			res.Total = total
		} else {
			res.NoTotal = fmt.Errorf("relation: %s: no count at --total %s (found %q), so |R_S(q)| is estimated from the local relation; "+
				"a source that reports none takes --total ''", u, cl.src.total, v)
		}
	}
	var perr error
	doc.FindMatcher(cl.src.hit.css).EachWithBreak(func(i int, hit *goquery.Selection) bool {
		id, ok := cl.src.id.value(hit, nil)
		if !ok || id == "" {
			perr = fmt.Errorf("%w: %s: hit %d has no id at %s", ErrGarbage, u, i+1, cl.src.id)
			return false
		}
		res.Hits = append(res.Hits, Record{ID: id, Fields: cl.fields(hit, nil, true)})
		return true
	})
	if perr != nil {
		return res, perr
	}
	if len(res.Hits) > cl.src.PageSize {
		return res, fmt.Errorf("%w: %s: %d hits on one page, the page size is %d", ErrGarbage, u, len(res.Hits), cl.src.PageSize)
	}
	if res.Total > 0 && len(res.Hits) == 0 && page == 1 {
		return res, fmt.Errorf("%w: %s: reports %d results but no element matches the hit selector %q", ErrGarbage, u, res.Total, cl.src.Hit)
	}
	return res, nil
}

// Item fetches one record by ID.
func (cl *Client) Item(ctx context.Context, id string) (Record, int, error) {
	if cl.src.Item == "" {
		return Record{}, 0, errors.New("relation: the source has no --item template to fetch by ID")
	}
	u, err := cl.src.ItemURL(id)
	if err != nil {
		return Record{}, 0, fmt.Errorf("relation: %w", err)
	}
	body, header, n, err := cl.get(ctx, u)
	if err != nil {
		return Record{}, n, err
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		return Record{}, n, fmt.Errorf("%w: %s: %w", ErrGarbage, u, err)
	}
	fields := cl.fields(doc.Selection, header.Get, false)
	if len(fields) == 0 {
		return Record{}, n, fmt.Errorf("%w: %s: none of the %d fields' selectors matches", ErrGarbage, u, len(cl.src.fields))
	}
	return Record{ID: id, Fields: fields}, n, nil
}

func (cl *Client) fields(sel *goquery.Selection, header func(string) string, hit bool) map[string]string {
	out := map[string]string{}
	for _, f := range cl.src.fields {
		s := f.Item
		if hit {
			s = f.Hit
		}
		if v, ok := s.value(sel, header); ok {
			out[f.Name] = v
		}
	}
	return out
}

// maxRetryWait is the longest Retry-After a request waits out; a source
// asking for longer ends the request with ErrThrottled (the crawler
// bounds it the same way, by crawler.politeness.backoff_max).
const maxRetryWait = time.Hour

// get sends one GET under the quota and robots.txt, retrying 429s, and
// returns an HTML body read through the size limit.
func (cl *Client) get(ctx context.Context, rawURL string) ([]byte, http.Header, int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("relation: URL %q: %w", rawURL, err)
	}
	requests := 0
	rules, n, err := cl.robotsFor(ctx, u)
	requests += n
	if err != nil {
		return nil, nil, requests, err
	}
	if !rules.g.Allowed(u.RequestURI()) {
		return nil, nil, requests, fmt.Errorf("%w: %s%s", ErrDisallowed, rawURL, rules.why)
	}
	backoff := cl.opts.Backoff
	for attempt := 0; ; attempt++ {
		resp, err := cl.do(ctx, rawURL)
		requests++
		if err != nil {
			return nil, nil, requests, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			resp.Body.Close()
			wait, given := crawler.RetryAfter(resp.Header, cl.clk.Now())
			if !given {
				wait = backoff
				backoff *= 2
			}
			if attempt >= cl.opts.Retries {
				return nil, nil, requests, fmt.Errorf("%w: %s after %d retries", ErrThrottled, rawURL, attempt)
			}
			if wait > maxRetryWait {
				// Waiting it out would hold the sync (and relation sync,
				// or serve's sync loop) for as long as the source says.
				return nil, nil, requests, fmt.Errorf("%w: %s asks to wait %v (Retry-After %q), more than %v", ErrThrottled, rawURL, wait, resp.Header.Get("Retry-After"), maxRetryWait)
			}
			cl.log.Info("source throttles; backing off", "url", rawURL, "took", wait)
			cl.defer_(wait)
			continue
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
			return nil, nil, requests, fmt.Errorf("%w: %s (%d)", ErrNotFound, rawURL, resp.StatusCode)
		case resp.StatusCode >= 500:
			return nil, nil, requests, unavailable{fmt.Errorf("relation: %s: status %d", rawURL, resp.StatusCode)}
		case resp.StatusCode != http.StatusOK:
			return nil, nil, requests, fmt.Errorf("relation: %s: status %d", rawURL, resp.StatusCode)
		}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/html" && mt != "application/xhtml+xml" {
			return nil, nil, requests, fmt.Errorf("%w: %s: Content-Type %q, want text/html", ErrGarbage, rawURL, resp.Header.Get("Content-Type"))
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, cl.opts.MaxBytes+1))
		if err != nil {
			return nil, nil, requests, unavailable{fmt.Errorf("relation: %s: read body: %w", rawURL, err)}
		}
		if int64(len(body)) > cl.opts.MaxBytes {
			limit := fmt.Sprintf("the limit of %d bytes", cl.opts.MaxBytes)
			if cl.opts.MaxBytesKey != "" {
				limit = fmt.Sprintf("%s = %d bytes", cl.opts.MaxBytesKey, cl.opts.MaxBytes)
			}
			return nil, nil, requests, fmt.Errorf("%w: %s: body exceeds %s", ErrGarbage, rawURL, limit)
		}
		return body, resp.Header, requests, nil
	}
}

// maxRedirects is how many redirects one request follows (net/http's
// default).
const maxRedirects = 10

// checkRedirect lets a request follow a redirect to a URL robots.txt
// allows, after waiting for the quota.
func (cl *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("relation: stopped after %d redirects", maxRedirects)
	}
	if via[0].URL.Path == "/robots.txt" {
		return nil // robots.txt itself: followed (RFC 9309 §2.3.1.2), and robotsFor would ask for it again
	}
	rules, _, err := cl.robotsFor(req.Context(), req.URL)
	if err != nil {
		return err
	}
	if !rules.g.Allowed(req.URL.RequestURI()) {
		return fmt.Errorf("%w: %s, where %s redirects%s", ErrDisallowed, req.URL, via[0].URL, rules.why)
	}
	return cl.waitQuota(req.Context())
}

// do waits for the quota and sends the request.
func (cl *Client) do(ctx context.Context, rawURL string) (*http.Response, error) {
	if err := cl.waitQuota(ctx); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("relation: %s: %w", rawURL, err)
	}
	if cl.opts.UserAgent != "" {
		req.Header.Set("User-Agent", cl.opts.UserAgent)
	}
	resp, err := cl.http.Do(req)
	if errors.Is(err, ErrDisallowed) {
		return nil, err // a redirect robots.txt refuses: the record's, not the source's failure
	}
	if err != nil {
		return nil, unavailable{fmt.Errorf("relation: %s: %w", rawURL, err)}
	}
	return resp, nil
}

// waitQuota blocks until the next request is allowed: QuotaPeriod/Quota
// after the previous one.
func (cl *Client) waitQuota(ctx context.Context) error {
	cl.mu.Lock()
	now := cl.clk.Now()
	at := now
	if cl.mu.next.After(at) {
		at = cl.mu.next
	}
	gap := cl.mu.crawlDelay
	if cl.src.Quota > 0 {
		gap = max(gap, cl.src.QuotaPeriod/time.Duration(cl.src.Quota))
	}
	cl.mu.next = at.Add(gap)
	cl.mu.Unlock()
	if at.After(now) {
		return cl.clk.WaitUntil(ctx, at)
	}
	return ctx.Err()
}

// defer_ pushes the next allowed request at least wait into the future.
func (cl *Client) defer_(wait time.Duration) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if t := cl.clk.Now().Add(wait); t.After(cl.mu.next) {
		cl.mu.next = t
	}
}

// robotsRules are a host's robots.txt rules and, when the file could not
// be read, why (so a refusal says the site was unreachable, not that it
// disallows).
type robotsRules struct {
	g   *robots.Group
	why string
}

// robotsFor returns the robots.txt rules of u's host, fetched once.
// RFC 9309 §2.3.1: a 4xx allows everything, an unreachable or 5xx file
// disallows everything.
func (cl *Client) robotsFor(ctx context.Context, u *url.URL) (robotsRules, int, error) {
	origin := u.Scheme + "://" + u.Host
	cl.mu.Lock()
	rules, ok := cl.mu.robots[origin]
	cl.mu.Unlock()
	if ok {
		return rules, 0, nil
	}
	var r *robots.Robots
	resp, err := cl.do(ctx, origin+"/robots.txt")
	switch {
	case err != nil && ctx.Err() != nil:
		return rules, 1, err
	case errors.Is(err, crawler.ErrRefusedAddress):
		// The address guard, not the site: nothing was sent, and the
		// site's rules stay unknown until it is allowed.
		return rules, 0, err
	case err != nil:
		r = robots.DisallowAll()
		rules.why = fmt.Sprintf(" (robots.txt unreachable, which RFC 9309 reads as disallow all: %v)", err)
	default:
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, robots.MaxBytes))
		resp.Body.Close()
		switch {
		case rerr != nil || resp.StatusCode >= 500:
			r = robots.DisallowAll()
			rules.why = fmt.Sprintf(" (robots.txt answered %d, which RFC 9309 reads as disallow all)", resp.StatusCode)
		case resp.StatusCode >= 400:
			r = robots.AllowAll()
		default:
			r = robots.Parse(body)
		}
	}
	rules.g = r.Group(cl.opts.UserAgent)
	g := rules.g
	cl.mu.Lock()
	if d, ok := g.CrawlDelay(); ok {
		cl.mu.crawlDelay = max(cl.mu.crawlDelay, d)
	}
	cl.mu.robots[origin] = rules
	cl.mu.Unlock()
	return rules, 1, nil
}
