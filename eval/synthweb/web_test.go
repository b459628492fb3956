package synthweb_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
)

// samplePaths are pages of every kind on site0 and site1 at start+10m.
func samplePaths(t *testing.T, e *env, at time.Time) []string {
	t.Helper()
	seen := map[synthweb.PageKind]int{}
	var urls []string
	for _, p := range e.web.Pages(at) {
		if seen[p.Kind] < 3 {
			seen[p.Kind]++
			urls = append(urls, p.URL)
		}
	}
	return append(urls, "http://site1.synth.test/atom.xml")
}

func TestDeterminism(t *testing.T) {
	a, b := newEnv(t, testConfig()), newEnv(t, testConfig())
	cfg := testConfig()
	cfg.Seed = 43
	other := newEnv(t, cfg)
	for _, d := range []time.Duration{0, 10 * time.Minute, 3 * time.Hour} {
		at := a.at(d)
		b.at(d)
		other.at(d)
		t.Run("the same seed serves the same bytes at "+d.String(), func(t *testing.T) {
			for _, u := range samplePaths(t, a, at) {
				ra, rb := a.get(t, u), b.get(t, u)
				if ra.status != http.StatusOK || ra.body != rb.body || ra.header.Get("ETag") != rb.header.Get("ETag") {
					t.Errorf("%s: status %d/%d, bodies equal %v", u, ra.status, rb.status, ra.body == rb.body)
				}
			}
		})
		t.Run("a different seed serves different bytes at "+d.String(), func(t *testing.T) {
			for _, u := range []string{"http://site0.synth.test/", "http://site0.synth.test/about.html"} {
				if a.get(t, u).body == other.get(t, u).body {
					t.Errorf("%s: seeds 42 and 43 serve the same bytes", u)
				}
			}
		})
	}
}

func TestPagesMatchWhatIsServed(t *testing.T) {
	e := newEnv(t, testConfig())
	for _, d := range []time.Duration{-30 * time.Minute, 0, 25 * time.Minute, 2 * time.Hour} {
		at := e.at(d)
		t.Run("every page of the ground truth is served with its validators at "+d.String(), func(t *testing.T) {
			pages := e.web.Pages(at)
			if d >= 0 && len(pages) < 3*40 {
				t.Fatalf("Pages returned %d pages, want at least the %d initial articles", len(pages), 3*40)
			}
			for _, p := range pages {
				r := e.get(t, p.URL)
				if r.status != http.StatusOK {
					t.Fatalf("GET %s = %d", p.URL, r.status)
				}
				if got := r.header.Get("ETag"); got != p.ETag {
					t.Errorf("GET %s: ETag %s, Pages says %s", p.URL, got, p.ETag)
				}
				if got, want := r.header.Get("Last-Modified"), p.Modified.UTC().Format(http.TimeFormat); got != want {
					t.Errorf("GET %s: Last-Modified %s, Pages says %s", p.URL, got, want)
				}
				if p.Modified.After(at) {
					t.Errorf("%s: modified %v after now %v", p.URL, p.Modified, at)
				}
			}
		})
		t.Run("no page links to a site URL that does not exist at "+d.String(), func(t *testing.T) {
			pages := e.web.Pages(at)
			exists := byURL(pages)
			for _, p := range pages {
				for _, l := range p.Links {
					if strings.Contains(l, ".synth.test") && !strings.HasPrefix(l, "http://trap") {
						if _, ok := exists[l]; !ok {
							t.Errorf("%s links to %s, which is not a page", p.URL, l)
						}
					}
				}
			}
		})
	}
}

func TestHTTPBehaviour(t *testing.T) {
	e := newEnv(t, testConfig())
	at := e.at(20 * time.Minute)
	var article synthweb.PageInfo
	for _, p := range e.web.Pages(at) {
		if p.Kind == synthweb.KindArticle {
			article = p
			break
		}
	}
	full := e.get(t, article.URL)
	tests := []struct {
		name   string
		method string
		url    string
		hdr    []string
		status int
		check  func(t *testing.T, r response)
	}{
		{"an article is HTML with validators", "GET", article.URL, nil, 200, func(t *testing.T, r response) {
			if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if n := len(strings.Fields(r.body)); n < 250 {
				t.Errorf("article has %d words, want several hundred", n)
			}
		}},
		{"HEAD sends the headers and no body", "HEAD", article.URL, nil, 200, func(t *testing.T, r response) {
			if r.body != "" || r.header.Get("ETag") != article.ETag || r.header.Get("Content-Length") != full.header.Get("Content-Length") {
				t.Errorf("HEAD: body %d bytes, ETag %s, length %s", len(r.body), r.header.Get("ETag"), r.header.Get("Content-Length"))
			}
		}},
		{"If-None-Match with the current ETag is 304", "GET", article.URL, []string{"If-None-Match", article.ETag}, 304, nil},
		{"If-Modified-Since the Last-Modified is 304", "GET", article.URL,
			[]string{"If-Modified-Since", full.header.Get("Last-Modified")}, 304, nil},
		{"If-None-Match with another ETag is 200", "GET", article.URL, []string{"If-None-Match", `"0000"`}, 200, nil},
		{"RSS feeds say so", "GET", "http://site0.synth.test/feed.xml", nil, 200, func(t *testing.T, r response) {
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/rss+xml") {
				t.Errorf("Content-Type %q", ct)
			}
		}},
		{"Atom feeds say so", "GET", "http://site1.synth.test/atom.xml", nil, 200, func(t *testing.T, r response) {
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
				t.Errorf("Content-Type %q", ct)
			}
		}},
		{"the port in Host is ignored for routing and kept in absolute links", "GET", "http://site0.synth.test:8123/", nil, 200,
			func(t *testing.T, r response) {
				if !strings.Contains(r.body, `href="http://site1.synth.test:8123/"`) {
					t.Errorf("home page does not link site1 with the request's port")
				}
			}},
		{"an unknown host is 404", "GET", "http://site99.synth.test/", nil, 404, nil},
		{"a trap host is 404 without adversarial mode", "GET", "http://trap.synth.test/", nil, 404, nil},
		{"an unknown path is 404", "GET", "http://site0.synth.test/nope.html", nil, 404, nil},
		{"a wrong slug is 404", "GET", strings.Replace(article.URL, ".html", "-x.html", 1), nil, 404, nil},
		{"an unknown query is 404", "GET", article.URL + "?utm=1", nil, 404, nil},
		{"page=1 is not a second name for a hub", "GET", "http://site0.synth.test/world/?page=1", nil, 404, nil},
		{"a hub page past the end is 404", "GET", "http://site0.synth.test/world/?page=999", nil, 404, nil},
		{"POST is not allowed", "POST", article.URL, nil, 405, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, t.Context(), tt.method, tt.url, tt.hdr...)
			if r.status != tt.status {
				t.Fatalf("%s %s = %d, want %d", tt.method, tt.url, r.status, tt.status)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestConditionalGETAfterChange(t *testing.T) {
	e := newEnv(t, testConfig())
	t0 := e.at(5 * time.Minute)
	var fast synthweb.PageInfo
	for _, p := range e.web.Pages(t0) {
		if p.Kind == synthweb.KindArticle && p.Rate > fast.Rate {
			fast = p
		}
	}
	first := e.get(t, fast.URL)
	etag, lm := first.header.Get("ETag"), first.header.Get("Last-Modified")
	if r := e.get(t, fast.URL, "If-None-Match", etag); r.status != http.StatusNotModified {
		t.Fatalf("unchanged page: If-None-Match gave %d, want 304", r.status)
	}
	// Step until the ground truth says the page changed.
	var t1 time.Time
	for d := time.Minute; d < 24*time.Hour; d += time.Minute {
		if p, ok := byURL(e.web.Pages(t0.Add(d)))[fast.URL]; ok && p.ETag != etag {
			t1 = t0.Add(d)
			break
		}
	}
	if t1.IsZero() {
		t.Fatalf("%s (rate %g/s) never changed in a day", fast.URL, fast.Rate)
	}
	e.clock.Set(t1)
	t.Run("If-None-Match with the old ETag is 200 after a change", func(t *testing.T) {
		r := e.get(t, fast.URL, "If-None-Match", etag)
		if r.status != http.StatusOK || r.header.Get("ETag") == etag {
			t.Errorf("status %d, ETag %s (old %s)", r.status, r.header.Get("ETag"), etag)
		}
	})
	t.Run("If-Modified-Since the old Last-Modified is 200 after a change", func(t *testing.T) {
		if r := e.get(t, fast.URL, "If-Modified-Since", lm); r.status != http.StatusOK {
			t.Errorf("status %d, want 200", r.status)
		}
	})
}

func TestRobotsDisallowedDirectoryIsLinked(t *testing.T) {
	e := newEnv(t, testConfig())
	e.at(10 * time.Minute)
	robots := e.get(t, "http://site0.synth.test/robots.txt")
	for _, want := range []string{"User-agent: *\n", "Disallow: /private/\n", "Crawl-delay: 1\n", "Sitemap: http://site0.synth.test/sitemap.xml\n"} {
		if !strings.Contains(robots.body, want) {
			t.Errorf("site0 robots.txt lacks %q:\n%s", want, robots.body)
		}
	}
	if strings.Contains(e.get(t, "http://site1.synth.test/robots.txt").body, "Crawl-delay") {
		t.Errorf("site1 has a Crawl-delay; only site0 should")
	}
	t.Run("pages link into the disallowed directory", func(t *testing.T) {
		home := e.get(t, "http://site0.synth.test/")
		if !strings.Contains(home.body, `href="/private/`) {
			t.Errorf("home page has no link under /private/")
		}
	})
	t.Run("fetching it is counted", func(t *testing.T) {
		before := e.web.DisallowedFetches()
		if r := e.get(t, "http://site0.synth.test/private/account.html"); r.status != http.StatusOK {
			t.Fatalf("status %d", r.status)
		}
		if got := e.web.DisallowedFetches(); got != before+1 {
			t.Errorf("DisallowedFetches = %d, want %d", got, before+1)
		}
	})
}

func TestSampleQueries(t *testing.T) {
	e := newEnv(t, testConfig())
	qs := e.web.SampleQueries(20)
	if len(qs) != 20 {
		t.Fatalf("SampleQueries(20) returned %d", len(qs))
	}
	at := e.at(6 * time.Hour)
	var texts []string
	for _, p := range e.web.Pages(at) {
		if p.Kind == synthweb.KindArticle {
			texts = append(texts, strings.ToLower(e.get(t, p.URL).body))
		}
	}
	for _, q := range qs {
		found := false
		for _, text := range texts {
			all := true
			for _, w := range strings.Fields(q) {
				all = all && strings.Contains(text, w)
			}
			if all {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("query %q matches no article six hours in", q)
		}
	}
}

func TestDialContextReachesOnlySyntheticHosts(t *testing.T) {
	e := newEnv(t, testConfig())
	dial := synthweb.DialContext(e.srv.Listener.Addr().String())
	for _, addr := range []string{"127.0.0.1:1", "10.0.0.1:80", "example.com:80", "synth.test.example.com:80"} {
		t.Run("refuses "+addr, func(t *testing.T) {
			conn, err := dial(t.Context(), "tcp", addr)
			if err == nil {
				conn.Close()
				t.Fatalf("dialled %s", addr)
			}
			if !errors.Is(err, synthweb.ErrNotSynthetic) {
				t.Errorf("err = %v, want ErrNotSynthetic", err)
			}
		})
	}
	t.Run("connects a site host to the server", func(t *testing.T) {
		conn, err := dial(t.Context(), "tcp", "site2.synth.test:80")
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
	})
}
