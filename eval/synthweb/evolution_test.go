package synthweb_test

import (
	"encoding/xml"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
)

func TestNewArticlesAreDiscoverable(t *testing.T) {
	e := newEnv(t, testConfig())
	t0, t1 := start.Add(10*time.Minute), start.Add(40*time.Minute)
	after := e.web.Pages(t1)
	var listed, chained []synthweb.PageInfo
	for _, p := range e.web.Changes(t0, t1).Added {
		if p.Kind != synthweb.KindArticle {
			continue
		}
		if !p.Published.After(t0) {
			t.Errorf("%s added in (t0, t1] but published %v", p.URL, p.Published)
		}
		if p.Listed {
			listed = append(listed, p)
		} else {
			chained = append(chained, p)
		}
	}
	if len(listed) < 10 || len(chained) < 3 {
		t.Fatalf("%d listed and %d chained new articles in 30 minutes on 3 sites; want ≥ 10 and ≥ 3", len(listed), len(chained))
	}
	e.clock.Set(t1)
	t.Run("a listed new article is linked from a section hub", func(t *testing.T) {
		for _, p := range listed {
			hubs := 0
			for _, from := range linkedFrom(after, p.URL) {
				if from.Kind == synthweb.KindSection {
					hubs++
					if r := e.get(t, from.URL); !strings.Contains(r.body, `href="`+pathOf(p.URL)+`"`) {
						t.Errorf("hub %s does not link %s over HTTP", from.URL, p.URL)
					}
				}
			}
			if hubs == 0 {
				t.Errorf("no section hub links new article %s", p.URL)
			}
		}
	})
	t.Run("the newest listed article is on its site's home page", func(t *testing.T) {
		newest := listed[0]
		for _, p := range listed {
			if p.Published.After(newest.Published) {
				newest = p
			}
		}
		home := newest.URL[:strings.Index(newest.URL, ".test/")+len(".test/")]
		if r := e.get(t, home); !strings.Contains(r.body, pathOf(newest.URL)) {
			t.Errorf("home %s does not list the newest article %s", home, newest.URL)
		}
	})
	t.Run("a chained new article is linked only from articles, one of them its parent", func(t *testing.T) {
		for _, p := range chained {
			continued := 0
			for _, f := range linkedFrom(after, p.URL) {
				if f.Kind != synthweb.KindArticle {
					t.Errorf("chained article %s is linked from %s (%s)", p.URL, f.URL, f.Kind)
					continue
				}
				// Its parent continues to it; its own next part links back.
				if r := e.get(t, f.URL); strings.Contains(r.body, "Continue reading: <a href=\""+pathOf(p.URL)) {
					continued++
					if !f.Published.Before(p.Published) {
						t.Errorf("%s continues to %s but is not older", f.URL, p.URL)
					}
				}
			}
			if continued != 1 {
				t.Errorf("%d pages continue to chained article %s, want its parent", continued, p.URL)
			}
		}
	})
}

func TestDeletedArticlesAreGone(t *testing.T) {
	e := newEnv(t, testConfig())
	t0, t1 := start, start.Add(90*time.Minute)
	var removed []string
	for _, u := range e.web.Changes(t0, t1).Removed {
		if !strings.Contains(u, "/private/") {
			removed = append(removed, u)
		}
	}
	if len(removed) < 5 {
		t.Fatalf("%d articles deleted in 90 minutes, want ≥ 5", len(removed))
	}
	e.clock.Set(t1)
	after := e.web.Pages(t1)
	for _, u := range removed {
		t.Run("deleted "+pathOf(u)+" is 404 and unlinked", func(t *testing.T) {
			if r := e.get(t, u); r.status != http.StatusNotFound {
				t.Errorf("GET = %d, want 404", r.status)
			}
			for _, p := range linkedFrom(after, u) {
				t.Errorf("still linked from %s", p.URL)
			}
		})
	}
}

type rss struct {
	Items []struct {
		Link string `xml:"link"`
	} `xml:"channel>item"`
}

type atom struct {
	Entries []struct {
		Link struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
	} `xml:"entry"`
}

type urlset struct {
	URLs []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

func TestFeedsAndSitemapsListCurrentArticles(t *testing.T) {
	cfg := testConfig()
	e := newEnv(t, cfg)
	for _, d := range []time.Duration{0, 45 * time.Minute, 3 * time.Hour} {
		at := e.at(d)
		pages := e.web.Pages(at)
		for site, home := range e.web.SeedURLs()[:2] {
			var articles []synthweb.PageInfo
			for _, p := range pages {
				if p.Kind == synthweb.KindArticle && p.Listed && strings.HasPrefix(p.URL, home) {
					articles = append(articles, p)
				}
			}
			slices.SortFunc(articles, func(a, b synthweb.PageInfo) int { return b.Published.Compare(a.Published) })
			t.Run("the feed lists the newest articles of "+home+" at "+d.String(), func(t *testing.T) {
				var got []string
				if site%2 == 0 {
					var f rss
					if err := xml.Unmarshal([]byte(e.get(t, home+"feed.xml").body), &f); err != nil {
						t.Fatalf("parse RSS: %v", err)
					}
					for _, it := range f.Items {
						got = append(got, it.Link)
					}
				} else {
					var f atom
					if err := xml.Unmarshal([]byte(e.get(t, home+"atom.xml").body), &f); err != nil {
						t.Fatalf("parse Atom: %v", err)
					}
					for _, en := range f.Entries {
						got = append(got, en.Link.Href)
					}
				}
				var want []string
				for _, a := range articles[:min(cfg.FeedSize, len(articles))] {
					want = append(want, a.URL)
				}
				if !slices.Equal(got, want) {
					t.Errorf("feed items\n got %q\nwant %q", got, want)
				}
			})
			t.Run("the sitemap lists every listed article of "+home+" with its lastmod at "+d.String(), func(t *testing.T) {
				var sm urlset
				if err := xml.Unmarshal([]byte(e.get(t, home+"sitemap.xml").body), &sm); err != nil {
					t.Fatalf("parse sitemap: %v", err)
				}
				lastmod := map[string]string{}
				for _, u := range sm.URLs {
					lastmod[u.Loc] = u.LastMod
				}
				for _, a := range articles {
					lm, ok := lastmod[a.URL]
					if !ok {
						t.Errorf("sitemap lacks %s", a.URL)
					} else if want := a.Modified.UTC().Format("2006-01-02T15:04:05Z"); lm != want {
						t.Errorf("%s: lastmod %s, want %s", a.URL, lm, want)
					}
				}
				if n := len(sm.URLs) - len(articles); n != 1+cfg.Sections+16+1 {
					t.Errorf("sitemap has %d non-article URLs, want home, sections, 16 tags and about", n)
				}
			})
		}
	}
}
