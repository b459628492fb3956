package robots

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxCrawlDelay is the largest Crawl-delay taken seriously. A longer delay
// (one fetch a day or slower) is far more often a typo or a unit confusion
// than a wish, and the crawler applies its own bounds besides.
const MaxCrawlDelay = 24 * time.Hour

// Group holds the rules that apply to one crawler on one host. The zero
// value and nil allow everything.
type Group struct {
	rules    []rule // longest pattern first, Allow first among equals
	delay    float64
	hasDelay bool
}

// rule is one Allow or Disallow line.
type rule struct {
	pattern  string   // percent-normalized, without a final "$"; measured for precedence
	parts    []string // pattern split at "*"
	anchored bool     // the pattern ended in "$"
	allow    bool
	length   int // octets of the normalized pattern, "$" included
}

func newRule(value string, allow bool) rule {
	p := normalize(value)
	if p != "" && p[0] != '/' && p[0] != '*' {
		// RFC 9309 patterns start with "/"; "Disallow: private" meant the
		// same as "/private".
		p = "/" + p
	}
	r := rule{allow: allow, length: len(p)}
	if strings.HasSuffix(p, "$") {
		r.anchored, p = true, p[:len(p)-1]
	}
	r.pattern = p
	r.parts = strings.Split(p, "*")
	return r
}

func (g *Group) sort() {
	slices.SortStableFunc(g.rules, func(a, b rule) int {
		if c := cmp.Compare(b.length, a.length); c != 0 {
			return c
		}
		switch {
		case a.allow == b.allow:
			return 0
		case a.allow:
			return -1
		}
		return 1
	})
}

// Allowed reports whether the crawler may fetch pathAndQuery ("/a/b?c=d",
// as in a normalized URL; "" means "/").
func (g *Group) Allowed(pathAndQuery string) bool {
	if g == nil || len(g.rules) == 0 {
		return true
	}
	p := normalize(pathAndQuery)
	if p == "" {
		p = "/"
	}
	if p == "/robots.txt" {
		return true
	}
	for i := range g.rules {
		if g.rules[i].matches(p) {
			return g.rules[i].allow
		}
	}
	return true
}

// matches reports whether the rule's pattern matches a prefix of path (all
// of it when anchored). Literal parts between stars are found leftmost
// first, which is enough for patterns whose only wildcard is "*".
func (r *rule) matches(path string) bool {
	if len(r.parts) == 1 {
		if r.anchored {
			return path == r.pattern
		}
		return strings.HasPrefix(path, r.pattern)
	}
	first, last := r.parts[0], r.parts[len(r.parts)-1]
	if !strings.HasPrefix(path, first) {
		return false
	}
	rest := path[len(first):]
	for _, part := range r.parts[1 : len(r.parts)-1] {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	if r.anchored {
		return strings.HasSuffix(rest, last)
	}
	return strings.Contains(rest, last)
}

// CrawlDelay returns the Crawl-delay of the group and whether one was given.
func (g *Group) CrawlDelay() (time.Duration, bool) {
	if g == nil || !g.hasDelay {
		return 0, false
	}
	return time.Duration(g.delay * float64(time.Second)), true
}

// parseDelay reads a Crawl-delay value in seconds.
func parseDelay(v string) (float64, bool) {
	d, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(d) || d < 0 || d > MaxCrawlDelay.Seconds() {
		return 0, false
	}
	return d, true
}
