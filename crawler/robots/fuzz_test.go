package robots

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzParse parses arbitrary bodies and checks every rule's matcher against
// a regular expression built from the same pattern.
func FuzzParse(f *testing.F) {
	f.Add([]byte("User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n"), "foobot", "/example/a.gif")
	f.Add([]byte("user-agent: a\nallow: /a*b*c$\ndisallow: /\ncrawl-delay: 1.5\nsitemap: x"), "a", "/a/b/c")
	f.Add([]byte("\xef\xbb\xbfuser-agent: *\r\ndisallow: /%7e%zz%E3%83%84ツ\r\n"), "b", "/~%zz/ツ")
	f.Add([]byte("user-agent *\ndisallow /**$$\n"), "x", "/$")
	f.Fuzz(func(t *testing.T, body []byte, agent, path string) {
		g := Parse(body).Group(agent)
		allowed := g.Allowed(path)
		p := normalize(path)
		if p == "" {
			p = "/"
		}
		if p == "/robots.txt" && !allowed {
			t.Fatalf("/robots.txt refused")
		}
		for i := range g.rules {
			r := &g.rules[i]
			re := "^" + strings.ReplaceAll(regexp.QuoteMeta(r.pattern), `\*`, ".*")
			if r.anchored {
				re += "$"
			}
			want := regexp.MustCompile("(?s)" + re).MatchString(p)
			if got := r.matches(p); got != want {
				t.Fatalf("pattern %q anchored=%v on %q: matches = %v, regexp says %v", r.pattern, r.anchored, p, got, want)
			}
		}
		if normalize(p) != p {
			t.Fatalf("normalize is not idempotent: %q -> %q", p, normalize(p))
		}
	})
}
