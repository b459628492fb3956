package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/relation"
	"github.com/deltaq/deltaq/watch"
)

// Deps are what the server serves.
type Deps struct {
	Search Searcher
	Pages  Pages
	// Explain computes a page's recrawl estimate for the page report; nil
	// leaves it out.
	Explain ExplainFunc
	// Registry receives the server's metrics and is served on /metrics;
	// nil means a fresh registry.
	Registry *prometheus.Registry
	Logger   *slog.Logger
	// Signer and Clicks serve result clicks on ranking.RedirectPath; nil
	// Signer leaves the route out.
	Signer *ranking.Signer
	Clicks ClickRecorder
	// Ads serves ad clicks on ads.ClickPath and the advertiser API under
	// /api/v1/ads/; nil leaves both out.
	Ads *ads.Store
	// Relations serves /api/v1/relations, its {name}/rows and /changes with
	// RelationConfig's limits and time unit; nil leaves them out. Clock
	// tells the time for staleness (nil: the wall clock).
	Relations      *relation.Store
	RelationConfig relation.Config
	Clock          clock.Clock
	// Feeds serves the aggregator's feeds, items and river (feedsapi.go);
	// nil leaves them out.
	Feeds FeedStore
	// Watches serves /api/v1/watches (and the Atom feeds from Outbox),
	// and on the admin listener /api/v1/keys; Alerts /api/v1/alerts. A nil
	// Watches leaves all of them out.
	Watches *watch.Engine
	Alerts  *alert.Matcher
	Outbox  *notify.Outbox
	// Backup serves POST /api/v1/backup, Seed POST /api/v1/seeds, on the
	// admin listener; nil, or no admin listener, leaves them out.
	Backup BackupFunc
	Seed   SeedFunc
}

// Server is the HTTP front of the search engine. It serves the public
// routes itself (ServeHTTP); the operator's routes (/metrics, the page
// report and the explain view) are served by Admin when
// server.admin.listen is set, and by the public handler otherwise.
type Server struct {
	cfg     Config
	deps    Deps
	public  *http.ServeMux
	admin   *http.ServeMux // nil: no admin listener
	logger  *slog.Logger
	latency *prometheus.HistogramVec
	clicks  http.Handler // result-click redirect; nil without a Signer
	adClick http.Handler // nil without ads
	adsAPI  *adsAPI      // nil without ads

	relationsAPI *relationsAPI // nil without relations
	watchAPI     *watchAPI     // nil without watches

	jsonBufs sync.Pool // *[]byte: search answers being encoded
}

// New builds the handlers.
func New(cfg Config, deps Deps) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Search == nil || deps.Pages == nil {
		return nil, errors.New("web: Search and Pages are required")
	}
	s := &Server{cfg: cfg, deps: deps, logger: deps.Logger}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With("component", "web")
	if s.deps.Registry == nil {
		s.deps.Registry = prometheus.NewRegistry()
	}
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "deltaq", Subsystem: "search", Name: "request_duration_seconds",
		Help:    "Time to answer a search request, by route and status code.",
		Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
	}, []string{"route", "code"})
	if err := s.deps.Registry.Register(s.latency); err != nil {
		return nil, fmt.Errorf("web: metrics: %w", err)
	}
	if deps.Signer != nil {
		if deps.Clicks == nil {
			return nil, errors.New("web: Signer without Clicks")
		}
		s.clicks = NewRedirectHandler(deps.Signer, deps.Clicks, s.logger)
	}
	if deps.Ads != nil {
		s.adClick = adClickHandler(deps.Ads, s.logger)
		s.adsAPI = &adsAPI{store: deps.Ads, maxBody: deps.Ads.Config().MaxRequestBytes, logger: s.logger}
	}
	if deps.Relations != nil {
		if err := deps.RelationConfig.Validate(); err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		c := deps.Clock
		if c == nil {
			c = clock.Real{}
		}
		s.relationsAPI = &relationsAPI{store: deps.Relations, cfg: deps.RelationConfig, clock: c}
	}
	if deps.Watches != nil {
		if deps.Outbox == nil {
			return nil, errors.New("web: Watches without Outbox")
		}
		s.watchAPI = &watchAPI{watches: deps.Watches, alerts: deps.Alerts, feeds: deps.Outbox, maxBody: deps.Watches.Config().MaxRequestBytes, logger: s.logger, render: s.render}
	}
	adminOn := cfg.Admin.Listen != ""
	s.public = s.routes(!adminOn)
	if adminOn {
		s.admin = s.routes(true)
		if deps.Feeds != nil {
			s.feedsAdminRoutes(s.admin)
		}
		if deps.Backup != nil {
			s.backupRoutes(s.admin)
		}
		if deps.Seed != nil {
			s.seedRoutes(s.admin)
		}
		if s.watchAPI != nil {
			s.watchAPI.keyRoutes(s.admin)
		}
	}
	return s, nil
}

// routes builds one listener's mux: the public routes, and with operator
// the metrics, the page report and the explain view (and explain links on
// the search page).
func (s *Server) routes(operator bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.timed("page", headersOnly(s.htmlHandler(operator))))
	mux.HandleFunc("GET /api/v1/search", s.timed("api", headersOnly(s.handleSearch)))
	mux.HandleFunc("GET /opensearch.xml", s.handleOpenSearch)
	mux.HandleFunc("GET /healthz", s.handleHealthz)
	if s.clicks != nil {
		mux.Handle("GET "+ranking.RedirectPath, s.clicks)
	}
	if s.adsAPI != nil {
		mux.Handle(ads.ClickPath, s.adClick)
		s.adsAPI.routes(mux)
	}
	if s.relationsAPI != nil {
		s.relationsAPI.routes(mux)
	}
	if s.deps.Feeds != nil {
		s.feedsRoutes(mux)
	}
	if s.watchAPI != nil {
		s.watchAPI.routes(mux)
	}
	if operator {
		mux.Handle("GET /metrics", promhttp.HandlerFor(s.deps.Registry, promhttp.HandlerOpts{}))
		mux.HandleFunc("GET /api/v1/page", s.handlePage)
		mux.HandleFunc("GET /explain", s.handleExplain)
	}
	return mux
}

// IndexHealth is a Searcher that can tell that its index is damaged
// (Engine is one, for index.Index): /healthz then answers 503, and so does
// a search that fails for it, both with the reason and the way out.
type IndexHealth interface {
	// Damaged returns the damage found, nil while none is known.
	Damaged() error
	// CheckFailure is told of a failed search and returns the damage if
	// that is why it failed, nil if not.
	CheckFailure(err error) error
}

// handleHealthz answers "ok", or 503 naming the damage once a search has
// found the index damaged (IndexHealth): a load balancer then takes the
// server out, where it used to keep sending it searches that all failed.
// It reads an atomic; it does not read the index.
func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if h, ok := s.deps.Search.(IndexHealth); ok {
		if err := h.Damaged(); err != nil {
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, err)
			return
		}
	}
	fmt.Fprintln(w, "ok")
}

// damaged returns the index's damage if that is why a search failed
// with err (IndexHealth), nil otherwise.
func (s *Server) damaged(err error) error {
	if _, ok := asInputError(err); ok {
		return nil
	}
	if h, ok := s.deps.Search.(IndexHealth); ok {
		return h.CheckFailure(err)
	}
	return nil
}

// ServeHTTP serves the public listener.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(s.public, w, r) }

// Admin returns the handler of the admin listener (server.admin.listen):
// every public route plus the operator's. It is nil when the admin
// listener is off and the public handler serves the operator's routes.
func (s *Server) Admin() http.Handler {
	if s.admin == nil {
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(s.admin, w, r) })
}

func (s *Server) serve(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	var q url.Values
	if isAPI(r) {
		var ie *InputError
		if q, ie = queryValues(r); ie != nil {
			writeInputError(w, ie)
			return
		}
	}
	h, pattern := mux.Handler(r)
	if s.noRoute(h, pattern, w, r) {
		return
	}
	if isAPI(r) {
		if ie := unknownParam(pattern, r, q); ie != nil {
			writeInputError(w, ie)
			return
		}
	}
	mux.ServeHTTP(w, r)
}

// queryValues parses r's query string, or answers bad input when it does
// not parse. URL.Query drops what does not parse: ?q=%zz would read as a
// missing query, ?size=5;x as the default size. The API and the search
// page refuse it; the signed links (/r, /c) judge their own.
//
// A GET's values are kept in r.Form, which holds exactly them for a GET
// (ParseForm leaves a set Form alone), so serve's check of every API
// request and the handler behind it parse the query string once. A Form
// beside a PostForm was set by ParseForm, which keeps what parsed of a
// malformed query string; it is parsed again, to be refused.
func queryValues(r *http.Request) (url.Values, *InputError) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	if get && r.Form != nil && r.PostForm == nil {
		return r.Form, nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, &InputError{Field: "query string", Value: r.URL.RawQuery, Message: err.Error() + ": escape % as %25 and separate parameters with &"}
	}
	if get {
		r.Form = q
	}
	return q, nil
}

// statusWriter remembers the status code for metrics.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// headersOnly answers a HEAD request with the headers h sets and no
// body. A search answers HEAD without searching (Server.search), so the
// body h renders is not its GET's, and a Content-Length sent with a HEAD
// must be the GET's (RFC 9110 §8.6): none is sent.
func headersOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w = &bodyless{ResponseWriter: w}
		}
		h(w, r)
	}
}

// bodyless drops the body written to it and the Content-Length set for
// it; net/http measures none for a HEAD whose handler wrote nothing.
type bodyless struct {
	http.ResponseWriter
	wroteHeader bool
}

func (w *bodyless) WriteHeader(code int) {
	if !w.wroteHeader {
		w.wroteHeader = true
		w.Header().Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *bodyless) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return len(p), nil
}

func (s *Server) timed(route string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h(sw, r)
		s.latency.WithLabelValues(route, strconv.Itoa(sw.code)).Observe(time.Since(start).Seconds())
	}
}

// parseSearch validates the search parameters q of r (queryValues)
// against the limits.
func (s *Server) parseSearch(r *http.Request, q url.Values) (Request, *InputError) {
	req := Request{Query: queryText(q.Get("q")), Page: 1, Size: s.cfg.DefaultSize}
	if ie := givenOnce(q, "q", "page", "size"); ie != nil {
		return req, ie
	}
	if n := len(q.Get("q")); n > s.cfg.MaxQueryBytes {
		return req, &InputError{Field: "q", Value: fmt.Sprintf("%d bytes", n), Limit: fmt.Sprintf("<= %d bytes", s.cfg.MaxQueryBytes),
			Message: fmt.Sprintf("%d bytes: longer than the %d-byte limit", n, s.cfg.MaxQueryBytes)}
	}
	if n := len(req.Query); n > s.cfg.MaxQueryBytes {
		// Within the limit as sent, over it once each byte that is not
		// UTF-8 reads as U+FFFD (three bytes): say so, or the length
		// named would not be the one sent.
		return req, &InputError{Field: "q", Value: fmt.Sprintf("%d bytes as sent, %d as read", len(q.Get("q")), n), Limit: fmt.Sprintf("<= %d bytes", s.cfg.MaxQueryBytes),
			Message: fmt.Sprintf("%d bytes once its bytes that are not UTF-8 read as U+FFFD (3 bytes each): longer than the %d-byte limit", n, s.cfg.MaxQueryBytes)}
	}
	if req.Query == "" {
		return req, &InputError{Code: CodeMissingParameter, Field: "q", Message: "missing: give a query"}
	}
	var ie *InputError
	if req.Size, ie = wholeParam(q, "size", s.cfg.DefaultSize, 1, s.cfg.MaxSize, ""); ie != nil {
		return req, ie
	}
	// Pages go as deep as the ranking orders results, and no deeper: the
	// deepest page depends on the size.
	deepest := (s.cfg.Candidates + req.Size - 1) / req.Size
	if req.Page, ie = wholeParam(q, "page", 1, 1, deepest, fmt.Sprintf("ranking.candidates = %d at size %d", s.cfg.Candidates, req.Size)); ie != nil {
		return req, ie
	}
	if u, ok := UserFromRequest(r); ok {
		req.User = u
	}
	return req, nil
}

// givenOnce checks that none of the parameters is repeated.
func givenOnce(q url.Values, params ...string) *InputError {
	for _, p := range params {
		if vs := q[p]; len(vs) > 1 {
			return &InputError{Field: p, Value: strings.Join(vs, ", "), Limit: "once",
				Message: fmt.Sprintf("given %d times: give it once", len(vs))}
		}
	}
	return nil
}

// wholeParam reads the whole-number parameter field of q (checked given
// once by the caller), def when it is absent. A value that is not a whole
// number in [lo, hi] is an error naming the range and, when setting is
// not empty, the configuration key it comes from.
func wholeParam(q url.Values, field string, def, lo, hi int, setting string) (int, *InputError) {
	v := q.Get(field)
	if v == "" {
		return def, nil
	}
	limit := fmt.Sprintf("in [%d, %d]", lo, hi)
	if setting != "" {
		limit += " (" + setting + ")"
	}
	n, err := strconv.Atoi(v)
	if errors.Is(err, strconv.ErrRange) { // a whole number, far out of range
		return 0, &InputError{Field: field, Value: v, Limit: limit, Message: fmt.Sprintf("%s is outside [%d, %d]", v, lo, hi)}
	}
	if err != nil {
		return 0, &InputError{Field: field, Value: v, Limit: "a whole number " + limit, Message: fmt.Sprintf("%q is not a whole number", v)}
	}
	if n < lo || n > hi {
		return 0, &InputError{Field: field, Value: v, Limit: limit, Message: fmt.Sprintf("%d is outside [%d, %d]", n, lo, hi)}
	}
	return n, nil
}

// queryText is the q parameter as the engine and the pages see it: bytes
// that are not UTF-8 become U+FFFD, so a UTF-8 document never echoes them.
func queryText(q string) string {
	return strings.TrimSpace(strings.ToValidUTF8(q, "\uFFFD"))
}

func (s *Server) search(r *http.Request, req Request) (res Response, err error) {
	defer func() {
		// A segment overwritten while the index serves can make Bleve
		// read out of bounds: the request fails (and damaged tells why)
		// rather than the connection being dropped.
		if p := recover(); p != nil {
			s.logger.Error("search panicked", "query", req.Query, "panic", p, "stack", string(debug.Stack()))
			res, err = Response{}, fmt.Errorf("web: search failed: %v", p)
		}
	}()
	if r.Method == http.MethodHead {
		// HEAD asks for the headers alone: no search runs, so no ad
		// counts an impression and no query joins the workload. The
		// query is checked, for the status its GET would get.
		if err := s.deps.Search.Check(req); err != nil {
			return Response{}, err
		}
		return Response{Query: req.Query, Page: req.Page, Size: req.Size, Results: []Result{}}, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.SearchTimeout)
	defer cancel()
	start := time.Now()
	res, err = s.deps.Search.Search(ctx, req)
	if err != nil {
		return res, err
	}
	if res.Took == 0 {
		res.Took = time.Since(start)
	}
	res.TookMS = float64(res.Took.Microseconds()) / 1000
	res.Query, res.Page, res.Size = req.Query, req.Page, req.Size
	if res.Results == nil {
		res.Results = []Result{}
	}
	for i := range res.Results {
		if r := &res.Results[i]; r.Highlights == nil && req.Fields.Wants(snippetFields) {
			r.SnippetText, r.Highlights, r.MatchedTerms = highlights(r.Snippet)
		}
	}
	return res, nil
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q, ie := queryValues(r)
	if ie != nil {
		writeInputError(w, ie)
		return
	}
	req, ie := s.parseSearch(r, q)
	if ie == nil { // the API's alone: the HTML page shows what it shows
		req.Fields, ie = parseResultFields(q)
	}
	if ie != nil {
		writeInputError(w, ie)
		return
	}
	res, err := s.search(r, req)
	if err != nil {
		if d := s.damaged(err); d != nil {
			s.logger.Error("search failed: the index is damaged", "url", r.URL.String(), "err", err)
			writeError(w, http.StatusServiceUnavailable, apiError{Code: CodeIndexDamaged, Message: d.Error()})
			return
		}
		s.fail(w, r, err)
		return
	}
	s.writeSearchJSON(w, &res, req.Fields)
}

// writeSearchJSON answers a search with fields of each result:
// Response.appendJSON's bytes, which are encoding/json's, into a pooled
// buffer.
func (s *Server) writeSearchJSON(w http.ResponseWriter, res *Response, fields ResultFields) {
	buf, _ := s.jsonBufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	defer s.jsonBufs.Put(buf)
	b, ok := res.appendJSON((*buf)[:0], fields)
	*buf = b
	if !ok {
		// A value encoding/json refuses, in a field written.
		writeJSON(w, http.StatusOK, res)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// fail answers a failed request: 400 for bad input, 504 for a timeout,
// 500 (logged) otherwise.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if ie, ok := asInputError(err); ok {
		writeInputError(w, ie)
		return
	}
	if errors.Is(err, context.DeadlineExceeded) {
		writeError(w, http.StatusGatewayTimeout, apiError{Code: CodeTimeout, Limit: s.cfg.SearchTimeout.String(),
			Message: "the request took longer than server.search_timeout"})
		return
	}
	s.logger.Error("request failed", "url", r.URL.String(), "err", err)
	writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Message: "internal error"})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		// A value encoding/json refuses (NaN, ±Inf): written as it
		// went, the answer would be a status over an empty body.
		writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Message: "the answer could not be written as JSON: " + err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}
