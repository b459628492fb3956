package synceval

import (
	"testing"
	"time"

	"github.com/deltaq/deltaq/frontier"
)

// TestNoRunReadsSitemapDates: the replay's sitemap dates every page by
// the week its archived copy changed, so a policy reading it would learn
// the true change of pages it did not fetch. No run of either history
// may, even when frontier.sitemap_lastmod is on, as by default.
func TestNoRunReadsSitemapDates(t *testing.T) {
	for _, history := range []string{"own", "whole"} {
		h := &harness{cfg: Config{Frontier: frontier.Config{SitemapLastMod: true}},
			c: &corpus{live: make([][]doc, 3), dates: make([]time.Time, 3)}}
		if history == "whole" {
			h.whole = map[string]pageHistory{}
		}
		for _, policy := range frontier.Policies() {
			for _, spec := range []runSpec{{Policy: policy, Budget: 5}, {Policy: policy, Budget: h.budgetAll(), All: true}} {
				if h.frontierConfig(spec).SitemapLastMod {
					t.Errorf("history %s, %s: the frontier reads sitemap <lastmod> dates", history, spec)
				}
			}
		}
	}
}
