package synthweb

import (
	"math"
	"slices"
	"strings"
	"time"
)

// PageInfo is the ground truth about one URL at one instant: what a crawl
// that fetched everything at that instant would hold.
type PageInfo struct {
	URL  string // absolute, http://siteN.synth.test/…, no port
	Kind PageKind
	// Published is an article's publication time; for other pages, the
	// site's first publication.
	Published time.Time
	// Modified is the Last-Modified the server sends (the newest fact the
	// page shows).
	Modified time.Time
	// ETag is the strong validator the server sends: a hash of the bytes.
	ETag string
	// Version counts an article's changes (events of its Poisson process)
	// since publication; 0 for other pages.
	Version int
	// Rate is an article's change rate λ in changes per wall second; 0 for
	// other pages.
	Rate float64
	// Listed is true for articles shown on hubs, feeds and the sitemap, false
	// for articles reachable only through their chain (§3.2).
	Listed bool
	// Links are the page's out-links as absolute URLs, in document order:
	// <a href>, the feed <link>, feed items, sitemap locs, robots Sitemap.
	Links []string
}

// Pages returns every page of every site that exists at wall time t, sorted
// by URL, including the robots-disallowed /private/ pages that other pages
// link to (Kind == KindPrivate). Trap hosts are not included; see
// AdversarialPaths. Cost grows with the number of articles ever published.
func (w *Web) Pages(t time.Time) []PageInfo {
	m := w.model(t)
	var out []PageInfo
	for _, s := range w.sites {
		out = append(out, w.sitePages(s, m)...)
	}
	slices.SortFunc(out, func(a, b PageInfo) int { return strings.Compare(a.URL, b.URL) })
	return out
}

func (w *Web) sitePages(s *site, m float64) []PageInfo {
	v := w.newView(s, m, "")
	var out []PageInfo
	add := func(path string, d *doc, a *article) {
		pi := PageInfo{
			URL:       d.abs(path),
			Kind:      d.kind,
			Published: w.wall(w.epoch),
			Modified:  w.wall(d.lm),
			ETag:      etag(d.b.Bytes()),
			Links:     d.links,
		}
		if a != nil {
			pi.Published = w.wall(a.created)
			pi.Version = v.countEvents(a, math.Inf(-1), m)
			pi.Rate = a.rate * w.opts.TimeScale
			pi.Listed = !a.chained
		}
		out = append(out, pi)
	}
	for _, p := range []string{"/", "/robots.txt", "/sitemap.xml", s.feedPath(), "/about.html", accountPath} {
		add(p, v.route(p, ""), nil)
	}
	paged := func(base string, render func(page int) *doc) {
		for page := 1; ; page++ {
			d := render(page)
			if d == nil {
				return
			}
			add(pagedPath(base, page), d, nil)
			if !d.older {
				return
			}
		}
	}
	for sec := range w.opts.Sections {
		paged(sectionPath(sec), func(page int) *doc { return v.sectionPage(sec, page) })
	}
	for _, t := range s.topics {
		paged(tagPath(t), func(page int) *doc { return v.tagPage(words[t], page) })
	}
	v.eachDesc(func(id articleID) bool {
		a := v.article(id)
		if !a.alive(m) {
			return true
		}
		p := v.articlePath(a)
		add(p, v.route(p, ""), a)
		add(editPath(a), v.route(editPath(a), ""), nil)
		return true
	})
	return out
}

// Change is one URL that exists at both ends of an interval and whose bytes
// differ, or whose article changed (and changed back, which the bytes
// cannot show).
type Change struct {
	URL  string
	Kind PageKind
	// Events is the number of an article's changes in the interval (its
	// Poisson events); 0 for hubs, feeds and sitemaps, which change because
	// articles arrive, change or go.
	Events int
}

// Delta is what happened between two instants.
type Delta struct {
	Added   []PageInfo // pages at the later instant that were not at the earlier
	Removed []string   // URLs at the earlier instant gone at the later (404 now)
	Changed []Change
}

// Changes compares the web at from and to (from ≤ to); every list is sorted
// by URL.
func (w *Web) Changes(from, to time.Time) Delta {
	before, after := w.Pages(from), w.Pages(to)
	old := make(map[string]PageInfo, len(before))
	for _, p := range before {
		old[p.URL] = p
	}
	var d Delta
	for _, p := range after {
		o, ok := old[p.URL]
		if !ok {
			d.Added = append(d.Added, p)
			continue
		}
		delete(old, p.URL)
		if events := p.Version - o.Version; events > 0 || p.ETag != o.ETag {
			d.Changed = append(d.Changed, Change{URL: p.URL, Kind: p.Kind, Events: events})
		}
	}
	for u := range old {
		d.Removed = append(d.Removed, u)
	}
	slices.Sort(d.Removed)
	return d
}

// SampleQueries returns up to n distinct queries, each with results at any
// time: topic tags, tag pairs and title word pairs of initial articles that
// are never deleted. Deterministic for a seed.
func (w *Web) SampleQueries(n int) []string {
	if n <= 0 {
		return nil
	}
	r := newRand(uint64(w.opts.Seed), tagQueries)
	seen := make(map[string]bool)
	var out []string
	p := w.opts.PagesPerSite
	// Bounded: at most a few draws per wanted query and site.
	for try := 0; try < 8*n*len(w.sites)+64 && len(out) < n; try++ {
		s := w.sites[try%len(w.sites)]
		a := w.draw(s, articleID{0, r.IntN(p)})
		if a.delete < w.opts.DeleteFraction {
			continue // deleted some day
		}
		var q string
		switch try % 3 {
		case 0:
			q = words[a.tags[0]]
		case 1:
			q = words[a.tags[0]] + " " + words[a.tags[1]]
		default:
			q = words[a.title[0]] + " " + words[a.title[len(a.title)-1]]
		}
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}
