package feedreplay

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/feedtrace"
)

// Host is the host name the feeds are served on.
const Host = "feeds.test"

// Options configure a Server.
type Options struct {
	// Now is the replayed clock.
	Now func() time.Time
	// Items is how many of the latest postings a feed shows (GitHub's
	// commit feeds show 20).
	Items int
}

// Server serves every feed of a trace.
type Server struct {
	opts   Options
	byPath map[string]*feedtrace.Feed
	names  []string
}

// New serves tr.
func New(tr *feedtrace.Trace, opts Options) (*Server, error) {
	if opts.Now == nil {
		return nil, fmt.Errorf("feedreplay: no clock")
	}
	if opts.Items < 1 {
		return nil, fmt.Errorf("feedreplay: items = %d: must be ≥ 1", opts.Items)
	}
	s := &Server{opts: opts, byPath: map[string]*feedtrace.Feed{}}
	for i := range tr.Feeds {
		f := &tr.Feeds[i]
		s.byPath[pathOf(f.Name)] = f
		s.names = append(s.names, f.Name)
	}
	return s, nil
}

func pathOf(name string) string { return "/" + name + ".atom" }

// URL is the address of feed name.
func (s *Server) URL(name string) string { return "http://" + Host + pathOf(name) }

// ServeHTTP answers /robots.txt (everything allowed), / (the feed URLs, one
// a line) and each feed.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/robots.txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		return
	case "/":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for _, n := range s.names {
			fmt.Fprintln(w, s.URL(n))
		}
		return
	}
	f := s.byPath[r.URL.Path]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	now := s.opts.Now()
	// n postings are out by now: those at or before it.
	n, _ := slices.BinarySearchFunc(f.Postings, now, func(p, t time.Time) int {
		if p.After(t) {
			return 1
		}
		return -1
	})
	var last time.Time
	if n > 0 {
		last = f.Postings[n-1]
	}
	// ServeContent answers If-None-Match (weak comparison, "*") and else
	// If-Modified-Since with 304 (RFC 9110 §13.2.2), and HEAD without a body.
	h := w.Header()
	h.Set("ETag", fmt.Sprintf(`"%d"`, n))
	h.Set("Content-Type", "application/atom+xml; charset=utf-8")
	http.ServeContent(w, r, "", last, bytes.NewReader(s.atom(f, n, now)))
}

// atom renders the latest Items of the first n postings, newest first.
func (s *Server) atom(f *feedtrace.Feed, n int, now time.Time) []byte {
	var b strings.Builder
	updated := now
	if n > 0 {
		updated = f.Postings[n-1]
	}
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>urn:deltaq:feed:%s</id>
<title>Recent commits to %s</title>
<link rel="self" href="%s"/>
<updated>%s</updated>
`, html.EscapeString(f.Name), html.EscapeString(f.Name), s.URL(f.Name), updated.UTC().Format(time.RFC3339))
	for i := n - 1; i >= max(0, n-s.opts.Items); i-- {
		t := f.Postings[i].UTC().Format(time.RFC3339)
		fmt.Fprintf(&b, "<entry><id>urn:deltaq:feed:%s:%d</id><title>posting %d</title><updated>%s</updated><published>%s</published></entry>\n",
			html.EscapeString(f.Name), i, i, t, t)
	}
	b.WriteString("</feed>\n")
	return []byte(b.String())
}

// MaxSpeed is the fastest replay Speed runs: a year of postings in about
// half a minute.
const MaxSpeed = 1e6

// Speed returns a clock that starts at start now and runs speed times as
// fast as the wall clock (0 < speed ≤ MaxSpeed). It stops at the last
// instant a time.Duration reaches from start (292 years on), where a
// converted duration would wrap round to the past.
func Speed(start time.Time, speed float64, wall func() time.Time) func() time.Time {
	origin := wall()
	return func() time.Time {
		d := float64(wall().Sub(origin)) * speed
		if d >= math.MaxInt64 {
			return start.Add(math.MaxInt64)
		}
		return start.Add(time.Duration(d))
	}
}
