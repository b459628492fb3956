package feeds

import (
	"context"
	"slices"

	"github.com/deltaq/deltaq/repo"
)

// Offer is a feed the crawler found advertised on a page (<link
// rel=alternate type=application/rss+xml or atom+xml>) and not subscribed.
type Offer struct {
	URL     string
	FoundOn string // the first page seen advertising it
	Pages   int    // pages advertising it
}

// Discover scans the crawled pages' out-links for advertised feeds not yet
// subscribed, at most limit of them, the most advertised first.
func (s *Store) Discover(ctx context.Context, limit int) ([]Offer, error) {
	subscribed := map[string]bool{}
	list, err := s.Subscriptions(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range list {
		subscribed[f.URL] = true
		if f.MovedFrom != "" { // the URL a redirect moved it from is the same feed
			subscribed[f.MovedFrom] = true
		}
	}
	found := map[string]*Offer{}
	for p, err := range s.db.Pages(ctx) {
		if err != nil {
			return nil, err
		}
		links, err := s.db.OutLinks(ctx, p.URL)
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if l.Kind != repo.LinkFeed || subscribed[l.URL] {
				continue
			}
			o := found[l.URL]
			if o == nil {
				if len(found) >= 100*limit {
					continue // bound the memory of a huge crawl
				}
				o = &Offer{URL: l.URL, FoundOn: p.URL}
				found[l.URL] = o
			}
			o.Pages++
		}
	}
	out := make([]Offer, 0, len(found))
	for _, o := range found {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b Offer) int {
		if a.Pages != b.Pages {
			return b.Pages - a.Pages
		}
		if a.URL < b.URL {
			return -1
		}
		return 1
	})
	return out[:min(len(out), limit)], nil
}
