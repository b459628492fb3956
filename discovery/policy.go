package discovery

import (
	"cmp"
	"slices"
	"strings"
)

// Policy is a history-based discovery algorithm (§3.6): it learns from the
// full re-crawls of a site and chooses which old pages of that site to
// re-fetch in the coming period. Implementations are not safe for
// concurrent use; Stats is the concurrent form used by the live crawler.
type Policy interface {
	// Name is the thesis's name of the algorithm, e.g. "OD-WIN".
	Name() string
	// Observe records H_t of a full re-crawl of site in period t. Periods
	// of one site must not decrease.
	Observe(site string, t int, h *Bipartite)
	// Select returns at most k old pages of site to re-fetch in the
	// coming period, best first, deterministically. It may return fewer
	// when fewer pages are candidates.
	Select(site string, k int) []string
}

// scored is an old page with the score an algorithm ranks it by.
type scored struct {
	url   string
	score float64
}

// rank sorts pages by score, highest first, the smaller URL first on ties.
func rank(pages []scored) {
	slices.SortFunc(pages, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.url, b.url)
	})
}

// topURLs returns the URLs of the first k ranked pages.
func topURLs(pages []scored, k int) []string {
	k = max(0, min(k, len(pages)))
	out := make([]string, k)
	for i := range k {
		out[i] = pages[i].url
	}
	return out
}
