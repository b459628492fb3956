package repo

import (
	"fmt"
	"log/slog"
	"time"
)

// PageState is what the repository currently holds for a URL.
type PageState uint8

const (
	// StateQueued: known (linked, seeded or from a sitemap), never fetched.
	StateQueued PageState = iota
	// StateLive: the latest fetch returned content, stored as a version.
	StateLive
	// StateGone: the server said 404 or 410; the page leaves the index.
	StateGone
	// StateRedirect: the URL redirects elsewhere; RedirectTo says where.
	StateRedirect
	// StateFailed: never fetched successfully (errors, limits, robots).
	StateFailed
)

var pageStateNames = [...]string{"queued", "live", "gone", "redirect", "failed"}

func (s PageState) String() string {
	if int(s) < len(pageStateNames) {
		return pageStateNames[s]
	}
	return fmt.Sprintf("state(%d)", s)
}

// Outcome is what one fetch attempt came to. What the web says back is data
// (a 404, a robots exclusion, a body over the limit), recorded here, not an
// error of ours.
type Outcome uint8

const (
	OutcomeOK             Outcome = iota // 2xx with an accepted body
	OutcomeNotModified                   // 304 to a conditional GET
	OutcomeGone                          // 404 or 410
	OutcomeRedirect                      // 3xx not followed (limit, or cross-host)
	OutcomeHTTPError                     // any other 4xx or 5xx
	OutcomeThrottled                     // 429, or 503 with Retry-After
	OutcomeNetworkError                  // DNS, connect, reset
	OutcomeTimeout                       // a deadline passed
	OutcomeDisallowed                    // robots.txt says no
	OutcomeTooLarge                      // body over crawler.limits.max_body_bytes
	OutcomeBadContentType                // not a media type we accept
	OutcomeLimit                         // depth, URL length or pages-per-host limit
	OutcomeRefused                       // address guard: private or loopback address
	OutcomeBadEncoding                   // a Content-Encoding not undone: unknown, or a body that does not decode
	OutcomeNotText                       // a body sent as text that is none (a PDF, an image; extract.BinaryType)
	NumOutcomes           = iota
)

var outcomeNames = [...]string{
	"ok", "not_modified", "gone", "redirect", "http_error", "throttled",
	"network_error", "timeout", "disallowed", "too_large", "bad_content_type",
	"limit", "refused", "bad_encoding", "not_text",
}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Reason says why a URL was put in the frontier.
type Reason uint8

const (
	ReasonSeed      Reason = iota // given by the user
	ReasonLink                    // out-link of a fetched page
	ReasonSitemap                 // listed in a sitemap or feed
	ReasonRecrawl                 // chosen by the recrawl (synchronization) policy
	ReasonDiscovery               // re-fetched to discover new pages (thesis ch. 3)
	ReasonRetry                   // an earlier attempt failed transiently
	ReasonMonitor                 // polled for a monitoring demand (a feed, a watch; package monitor)
)

var reasonNames = [...]string{"seed", "link", "sitemap", "recrawl", "discovery", "retry", "monitor"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", r)
}

// IsFirstFetch reports whether the reason brings a URL in for the first time.
func (r Reason) IsFirstFetch() bool { return r == ReasonSeed || r == ReasonLink || r == ReasonSitemap }

// Page is the repository's record of one URL.
type Page struct {
	URL         string // normalized (internal/urlnorm)
	State       PageState
	LastOutcome Outcome
	HTTPStatus  int
	Depth       int    // link distance from a seed
	Source      string // the page whose link first brought this URL in; "" for seeds
	// Root is the old page whose re-fetch led to this URL through new pages
	// only: the x with this URL in N(x) (thesis §3.2). "" for seeds.
	Root       string
	FirstSeen  time.Time
	LastFetch  time.Time // LR(p, t) of thesis §4.7.1: the latest fetch attempt
	LastChange time.Time // the fetch that last found different content
	Fetches    int
	Changes    int
	// Validators for conditional GET.
	ETag         string
	LastModified string
	ContentType  string
	ContentHash  uint64 // hash of the raw body of the current version
	TextHash     uint64 // hash of the indexed text (title and main text) of the current version
	Signature    []byte // crawler/shingle signature of the current version
	Title        string
	NoIndex      bool
	NoFollow     bool
	RedirectTo   string
	Version      time.Time // fetch time of the current version; zero if none
	// Hops counts the consecutive redirects that led to this URL; it bounds
	// redirect chains (crawler.limits.max_redirects).
	Hops int
	// Failures counts consecutive failed attempts (network errors, 5xx,
	// throttling); it bounds retries (crawler.limits.max_retries).
	Failures int
	// SitemapLastMod is the newest <lastmod> a sitemap gave for the URL.
	SitemapLastMod time.Time
}

// Indexable reports whether the page belongs in the search index.
func (p *Page) Indexable() bool {
	return p.State == StateLive && !p.NoIndex && !p.Version.IsZero()
}

// Attempted reports whether the crawler ever recorded an attempt on the
// page. Only then does LastOutcome say anything: its zero value is
// OutcomeOK, which a page never fetched would otherwise claim. A robots.txt
// refusal is an attempt without a fetch; a loaded page (PutFetched) is
// live without a fetch count.
func (p *Page) Attempted() bool { return p.Fetches > 0 || p.State != StateQueued }

// LogValue renders a page compactly in logs.
func (p *Page) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("url", p.URL), slog.String("state", p.State.String())}
	if p.Attempted() {
		attrs = append(attrs, slog.String("outcome", p.LastOutcome.String()))
	}
	return slog.GroupValue(append(attrs, slog.Int("fetches", p.Fetches))...)
}

const pageFormat = 1

func (p *Page) encode() []byte {
	e := encoder{b: make([]byte, 0, 128+len(p.URL)+len(p.Title)+len(p.Signature))}
	e.byte(pageFormat)
	e.str(p.URL)
	e.byte(byte(p.State))
	e.byte(byte(p.LastOutcome))
	e.uvarint(uint64(p.HTTPStatus))
	e.uvarint(uint64(p.Depth))
	e.str(p.Source)
	e.str(p.Root)
	e.time(p.FirstSeen)
	e.time(p.LastFetch)
	e.time(p.LastChange)
	e.uvarint(uint64(p.Fetches))
	e.uvarint(uint64(p.Changes))
	e.str(p.ETag)
	e.str(p.LastModified)
	e.str(p.ContentType)
	e.uvarint(p.ContentHash)
	e.uvarint(p.TextHash)
	e.bytes(p.Signature)
	e.str(p.Title)
	e.bool(p.NoIndex)
	e.bool(p.NoFollow)
	e.str(p.RedirectTo)
	e.time(p.Version)
	e.uvarint(uint64(p.Hops))
	e.uvarint(uint64(p.Failures))
	e.time(p.SitemapLastMod)
	return e.b
}

func decodePage(b []byte) (Page, error) {
	d := decoder{b: b, what: "page"}
	d.version(pageFormat)
	var p Page
	p.URL = d.str()
	p.State = PageState(d.byte())
	p.LastOutcome = Outcome(d.byte())
	p.HTTPStatus = int(d.uvarint())
	p.Depth = int(d.uvarint())
	p.Source = d.str()
	p.Root = d.str()
	p.FirstSeen = d.time()
	p.LastFetch = d.time()
	p.LastChange = d.time()
	p.Fetches = int(d.uvarint())
	p.Changes = int(d.uvarint())
	p.ETag = d.str()
	p.LastModified = d.str()
	p.ContentType = d.str()
	p.ContentHash = d.uvarint()
	p.TextHash = d.uvarint()
	p.Signature = d.bytes()
	p.Title = d.str()
	p.NoIndex = d.bool()
	p.NoFollow = d.bool()
	p.RedirectTo = d.str()
	p.Version = d.time()
	p.Hops = int(d.uvarint())
	p.Failures = int(d.uvarint())
	p.SitemapLastMod = d.time()
	return p, d.err
}

// Version is one stored copy of a page. Body is the raw response body and
// Text the extracted main text the index is built from; both are stored
// compressed.
type Version struct {
	FetchedAt   time.Time
	ContentType string
	ContentHash uint64
	Signature   []byte
	Title       string
	Text        string
	Body        []byte
}

// FetchRecord is one line of a page's fetch history. Changed and Difference
// are what the synchronization baselines learn change rates from (§4.7.1).
type FetchRecord struct {
	At         time.Time
	Took       time.Duration
	Reason     Reason
	Outcome    Outcome
	HTTPStatus int
	Bytes      int
	Changed    bool    // content differs from the previous version
	Difference float64 // fraction of shingles that differ; -1 when there was nothing to compare
}

const fetchRecordFormat = 1

func (r *FetchRecord) encode() []byte {
	e := encoder{b: make([]byte, 0, 40)}
	e.byte(fetchRecordFormat)
	e.time(r.At)
	e.duration(r.Took)
	e.byte(byte(r.Reason))
	e.byte(byte(r.Outcome))
	e.uvarint(uint64(r.HTTPStatus))
	e.uvarint(uint64(r.Bytes))
	e.bool(r.Changed)
	e.f64(r.Difference)
	return e.b
}

func decodeFetchRecord(b []byte) (FetchRecord, error) {
	d := decoder{b: b, what: "fetch record"}
	d.version(fetchRecordFormat)
	var r FetchRecord
	r.At = d.time()
	r.Took = d.duration()
	r.Reason = Reason(d.byte())
	r.Outcome = Outcome(d.byte())
	r.HTTPStatus = int(d.uvarint())
	r.Bytes = int(d.uvarint())
	r.Changed = d.bool()
	r.Difference = d.f64()
	return r, d.err
}

// LinkKind says how a page refers to another.
type LinkKind uint8

const (
	LinkAnchor    LinkKind = iota // <a href>
	LinkCanonical                 // <link rel=canonical>
	LinkFeed                      // <link rel=alternate type=rss/atom>
	LinkRefresh                   // <meta http-equiv=refresh>
	LinkRedirect                  // an HTTP redirect
	LinkSitemap                   // a sitemap or feed entry
)

// Link is one out-link of a page.
type Link struct {
	URL  string
	Kind LinkKind
}

// HostState is what the crawler remembers about a host: its robots.txt and
// when it may next be fetched.
type HostState struct {
	Host          string
	RobotsStatus  int // HTTP status of the last robots.txt fetch; 0 = not fetched or network error
	RobotsBody    []byte
	RobotsFetched time.Time
	RobotsExpires time.Time
	NextFetch     time.Time // politeness: earliest time of the next request
	BackoffUntil  time.Time // throttled (429/503) until
	Backoffs      int       // consecutive throttled responses
	Pages         int       // URLs of this host in the repository
	// RobotsUnreachableSince is when a refresh of robots.txt first found
	// it unreachable while the rules fetched at RobotsFetched, kept in
	// RobotsStatus and RobotsBody, stay in use (RFC 9309 §2.4); zero
	// otherwise.
	RobotsUnreachableSince time.Time
	// RobotsRetryWait is how long the last failed robots.txt fetch put off
	// the next, which the next failure in a row doubles; zero after one
	// that succeeded.
	RobotsRetryWait time.Duration
}

// SetRobots sets h's robots.txt fields to st's, leaving its politeness,
// back-off and page count as they are. A robots.txt field added to
// HostState is copied here, in the one place that replaces them.
func (h *HostState) SetRobots(st *HostState) {
	h.RobotsStatus, h.RobotsBody, h.RobotsFetched, h.RobotsExpires = st.RobotsStatus, st.RobotsBody, st.RobotsFetched, st.RobotsExpires
	h.RobotsUnreachableSince, h.RobotsRetryWait = st.RobotsUnreachableSince, st.RobotsRetryWait
}

// hostFormat 3 adds RobotsRetryWait, and format 2 RobotsUnreachableSince;
// formats 1 and 2, without them, are still read.
const (
	hostFormat   = 3
	hostFormatV2 = 2
	hostFormatV1 = 1
)

func (h *HostState) encode() []byte {
	e := encoder{b: make([]byte, 0, 64+len(h.Host)+len(h.RobotsBody))}
	e.byte(hostFormat)
	e.str(h.Host)
	e.uvarint(uint64(h.RobotsStatus))
	e.bytes(h.RobotsBody)
	e.time(h.RobotsFetched)
	e.time(h.RobotsExpires)
	e.time(h.NextFetch)
	e.time(h.BackoffUntil)
	e.uvarint(uint64(h.Backoffs))
	e.uvarint(uint64(h.Pages))
	e.time(h.RobotsUnreachableSince)
	e.uvarint(uint64(max(h.RobotsRetryWait, 0)))
	return e.b
}

func decodeHost(b []byte) (HostState, error) {
	d := decoder{b: b, what: "host"}
	format := d.byte()
	if d.err == nil && (format < hostFormatV1 || format > hostFormat) {
		return HostState{}, fmt.Errorf("%w: host: format version %d, want %d to %d", ErrCorrupt, format, hostFormatV1, hostFormat)
	}
	var h HostState
	h.Host = d.str()
	h.RobotsStatus = int(d.uvarint())
	h.RobotsBody = d.bytes()
	h.RobotsFetched = d.time()
	h.RobotsExpires = d.time()
	h.NextFetch = d.time()
	h.BackoffUntil = d.time()
	h.Backoffs = int(d.uvarint())
	h.Pages = int(d.uvarint())
	if format >= hostFormatV2 {
		h.RobotsUnreachableSince = d.time()
	}
	if format >= hostFormat {
		h.RobotsRetryWait = time.Duration(d.uvarint())
	}
	return h, d.err
}

// QueueClass partitions the frontier by what a fetch is for, so that each
// class can have its own share of the fetch budget.
type QueueClass uint8

const (
	ClassNew       QueueClass = iota // first fetches: seeds, links, sitemap entries, retries
	ClassRecrawl                     // synchronization re-fetches (thesis ch. 4)
	ClassDiscovery                   // discovery re-fetches (thesis ch. 3)
	ClassMonitor                     // monitoring polls: feeds and watches, by WIC utility
	NumClasses     = iota
)

var classNames = [...]string{"new", "recrawl", "discovery", "monitor"}

func (c QueueClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", c)
}

// Class returns the queue class of a reason.
func (r Reason) Class() QueueClass {
	switch r {
	case ReasonRecrawl:
		return ClassRecrawl
	case ReasonDiscovery:
		return ClassDiscovery
	case ReasonMonitor:
		return ClassMonitor
	default:
		return ClassNew
	}
}

// QueueEntry is one URL waiting in the frontier. Depth and source live in
// the page record, so an entry stays small.
type QueueEntry struct {
	URL      string
	Reason   Reason
	Enqueued time.Time
}

const queueFormat = 1

func (q *QueueEntry) encode() []byte {
	e := encoder{b: make([]byte, 0, 16+len(q.URL))}
	e.byte(queueFormat)
	e.str(q.URL)
	e.byte(byte(q.Reason))
	e.time(q.Enqueued)
	return e.b
}

func decodeQueueEntry(b []byte) (QueueEntry, error) {
	d := decoder{b: b, what: "queue entry"}
	d.version(queueFormat)
	var q QueueEntry
	q.URL = d.str()
	q.Reason = Reason(d.byte())
	q.Enqueued = d.time()
	return q, d.err
}

// ChangeKind says what happened to a page in the change feed.
type ChangeKind uint8

const (
	ChangeUpsert ChangeKind = iota // new or changed content, or flags that affect indexing
	ChangeDelete                   // the page is gone or excluded
)

// Change is one entry of the feed the index follows (see DB.Changes).
type Change struct {
	Seq  uint64
	URL  string
	Kind ChangeKind
	At   time.Time
}

const changeFormat = 1

func (c *Change) encode() []byte {
	e := encoder{b: make([]byte, 0, 16+len(c.URL))}
	e.byte(changeFormat)
	e.str(c.URL)
	e.byte(byte(c.Kind))
	e.time(c.At)
	return e.b
}

func decodeChange(b []byte) (Change, error) {
	d := decoder{b: b, what: "change"}
	d.version(changeFormat)
	var c Change
	c.URL = d.str()
	c.Kind = ChangeKind(d.byte())
	c.At = d.time()
	return c, d.err
}

// StatKind names a family of per-page statistics under prefix 's'. Each
// kind has one writing package.
type StatKind byte

const (
	// StatDeltaQ: ΔQ_A(p, t) measured when a re-fetched page was re-indexed
	// (thesis §4.6); written by package index.
	StatDeltaQ StatKind = 'd'
	// StatDiscovery: the new pages a re-fetch of p led to, N(p) (thesis
	// §3.2); written by package crawler.
	StatDiscovery StatKind = 'n'
)

// DeltaQ is one ΔQ_A measurement of a page.
type DeltaQ struct {
	At        time.Time // t: when the new copy was indexed
	LastFetch time.Time // LR(p, t): the fetch of the copy it replaced
	Value     float64   // ΔQ_A(p, t)
	Terms     int       // |S|: workload terms affected
}

const deltaQFormat = 1

func (m *DeltaQ) encode() []byte {
	e := encoder{b: make([]byte, 0, 32)}
	e.byte(deltaQFormat)
	e.time(m.LastFetch)
	e.f64(m.Value)
	e.uvarint(uint64(m.Terms))
	return e.b
}

func decodeDeltaQ(at time.Time, b []byte) (DeltaQ, error) {
	d := decoder{b: b, what: "deltaq"}
	d.version(deltaQFormat)
	m := DeltaQ{At: at}
	m.LastFetch = d.time()
	m.Value = d.f64()
	m.Terms = int(d.uvarint())
	return m, d.err
}

// DiscoveryYield records what one fetch of an old page x led to: the new
// URLs it linked to, directly or through chains of new pages (N(x), §3.2).
type DiscoveryYield struct {
	At  time.Time
	New []string
}

const discoveryFormat = 1

func (y *DiscoveryYield) encode() []byte {
	e := encoder{}
	e.byte(discoveryFormat)
	e.uvarint(uint64(len(y.New)))
	for _, u := range y.New {
		e.str(u)
	}
	return e.b
}

func decodeDiscoveryYield(at time.Time, b []byte) (DiscoveryYield, error) {
	d := decoder{b: b, what: "discovery yield"}
	d.version(discoveryFormat)
	y := DiscoveryYield{At: at}
	n := d.uvarint()
	if n > uint64(len(b)) {
		return y, fmt.Errorf("%w: discovery yield count %d", ErrCorrupt, n)
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		y.New = append(y.New, d.str())
	}
	return y, d.err
}
