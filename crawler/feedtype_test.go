package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/repo"
)

const rssBody = `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel xml:base="/blog/"><title>t</title>
<item><guid>a</guid><title>A</title><link>posts/a</link></item>
</channel></rss>`

// typedFeeds serves the same RSS body at /<name> with each Content-Type of
// types (by name), a JSON body at /feed.json as application/json, and an
// HTML page at /page.html.
func typedFeeds(types map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		switch {
		case name == "feed.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"version": "https://jsonfeed.org/version/1.1", "items": []}`)
		case name == "page.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><head><title>page</title></head><body><p>not a feed</p></body></html>`)
		case types[name] != "":
			w.Header().Set("Content-Type", types[name])
			fmt.Fprint(w, rssBody)
		default:
			http.NotFound(w, r)
		}
	})
}

// A subscribed feed's URL is fetched as a feed reader fetches it: served
// as text/plain, application/octet-stream, text/xml or application/xml, or
// with any type when the body looks like XML, the body is read and kept
// (not indexed as a page) for the feed's parser. The same URLs crawled as
// ordinary pages keep crawler.content_types: those of other types are
// refused as bad_content_type, and the refused type is on the record.
func TestFeedURLFetchedWhateverItsContentType(t *testing.T) {
	types := map[string]string{
		"plain.xml":  "text/plain; charset=utf-8",
		"octet.xml":  "application/octet-stream",
		"textxml":    "text/xml",
		"appxml":     "application/xml",
		"image.xml":  "image/png", // the body sniffed as XML
		"rss+xml":    "application/rss+xml",
		"nosuchtype": "bogus", // not a media type: the body sniffed as XML too
	}
	srv := httptest.NewServer(typedFeeds(types))
	defer srv.Close()
	ordinaryOK := map[string]bool{"textxml": true, "appxml": true, "rss+xml": true, "page.html": true}
	feedOK := map[string]bool{"plain.xml": true, "octet.xml": true, "textxml": true, "appxml": true, "image.xml": true, "nosuchtype": true, "rss+xml": true, "page.html": true}
	wantType := map[string]string{"feed.json": "application/json", "page.html": "text/html; charset=utf-8"}
	for name, ct := range types {
		wantType[name] = ct
	}
	names := []string{"feed.json", "page.html"}
	for name := range types {
		names = append(names, name)
	}
	urls := make([]string, len(names))
	for i, n := range names {
		urls[i] = srv.URL + "/" + n
	}
	for _, tc := range []struct {
		name string
		feed bool
		ok   map[string]bool
	}{
		{"ordinary crawl", false, ordinaryOK},
		{"feed poll", true, feedOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaults(t)
			cfg.Crawler.AllowPrivate = true
			cfg.Crawler.Sitemaps = false
			cfg.Crawler.Politeness.MinDelay = 0
			e := newEnv(t, cfg, t.TempDir(), nil)
			subscribed := map[string]bool{}
			for _, u := range urls {
				subscribed[u] = tc.feed
			}
			// Only the URLs above: what the feeds link to stays queued.
			e.f = e.frontier(t, frontier.Options{Feed: func(u string) bool { return subscribed[u] },
				Only: func(u string) bool { _, ok := subscribed[u]; return ok }})
			e.crawl(t, urls...)
			for i, n := range names {
				p, err := e.db.Page(urls[i])
				if err != nil {
					t.Fatalf("%s: %v", n, err)
				}
				if p.ContentType != wantType[n] {
					t.Errorf("%s: recorded Content-Type %q, want %q (outcome %s)", n, p.ContentType, wantType[n], p.LastOutcome)
				}
				if !tc.ok[n] {
					if p.LastOutcome != repo.OutcomeBadContentType || !p.Version.IsZero() {
						t.Errorf("%s served as %s: outcome %s, version %v; want bad_content_type and no copy", n, wantType[n], p.LastOutcome, p.Version)
					}
					continue
				}
				if p.LastOutcome != repo.OutcomeOK {
					t.Errorf("%s served as %s: outcome %s, want ok", n, wantType[n], p.LastOutcome)
					continue
				}
				v, err := e.db.LatestVersion(context.Background(), urls[i])
				if err != nil {
					t.Fatalf("%s: %v", n, err)
				}
				if n != "page.html" && (string(v.Body) != rssBody || !p.NoIndex) {
					t.Errorf("%s served as %s: stored %q, noindex %v; want the feed's body, not indexed", n, wantType[n], v.Body, p.NoIndex)
				}
			}
			// The item's link is relative to the channel's xml:base.
			if _, err := e.db.Page(srv.URL + "/blog/posts/a"); err != nil {
				t.Errorf("the feed's link under xml:base: %v, want it queued at /blog/posts/a", err)
			}
		})
	}
}
