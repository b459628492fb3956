package replay

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
)

// ErrWeekRange is returned by SetWeek for a week outside [0, Weeks()).
var ErrWeekRange = errors.New("replay: week out of range")

// Server serves archives over HTTP, each on its own host, as they were in
// the current week. It is an http.Handler; all methods are safe for
// concurrent use.
type Server struct {
	sites   []*site
	weeks   int
	week    atomic.Int32 // the current week, read once per request
	latency time.Duration
	log     *slog.Logger

	// maxSitemapURLs is the number of URLs above which /sitemap.xml becomes
	// a sitemap index (the sitemaps.org limit); tests lower it.
	maxSitemapURLs int

	unknownHost atomic.Int64
}

// New returns a Server for the archives at week 0. Every archive must have
// a distinct name that is a DNS label (it is served on <name>.test) and
// the same number of weeks: week w is week w of every archive, whatever its
// dates.
func New(archives []*archive.Archive, opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(archives) == 0 {
		return nil, errors.New("replay: no archives to serve")
	}
	s := &Server{
		latency:        opts.Latency,
		log:            opts.Logger,
		maxSitemapURLs: sitemapLimit,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("component", "replay")
	names := map[string]bool{}  // lower case, for host uniqueness
	served := map[string]bool{} // as written, for RobotsExtra keys
	for i, a := range archives {
		if a == nil {
			return nil, fmt.Errorf("replay: archive %d is nil", i)
		}
		name := strings.ToLower(a.Name())
		if !isLabel(name) {
			return nil, fmt.Errorf("replay: archive name %q: must be a DNS label (letters, digits, inner hyphens, at most 63) to be served as <name>.test", a.Name())
		}
		if names[name] {
			return nil, fmt.Errorf("replay: archive name %q is served twice", a.Name())
		}
		names[name] = true
		served[a.Name()] = true
		if i == 0 {
			s.weeks = a.Weeks()
		} else if a.Weeks() != s.weeks {
			return nil, fmt.Errorf("replay: archive %q has %d weeks, %q has %d: all must have the same", a.Name(), a.Weeks(), archives[0].Name(), s.weeks)
		}
		st := newSite(a, opts.RobotsExtra[a.Name()])
		if opts.Search.Enabled {
			st.search = newSearcher(a, opts.Search)
		}
		s.sites = append(s.sites, st)
	}
	for name := range opts.RobotsExtra {
		if !served[name] {
			return nil, fmt.Errorf("replay: web.replay.robots_extra.%s: no archive named %q is served", name, name)
		}
	}
	s.log.Info("replay ready", "host", s.Hosts(), "week", 0, "n", s.weeks)
	return s, nil
}

// Hosts returns the host names served, in the order of the archives.
func (s *Server) Hosts() []string {
	hosts := make([]string, len(s.sites))
	for i, st := range s.sites {
		hosts[i] = st.host
	}
	return hosts
}

// Weeks returns the number of weeks; valid weeks are [0, Weeks()).
func (s *Server) Weeks() int { return s.weeks }

// Week returns the week being served.
func (s *Server) Week() int { return int(s.week.Load()) }

// SetWeek makes every archive serve week w from the next request on.
// Requests already being served finish with the week they started with.
func (s *Server) SetWeek(w int) error {
	if w < 0 || w >= s.weeks {
		return fmt.Errorf("%w: %d is outside [0, %d)", ErrWeekRange, w, s.weeks)
	}
	s.week.Store(int32(w))
	s.log.Info("week set", "week", w)
	return nil
}

// PageContentType is the Content-Type the server sends with every archived
// page; an evaluation that parses the archive directly passes it to
// extract.HTML to read each body as the crawler does.
const PageContentType = "text/html; charset=utf-8"

// Shared header values: never modified, so every response may use them.
var (
	htmlType  = []string{PageContentType}
	textType  = []string{"text/plain; charset=utf-8"}
	xmlType   = []string{"application/xml; charset=utf-8"}
	jsonType  = []string{"application/json"}
	allowed   = []string{"GET, HEAD"}
	noSniff   = []string{"nosniff"}
	notFound  = newText("404 page not found\n")
	noHost    = newText("404 unknown host: this server replays only its archives' <name>.test hosts\n")
	badMethod = newText("405 method not allowed: use GET or HEAD\n")
)

// text is a constant plain-text response body with its Content-Length.
type text struct {
	body   []byte
	length []string
}

func newText(s string) text { return text{[]byte(s), []string{strconv.Itoa(len(s))}} }

// ServeHTTP answers one request from the archive chosen by the Host
// header, as the archive was in the current week.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := s.site(r.Host)
	if !s.wait(r) {
		return
	}
	week := int(s.week.Load())
	var (
		status int
		err    error // from writing the body: the client went away
	)
	switch {
	case st == nil:
		s.unknownHost.Add(1)
		status, err = writeText(w, r, http.StatusNotFound, noHost)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		st.counters.methodNotAllowed.Add(1)
		w.Header()["Allow"] = allowed
		status, err = writeText(w, r, http.StatusMethodNotAllowed, badMethod)
	default:
		path := r.URL.EscapedPath()
		switch {
		case path == "/robots.txt":
			status, err = st.serveRobots(w, r)
		case isSitemap(path):
			status, err = st.serveSitemap(w, r, path, week, s.maxSitemapURLs)
		case path == "/search" && st.search != nil:
			status, err = st.serveSearch(w, r, week)
		default:
			status, err = st.servePage(w, r, path, week)
		}
	}
	if s.log.Enabled(r.Context(), slog.LevelDebug) {
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
			slog.String("host", r.Host), slog.String("method", r.Method), slog.String("url", r.URL.EscapedPath()),
			slog.Int("week", week), slog.Int("status", status), slog.Any("err", err))
	}
}

// servePage answers a request for a page.
func (st *site) servePage(w http.ResponseWriter, r *http.Request, path string, week int) (int, error) {
	p, ok := st.arch.Lookup(path, week)
	if !ok {
		st.counters.notFound.Add(1)
		return writeText(w, r, http.StatusNotFound, notFound)
	}
	h := w.Header()
	h["Etag"] = st.etag[p.ID]
	if notModified(r.Header, st.etag[p.ID][0], st.lastModTime[p.First], st.lastMod[p.First][0]) {
		// RFC 9110 §15.4.5: a 304 carries the ETag but no other
		// representation metadata (net/http's ServeContent drops
		// Last-Modified too when there is an ETag).
		st.counters.notModified.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified, nil
	}
	h["Last-Modified"] = st.lastMod[p.First]
	h["Content-Type"] = htmlType
	h["Content-Length"] = st.contentLength[p.ID]
	w.WriteHeader(http.StatusOK)
	st.counters.ok.Add(1)
	if r.Method == http.MethodHead {
		return http.StatusOK, nil
	}
	n, err := w.Write(p.Body)
	st.counters.bodyBytes.Add(int64(n))
	return http.StatusOK, err
}

// site returns the site served on host (port ignored, case-insensitive, a
// trailing dot allowed), or nil.
func (s *Server) site(host string) *site {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && strings.IndexByte(host[i:], ']') < 0 {
		host = host[:i]
	}
	host = strings.TrimSuffix(host, ".")
	for _, st := range s.sites {
		if strings.EqualFold(st.host, host) {
			return st
		}
	}
	return nil
}

// wait delays the response by the configured latency and reports whether
// to answer: false if the request's context ended first.
func (s *Server) wait(r *http.Request) bool {
	if s.latency <= 0 {
		return true
	}
	t := time.NewTimer(s.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// writeText writes a short plain-text response.
func writeText(w http.ResponseWriter, r *http.Request, status int, t text) (int, error) {
	h := w.Header()
	h["Content-Type"] = textType
	h["Content-Length"] = t.length
	h["X-Content-Type-Options"] = noSniff
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return status, nil
	}
	_, err := w.Write(t.body)
	return status, err
}

// writeBody writes a complete response with a Content-Length, and no body
// for HEAD.
func writeBody(w http.ResponseWriter, r *http.Request, status int, contentType []string, body []byte) (int, error) {
	h := w.Header()
	h["Content-Type"] = contentType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return status, nil
	}
	_, err := w.Write(body)
	return status, err
}

// isLabel reports whether s is a DNS label (RFC 1035 §2.3.1, with leading
// digits allowed as RFC 1123 does).
func isLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
