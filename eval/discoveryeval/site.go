package discoveryeval

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/eval/archive"
	replayserver "github.com/deltaq/deltaq/eval/replay"
	tracker "github.com/deltaq/deltaq/internal/progress"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// site is one archive turned into the thesis's data (§3.5.1): one site,
// its weekly snapshots G_t and the bipartite graphs H_t between old and
// new pages.
type site struct {
	name  string // the archive's name
	host  string // <name>.test, the host the pages are served under
	dates []time.Time
	// cover[t] is H_t for t ≥ 1 (cover[0] is nil: week 0 has no history).
	cover []*discovery.Bipartite
	// oldPresent[t] lists the old pages that exist in week t (X_t ∩ V_t):
	// the pages a full re-crawl of week t re-fetches.
	oldPresent [][]string
	weeks      []weekStats
	links      linkCounts
	meta       archive.Meta
}

// weekStats describes one snapshot.
type weekStats struct {
	pages    int // |V_t|
	edges    int // |E_t|, distinct site-internal links between pages of the week
	created  int // pages present in t and absent in t−1 (the archive's created(t))
	newPages int // |Y_t|: present in t and in no earlier week
	direct   int // new pages an old page links to directly
	orphans  int // new pages no old page covers
}

// linkCounts counts the site-internal links kept from all archived bodies
// (each interval parsed once), by kind.
type linkCounts struct {
	intervals int
	byKind    map[extract.Kind]int
}

// loadSite builds every week's H_t of archive a. Each distinct interval
// body is parsed once, by cfg.Workers goroutines, and counted by prog; a
// week's graph keeps the links whose target exists that week.
func loadSite(ctx context.Context, cfg Config, a *archive.Archive, prog *tracker.Tracker) (*site, error) {
	s := &site{name: a.Name(), host: a.Name() + ".test", meta: a.Meta()}
	base := "http://" + s.host
	urls := a.URLs()
	abs := make([]string, len(urls)) // the normalized absolute URL of each page
	byAbs := make(map[string]int32, len(urls))
	for i, u := range urls {
		n, err := urlnorm.Normalize(base + u)
		if err != nil {
			return nil, fmt.Errorf("discoveryeval: %s: page %q: %w", s.name, u, err)
		}
		abs[i] = n
		byAbs[n] = int32(i)
	}

	// Parse every interval once: its out-links as page indices.
	type job struct {
		page int32
		p    archive.Page
	}
	var jobs []job
	for i, u := range urls {
		for _, p := range a.Intervals(u) {
			jobs = append(jobs, job{int32(i), p})
		}
	}
	links := make([][]int32, a.NumIntervals())
	kinds := make([][4]int, a.NumIntervals())
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range cfg.Workers {
		g.Go(func() error {
			for {
				j := int(next.Add(1) - 1)
				if j >= len(jobs) {
					return nil
				}
				if j%256 == 0 {
					if err := gctx.Err(); err != nil {
						return err
					}
				}
				jb := jobs[j]
				pageURL, err := url.Parse(abs[jb.page])
				if err != nil {
					return fmt.Errorf("discoveryeval: %s: %w", s.name, err)
				}
				doc, err := extract.HTML(jb.p.Body, replayserver.PageContentType, pageURL, cfg.Extract)
				if err != nil {
					return fmt.Errorf("discoveryeval: %s: parse %s (weeks %d-%d): %w", s.name, jb.p.URL, jb.p.First, jb.p.Last, err)
				}
				var out []int32
				for _, l := range doc.Links {
					to, ok := byAbs[l.URL]
					if !ok || to == jb.page {
						continue // another host, not an archived page, or itself
					}
					out = append(out, to)
					if k := int(l.Kind) - 1; k >= 0 && k < 4 {
						kinds[jb.p.ID][k]++
					}
				}
				slices.Sort(out)
				links[jb.p.ID] = slices.Compact(out)
				prog.Step()
				prog.RunDone()
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	s.links = linkCounts{intervals: len(jobs), byKind: map[extract.Kind]int{}}
	for _, k := range kinds {
		for i, n := range k {
			s.links.byKind[extract.Kind(i+1)] += n
		}
	}

	// Walk the weeks: G_t, then H_t against every earlier week's pages.
	weeks := a.Weeks()
	s.dates = make([]time.Time, weeks)
	s.cover = make([]*discovery.Bipartite, weeks)
	s.oldPresent = make([][]string, weeks)
	s.weeks = make([]weekStats, weeks)
	seen := make([]bool, len(urls))    // in some week before t: X_t
	present := make([]bool, len(urls)) // in week t
	before := make([]bool, len(urls))  // in week t−1
	for t := range weeks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.dates[t] = a.Date(t)
		clear(present)
		var pages []archive.Page
		var idx []int32
		for p := range a.Pages(t) {
			i, ok := slices.BinarySearch(urls, p.URL)
			if !ok {
				return nil, fmt.Errorf("discoveryeval: %s: week %d page %q is not among the archive's URLs", s.name, t, p.URL)
			}
			present[i] = true
			pages = append(pages, p)
			idx = append(idx, int32(i))
		}
		gr := discovery.NewGraph(len(pages))
		node := make(map[int32]int, len(pages))
		for _, i := range idx {
			node[i] = gr.AddPage(abs[i])
		}
		ws := weekStats{pages: len(pages)}
		for k, p := range pages {
			from := node[idx[k]]
			for _, to := range links[p.ID] {
				if present[to] {
					gr.AddLink(from, node[to])
				}
			}
			if t > 0 && !before[idx[k]] {
				ws.created++
			}
		}
		ws.edges = gr.Edges()
		if t > 0 {
			direct := map[int32]bool{}
			for k, p := range pages {
				if !seen[idx[k]] {
					continue
				}
				for _, to := range links[p.ID] {
					if present[to] && !seen[to] {
						direct[to] = true
					}
				}
			}
			ws.direct = len(direct)
			h := discovery.Cover(gr, func(u string) bool { return seen[byAbs[u]] })
			s.cover[t] = h
			ws.newPages = len(h.New)
			ws.orphans = len(h.Orphans)
			var old []string
			for _, i := range idx {
				if seen[i] {
					old = append(old, abs[i])
				}
			}
			s.oldPresent[t] = old
		}
		s.weeks[t] = ws
		for _, i := range idx {
			seen[i] = true
		}
		copy(before, present)
	}
	return s, nil
}
