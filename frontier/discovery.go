package frontier

import (
	"context"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// Discoverer picks old pages to re-fetch so that their links reveal new
// pages (thesis ch. 3); discovery.Stats implements it with OD-WIN. The
// frontier gives it frontier.split.discovery of each period's budget.
type Discoverer interface {
	// Select returns the old pages of site to re-fetch this period.
	Select(site string, now time.Time) []string
	// FullRecrawlDue reports whether every known page of site should be
	// re-fetched (every Δ periods, §3.6.4).
	FullRecrawlDue(site string, now time.Time) bool
	// FullRecrawlDone reports that such a re-crawl finished.
	FullRecrawlDone(site string, at time.Time)
}

// fullRecrawl is a site's full re-crawl in progress: pages still to queue
// (the discovery share may spread it over several periods) and pages
// queued but not yet fetched.
type fullRecrawl struct {
	toQueue []string
	pending map[string]bool
}

// planDiscovery chooses up to n discovery re-fetches: first the pages of
// full re-crawls in progress or due, then each site's OD-WIN picks.
func (f *Frontier) planDiscovery(ctx context.Context, now time.Time, n int, exclude map[string]struct{}) ([]string, error) {
	if f.discoverer == nil || n == 0 {
		return nil, nil
	}
	bySite := map[string][]string{}
	for p, err := range (candidates{db: f.db, exclude: exclude}).Candidates(ctx) {
		if err != nil {
			return nil, err
		}
		site := urlnorm.Host(p.URL)
		bySite[site] = append(bySite[site], p.URL)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	taken := map[string]bool{}
	add := func(u string) bool {
		if len(out) >= n {
			return false
		}
		if _, busy := exclude[u]; !busy && !taken[u] {
			taken[u] = true
			out = append(out, u)
		}
		return true
	}
	for site, pages := range bySite {
		if fr := f.mu.full[site]; fr == nil && f.discoverer.FullRecrawlDue(site, now) {
			f.mu.full[site] = &fullRecrawl{toQueue: pages, pending: map[string]bool{}}
		}
	}
	for _, fr := range f.mu.full {
		for len(fr.toQueue) > 0 && len(out) < n {
			u := fr.toQueue[0]
			fr.toQueue = fr.toQueue[1:]
			if add(u) {
				fr.pending[u] = true
			}
		}
	}
	for site := range bySite {
		if f.mu.full[site] != nil {
			continue
		}
		for _, u := range f.discoverer.Select(site, now) {
			if !add(u) {
				break
			}
		}
	}
	return out, nil
}

// discoveryDoneLocked notes a finished discovery re-fetch; the last page
// of a full re-crawl completes it.
func (f *Frontier) discoveryDoneLocked(url string) {
	site := urlnorm.Host(url)
	fr := f.mu.full[site]
	if fr == nil || !fr.pending[url] {
		return
	}
	delete(fr.pending, url)
	if len(fr.pending) == 0 && len(fr.toQueue) == 0 {
		delete(f.mu.full, site)
		f.discoverer.FullRecrawlDone(site, f.clock.Now())
	}
}
