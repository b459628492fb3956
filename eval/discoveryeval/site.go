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
	l := &siteLoader{
		s: &site{name: a.Name(), host: a.Name() + ".test", meta: a.Meta()},
		a: a,
	}
	if err := l.indexPages(); err != nil {
		return nil, err
	}
	if err := l.parseIntervals(ctx, cfg, prog); err != nil {
		return nil, err
	}
	if err := l.walkWeeks(ctx); err != nil {
		return nil, err
	}
	return l.s, nil
}

// siteLoader carries loadSite's work from one step to the next: the
// pages' absolute URLs and every interval's links, computed once, from
// which each week's graph is built.
type siteLoader struct {
	s     *site
	a     *archive.Archive
	urls  []string         // the archive's URLs, sorted
	abs   []string         // the normalized absolute URL of each page
	byAbs map[string]int32 // the index of each page by abs
	// links[id] are the out-links of interval id as page indices, sorted
	// and without repeats.
	links [][]int32
	// The weeks walked so far: seen marks the pages of any earlier week
	// (X_t), present those of week t, before those of week t−1.
	seen, present, before []bool
}

// indexPages gives every archived page its absolute URL as the extractor
// writes it, so that a parsed link finds its target page by a map lookup.
func (l *siteLoader) indexPages() error {
	base := "http://" + l.s.host
	l.urls = l.a.URLs()
	l.abs = make([]string, len(l.urls))
	l.byAbs = make(map[string]int32, len(l.urls))
	for i, u := range l.urls {
		n, err := urlnorm.Normalize(base + u)
		if err != nil {
			return fmt.Errorf("discoveryeval: %s: page %q: %w", l.s.name, u, err)
		}
		l.abs[i] = n
		l.byAbs[n] = int32(i)
	}
	return nil
}

// parseIntervals parses every interval once, by cfg.Workers goroutines
// that each take the next one in turn, as parsing is most of a run's
// time; it counts the links kept by kind and each interval on prog. It
// stops at the first error and checks ctx only every 256 intervals, often
// enough to stop soon when cancelled.
func (l *siteLoader) parseIntervals(ctx context.Context, cfg Config, prog *tracker.Tracker) error {
	type job struct {
		page int32
		p    archive.Page
	}
	var jobs []job
	for i, u := range l.urls {
		for _, p := range l.a.Intervals(u) {
			jobs = append(jobs, job{int32(i), p})
		}
	}
	l.links = make([][]int32, l.a.NumIntervals())
	kinds := make([][4]int, l.a.NumIntervals())
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
				out, err := l.outLinks(cfg, jb.page, jb.p, &kinds[jb.p.ID])
				if err != nil {
					return err
				}
				l.links[jb.p.ID] = out
				prog.Step()
				prog.RunDone()
			}
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	l.s.links = linkCounts{intervals: len(jobs), byKind: map[extract.Kind]int{}}
	for _, k := range kinds {
		for i, n := range k {
			l.s.links.byKind[extract.Kind(i+1)] += n
		}
	}
	return nil
}

// outLinks parses interval p of page and returns the archived pages it
// links to, sorted and without repeats; it adds each link kept to kinds by
// kind. Links to other hosts, to pages never archived and to the page
// itself are dropped, as no week's graph could hold them.
func (l *siteLoader) outLinks(cfg Config, page int32, p archive.Page, kinds *[4]int) ([]int32, error) {
	pageURL, err := url.Parse(l.abs[page])
	if err != nil {
		return nil, fmt.Errorf("discoveryeval: %s: %w", l.s.name, err)
	}
	doc, err := extract.HTML(p.Body, replayserver.PageContentType, pageURL, cfg.Extract)
	if err != nil {
		return nil, fmt.Errorf("discoveryeval: %s: parse %s (weeks %d-%d): %w", l.s.name, p.URL, p.First, p.Last, err)
	}
	var out []int32
	for _, lk := range doc.Links {
		to, ok := l.byAbs[lk.URL]
		if !ok || to == page {
			continue // another host, not an archived page, or itself
		}
		out = append(out, to)
		if k := int(lk.Kind) - 1; k >= 0 && k < 4 {
			kinds[k]++
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// walkWeeks builds G_t, then H_t against every earlier week's pages, for
// each week in order, since X_t is what the weeks before t have seen. It
// checks ctx once a week.
func (l *siteLoader) walkWeeks(ctx context.Context) error {
	s := l.s
	weeks := l.a.Weeks()
	s.dates = make([]time.Time, weeks)
	s.cover = make([]*discovery.Bipartite, weeks)
	s.oldPresent = make([][]string, weeks)
	s.weeks = make([]weekStats, weeks)
	l.seen = make([]bool, len(l.urls))
	l.present = make([]bool, len(l.urls))
	l.before = make([]bool, len(l.urls))
	for t := range weeks {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.dates[t] = l.a.Date(t)
		pages, idx, err := l.weekPages(t)
		if err != nil {
			return err
		}
		gr, ws := l.weekGraph(t, pages, idx)
		if t > 0 {
			l.coverWeek(t, gr, pages, idx, &ws)
		}
		s.weeks[t] = ws
		for _, i := range idx {
			l.seen[i] = true
		}
		copy(l.before, l.present)
	}
	return nil
}

// weekPages returns the pages of week t with their page indices and marks
// them present. A page missing from the archive's URLs means the archive
// contradicts itself, which fails the load.
func (l *siteLoader) weekPages(t int) ([]archive.Page, []int32, error) {
	clear(l.present)
	var pages []archive.Page
	var idx []int32
	for p := range l.a.Pages(t) {
		i, ok := slices.BinarySearch(l.urls, p.URL)
		if !ok {
			return nil, nil, fmt.Errorf("discoveryeval: %s: week %d page %q is not among the archive's URLs", l.s.name, t, p.URL)
		}
		l.present[i] = true
		pages = append(pages, p)
		idx = append(idx, int32(i))
	}
	return pages, idx, nil
}

// weekGraph builds G_t from week t's pages, keeping only the links whose
// target exists that week, and starts the week's statistics: its pages,
// edges and the pages created since t−1.
func (l *siteLoader) weekGraph(t int, pages []archive.Page, idx []int32) (*discovery.Graph, weekStats) {
	gr := discovery.NewGraph(len(pages))
	node := make(map[int32]int, len(pages))
	for _, i := range idx {
		node[i] = gr.AddPage(l.abs[i])
	}
	ws := weekStats{pages: len(pages)}
	for k, p := range pages {
		from := node[idx[k]]
		for _, to := range l.links[p.ID] {
			if l.present[to] {
				gr.AddLink(from, node[to])
			}
		}
		if t > 0 && !l.before[idx[k]] {
			ws.created++
		}
	}
	ws.edges = gr.Edges()
	return gr, ws
}

// coverWeek builds H_t of week t ≥ 1 from its graph gr against the pages
// seen before t, and records what the algorithms and the report need of
// it: the new pages, the orphans, the new pages an old page links to
// directly, and the old pages a full re-crawl re-fetches.
func (l *siteLoader) coverWeek(t int, gr *discovery.Graph, pages []archive.Page, idx []int32, ws *weekStats) {
	direct := map[int32]bool{}
	for k, p := range pages {
		if !l.seen[idx[k]] {
			continue
		}
		for _, to := range l.links[p.ID] {
			if l.present[to] && !l.seen[to] {
				direct[to] = true
			}
		}
	}
	ws.direct = len(direct)
	h := discovery.Cover(gr, func(u string) bool { return l.seen[l.byAbs[u]] })
	l.s.cover[t] = h
	ws.newPages = len(h.New)
	ws.orphans = len(h.Orphans)
	var old []string
	for _, i := range idx {
		if l.seen[i] {
			old = append(old, l.abs[i])
		}
	}
	l.s.oldPresent[t] = old
}
