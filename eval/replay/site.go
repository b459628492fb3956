package replay

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
)

// site is one archive served on its host, with every response header value
// a page can need computed once, so that serving a page allocates nothing
// of its own. Header value slices are shared by all responses and never
// modified.
type site struct {
	arch *archive.Archive
	host string // "<name>.test", lower case

	etag          [][]string  // by interval ID: {`"<hash>"`}
	contentLength [][]string  // by interval ID: {len(body)}
	lastMod       [][]string  // by week: {Date(w) in http.TimeFormat}
	lastModTime   []time.Time // by week: Date(w)
	day           []string    // by week: Date(w) as YYYY-MM-DD, for sitemaps

	robotsExtra []string
	search      *searcher // nil unless Options.Search.Enabled

	counters counters
}

func newSite(a *archive.Archive, robotsExtra []string) *site {
	s := &site{
		arch:        a,
		host:        strings.ToLower(a.Name()) + ".test",
		robotsExtra: robotsExtra,
	}
	n := a.NumIntervals()
	etags := make([]string, n)
	lengths := make([]string, n)
	s.etag = make([][]string, n)
	s.contentLength = make([][]string, n)
	for _, url := range a.URLs() {
		for _, p := range a.Intervals(url) {
			etags[p.ID] = `"` + p.Hash + `"`
			lengths[p.ID] = strconv.Itoa(len(p.Body))
			s.etag[p.ID] = etags[p.ID : p.ID+1 : p.ID+1]
			s.contentLength[p.ID] = lengths[p.ID : p.ID+1 : p.ID+1]
		}
	}
	weeks := a.Weeks()
	lastMod := make([]string, weeks)
	s.lastMod = make([][]string, weeks)
	s.lastModTime = make([]time.Time, weeks)
	s.day = make([]string, weeks)
	for w := range weeks {
		d := a.Date(w)
		lastMod[w] = d.Format(http.TimeFormat)
		s.lastMod[w] = lastMod[w : w+1 : w+1]
		s.lastModTime[w] = d
		s.day[w] = d.Format(time.DateOnly)
	}
	return s
}
