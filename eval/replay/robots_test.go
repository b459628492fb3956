package replay

import (
	"net/http"
	"testing"
)

func TestRobots(t *testing.T) {
	a := realArchive(t, "tldr-en")
	web := newTestWeb(t, Options{RobotsExtra: map[string][]string{"tldr-en": {"Disallow: /osx/", "Crawl-delay: 1"}}}, a)
	cases := []struct {
		name string
		host string
		want string
	}{
		{"robots.txt allows all after the extra lines and names the sitemap", "tldr-en.test",
			"User-agent: *\nDisallow: /osx/\nCrawl-delay: 1\nAllow: /\n\nSitemap: http://tldr-en.test/sitemap.xml\n"},
		{"the sitemap line keeps the port of the Host header", "tldr-en.test:8088",
			"User-agent: *\nDisallow: /osx/\nCrawl-delay: 1\nAllow: /\n\nSitemap: http://tldr-en.test:8088/sitemap.xml\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := web.doHost(t, tc.host, http.MethodGet, "/robots.txt")
			if r.status != 200 || string(r.body) != tc.want {
				t.Fatalf("status %d, body:\n%s\nwant:\n%s", r.status, r.body, tc.want)
			}
			if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	t.Run("an archive without extra lines gets the plain robots.txt", func(t *testing.T) {
		plain := newTestWeb(t, Options{}, a)
		want := "User-agent: *\nAllow: /\n\nSitemap: http://tldr-en.test/sitemap.xml\n"
		if r := plain.get(t, "/robots.txt"); string(r.body) != want {
			t.Fatalf("body:\n%s\nwant:\n%s", r.body, want)
		}
	})
}
