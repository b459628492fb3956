package synthweb

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

var tags = regexp.MustCompile(`<[^>]*>`)

// shingles returns the set of word 4-grams of a page's visible text, the
// signature the thesis uses to tell minor from major changes (§4.7.1).
func shingles(html string) map[string]bool {
	w := strings.Fields(tags.ReplaceAllString(html, " "))
	s := map[string]bool{}
	for i := 0; i+4 <= len(w); i++ {
		s[strings.Join(w[i:i+4], " ")] = true
	}
	return s
}

func resemblance(a, b map[string]bool) float64 {
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func TestMinorChangesAreSmallAndMajorChangesLarge(t *testing.T) {
	w, err := New(Options{Config: Config{
		Seed: 7, Sites: 1, PagesPerSite: 30, Sections: 3, PageSize: 10, FeedSize: 10, TimeScale: 1,
		FastChangeInterval: time.Minute, SlowChangeInterval: 10 * time.Minute, ChangeRateShape: 1,
		MajorChangeFraction: 0.3, NewArticleInterval: time.Hour, ChainFraction: 0.2,
		DeleteFraction: 0, MeanLifetime: time.Hour,
	}, Start: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	const horizon = 3600.0
	const eps = 1e-3
	s := w.sites[0]
	var minor, major []float64
	v := w.newView(s, horizon, "")
	for pos := range 30 {
		a := v.article(articleID{0, pos})
		v.eventsDesc(a, horizon, func(e event) bool {
			if e.at < horizon/2 || e.at-eps <= a.created {
				return false // half an hour of changes is plenty
			}
			path := v.articlePath(a)
			before := w.newView(s, e.at-eps, "").route(path, "")
			after := w.newView(s, e.at+eps, "").route(path, "")
			r := resemblance(shingles(before.b.String()), shingles(after.b.String()))
			if e.major {
				major = append(major, r)
			} else {
				minor = append(minor, r)
			}
			return true
		})
	}
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	if len(minor) < 100 || len(major) < 30 {
		t.Fatalf("only %d minor and %d major changes to compare", len(minor), len(major))
	}
	t.Logf("mean resemblance: minor %.3f over %d, major %.3f over %d", mean(minor), len(minor), mean(major), len(major))
	t.Run("a minor change keeps most shingles", func(t *testing.T) {
		if m := mean(minor); m < 0.8 {
			t.Errorf("mean resemblance across a minor change %.3f, want ≥ 0.8", m)
		}
	})
	t.Run("a major change replaces many shingles", func(t *testing.T) {
		if m := mean(major); m > 0.6 {
			t.Errorf("mean resemblance across a major change %.3f, want ≤ 0.6", m)
		}
	})
	t.Run("every change changes the bytes", func(t *testing.T) {
		for _, r := range append(minor, major...) {
			if r == 1 {
				t.Errorf("a change left the shingles identical")
				return
			}
		}
	})
}
