package replay

import "sync/atomic"

// Stats is a snapshot of a Server's response counters.
type Stats struct {
	// Hosts holds the counters of each served host, keyed by host name
	// ("tldr-en.test").
	Hosts map[string]HostStats
	// UnknownHost counts requests for a host no archive is served on (all
	// answered 404).
	UnknownHost int64
}

// HostStats counts the responses of one host by status. Robots and
// Sitemaps and Searches break down part of OK; OK − Robots − Sitemaps −
// Searches is the number of pages served with a body.
type HostStats struct {
	OK               int64 // 200: pages, robots.txt and sitemaps
	NotModified      int64 // 304: conditional requests that matched
	NotFound         int64 // 404: no page at that URL this week
	MethodNotAllowed int64 // 405: methods other than GET and HEAD
	Robots           int64 // robots.txt responses (200)
	Sitemaps         int64 // sitemap and sitemap index responses (200)
	BodyBytes        int64 // page body bytes written (not HEAD, not 304)
	Searches         int64 // added search responses (200), with Options.Search
	BadSearches      int64 // added search requests refused (400)
}

// Total sums the counters over all hosts. UnknownHost requests are
// counted in NotFound.
func (s Stats) Total() HostStats {
	t := HostStats{NotFound: s.UnknownHost}
	for _, h := range s.Hosts {
		t.OK += h.OK
		t.NotModified += h.NotModified
		t.NotFound += h.NotFound
		t.MethodNotAllowed += h.MethodNotAllowed
		t.Robots += h.Robots
		t.Sitemaps += h.Sitemaps
		t.BodyBytes += h.BodyBytes
		t.Searches += h.Searches
		t.BadSearches += h.BadSearches
	}
	return t
}

// counters are the live counters of one host; a request touches one or
// two of them, with atomic adds.
type counters struct {
	ok, notModified, notFound, methodNotAllowed atomic.Int64
	robots, sitemaps, bodyBytes                 atomic.Int64
	search, badSearch                           atomic.Int64
}

func (c *counters) snapshot() HostStats {
	return HostStats{
		OK:               c.ok.Load(),
		NotModified:      c.notModified.Load(),
		NotFound:         c.notFound.Load(),
		MethodNotAllowed: c.methodNotAllowed.Load(),
		Robots:           c.robots.Load(),
		Sitemaps:         c.sitemaps.Load(),
		BodyBytes:        c.bodyBytes.Load(),
		Searches:         c.search.Load(),
		BadSearches:      c.badSearch.Load(),
	}
}

// Stats returns a snapshot of the counters. Counters are read one by one,
// so a snapshot taken while requests are in flight may be off by those
// requests.
func (s *Server) Stats() Stats {
	st := Stats{Hosts: make(map[string]HostStats, len(s.sites)), UnknownHost: s.unknownHost.Load()}
	for _, site := range s.sites {
		st.Hosts[site.host] = site.counters.snapshot()
	}
	return st
}
