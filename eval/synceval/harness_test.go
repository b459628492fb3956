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

// TestSeededRunsUseTheirSeed: each seed's run plans with its own
// frontier.seed; a run that is not seeded keeps the configured one.
func TestSeededRunsUseTheirSeed(t *testing.T) {
	h := &harness{cfg: Config{Frontier: frontier.Config{Seed: 3}}, c: &corpus{live: make([][]doc, 3), dates: make([]time.Time, 3)}}
	if got := h.frontierConfig(runSpec{Policy: "deltaq", Budget: 5, Seeded: true, Seed: 9}).Seed; got != 9 {
		t.Errorf("seeded run: frontier.seed %d, want 9", got)
	}
	if got := h.frontierConfig(runSpec{Policy: "uniform", Budget: 5}).Seed; got != 3 {
		t.Errorf("run not seeded: frontier.seed %d, want the configured 3", got)
	}
}

// TestOnlyRunsThatDrawAreSeeded: deltaq is repeated with seeds under the
// explorations that draw, and run once when it ranks by its posterior
// means, as it does with hindsight whatever the configuration; the
// baselines draw nothing.
func TestOnlyRunsThatDrawAreSeeded(t *testing.T) {
	for _, c := range []struct {
		exploration string
		whole       bool
		want        bool
	}{
		{"thompson", false, true},
		{"untried", false, true},
		{"mean", false, false},
		{"thompson", true, false},
		{"untried", true, false},
	} {
		h := &harness{cfg: Config{Frontier: frontier.Config{Exploration: c.exploration}}, c: &corpus{live: make([][]doc, 3), dates: make([]time.Time, 3)}}
		if c.whole {
			h.whole = map[string]pageHistory{}
		}
		if got := h.seeded("deltaq"); got != c.want {
			t.Errorf("exploration %s, whole history %v: deltaq seeded %v, want %v", c.exploration, c.whole, got, c.want)
		}
		if h.seeded("uniform") {
			t.Errorf("exploration %s, whole history %v: uniform seeded", c.exploration, c.whole)
		}
	}
}
