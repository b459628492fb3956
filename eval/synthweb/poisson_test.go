package synthweb_test

import (
	"math"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
)

// poissonConfig has no deletions and few arrivals, so the initial articles
// live through the whole simulated period.
func poissonConfig() synthweb.Config {
	cfg := testConfig()
	cfg.Sites, cfg.PagesPerSite = 2, 300
	cfg.FastChangeInterval, cfg.SlowChangeInterval = time.Minute, 24*time.Hour
	cfg.NewArticleInterval = 24 * time.Hour
	cfg.DeleteFraction = 0
	return cfg
}

// within6Sigma fails unless a Poisson count n is within 6σ = 6√mean of mean.
// The web is deterministic, so this cannot flake; 6σ keeps the test valid
// for any seed a maintainer may choose.
func within6Sigma(t *testing.T, what string, n int, mean float64) {
	t.Helper()
	if sigma := math.Sqrt(mean); math.Abs(float64(n)-mean) > 6*sigma {
		t.Errorf("%s: %d events, want %.0f ± %.0f (6σ)", what, n, mean, 6*sigma)
	} else {
		t.Logf("%s: %d events, expected %.0f ± %.0f", what, n, mean, sigma)
	}
}

func initialArticles(pages []synthweb.PageInfo) map[string]synthweb.PageInfo {
	out := map[string]synthweb.PageInfo{}
	for _, p := range pages {
		if p.Kind == synthweb.KindArticle && !p.Published.After(start) {
			out[p.URL] = p
		}
	}
	return out
}

func TestChangesArePoisson(t *testing.T) {
	e := newEnv(t, poissonConfig())
	const period = 30 * 24 * time.Hour
	t0, t1 := start, start.Add(period)
	before, after := initialArticles(e.web.Pages(t0)), initialArticles(e.web.Pages(t1))
	if len(before) != 600 || len(after) != 600 {
		t.Fatalf("%d initial articles before and %d after, want 600 and 600", len(before), len(after))
	}
	t.Run("the number of changes over 30 days sums to Σλ·T within 6σ", func(t *testing.T) {
		n, mean := 0, 0.0
		for u, p := range before {
			n += after[u].Version - p.Version
			mean += p.Rate * period.Seconds()
		}
		within6Sigma(t, "all initial articles", n, mean)
	})
	t.Run("the fastest page changes λ·T times within 6σ", func(t *testing.T) {
		var fast synthweb.PageInfo
		for _, p := range before {
			if p.Rate > fast.Rate {
				fast = p
			}
		}
		for _, p := range before {
			if 1/p.Rate < time.Minute.Seconds()*(1-1e-9) {
				t.Errorf("%s changes every %gs on average, faster than the 60s cap", p.URL, 1/p.Rate)
			}
		}
		within6Sigma(t, fast.URL, after[fast.URL].Version-fast.Version, fast.Rate*period.Seconds())
	})
	t.Run("change counts agree with Changes", func(t *testing.T) {
		events := 0
		for _, c := range e.web.Changes(t0, t1).Changed {
			if p, ok := before[c.URL]; ok {
				events += c.Events
				if c.Events != after[c.URL].Version-p.Version {
					t.Errorf("%s: Changes says %d events, versions say %d", c.URL, c.Events, after[c.URL].Version-p.Version)
				}
			}
		}
		if events == 0 {
			t.Errorf("Changes reports no article events in 30 days")
		}
	})
	t.Run("rates are heavy-tailed: P(λ > x·λmin) = 1/x", func(t *testing.T) {
		lambdaMin := 1 / (24 * time.Hour).Seconds()
		for _, x := range []float64{3, 10, 100} {
			k := 0
			for _, p := range before {
				if p.Rate > x*lambdaMin {
					k++
				}
			}
			// Binomial(600, 1/x): 6σ bounds.
			mean := 600 / x
			sigma := math.Sqrt(600 * (1 / x) * (1 - 1/x))
			if math.Abs(float64(k)-mean) > 6*sigma {
				t.Errorf("%d pages with λ > %g·λmin, want %.0f ± %.0f", k, x, mean, 6*sigma)
			}
		}
	})
}

func TestArrivalsArePoisson(t *testing.T) {
	cfg := poissonConfig()
	cfg.NewArticleInterval = 10 * time.Minute
	cfg.ChainFraction = 0.2
	e := newEnv(t, cfg)
	const period = 48 * time.Hour
	added, chained := 0, 0
	for _, p := range e.web.Changes(start, start.Add(period)).Added {
		if p.Kind == synthweb.KindArticle {
			added++
			if !p.Listed {
				chained++
			}
		}
	}
	within6Sigma(t, "new articles on 2 sites in 48h", added, 2*period.Seconds()/cfg.NewArticleInterval.Seconds())
	if mean, sigma := float64(added)*0.2, math.Sqrt(float64(added)*0.2*0.8); math.Abs(float64(chained)-mean) > 6*sigma {
		t.Errorf("%d of %d new articles chained, want %.0f ± %.0f", chained, added, mean, 6*sigma)
	}
}
