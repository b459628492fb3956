package discovery

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const site = "s.test"

// u returns the absolute URL of a page name on the test site.
func u(name string) string { return "http://" + site + "/" + name }

// us maps names to URLs.
func us(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = u(n)
	}
	return out
}

// snapshot builds H_t from a link list "a>b c; b>c" (page a links to b and
// c, page b to c) in which the pages named in old are old and every other
// page is new. Every name that appears is a page.
func snapshot(t testing.TB, links string, old ...string) *Bipartite {
	t.Helper()
	g := graphOf(t, links)
	isOld := map[string]bool{}
	for _, o := range old {
		if _, ok := g.ID(u(o)); !ok {
			t.Fatalf("old page %q is not in the graph", o)
		}
		isOld[u(o)] = true
	}
	return Cover(g, func(url string) bool { return isOld[url] })
}

func graphOf(t testing.TB, links string) *Graph {
	t.Helper()
	g := NewGraph(0)
	for _, part := range strings.Split(links, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		from, tos, ok := strings.Cut(part, ">")
		id := g.AddPage(u(strings.TrimSpace(from)))
		if !ok {
			continue
		}
		for _, to := range strings.Fields(tos) {
			g.AddLink(id, g.AddPage(u(to)))
		}
	}
	return g
}

// coverOf builds H_t in which each old page links directly to the new
// pages listed: coverOf(t, "a:1 2 3", "b:3 4") has N(a) = {n1, n2, n3}.
func coverOf(t testing.TB, spec ...string) *Bipartite {
	t.Helper()
	var links []string
	var old []string
	for _, s := range spec {
		x, ys, _ := strings.Cut(s, ":")
		old = append(old, x)
		var targets []string
		for _, y := range strings.Fields(ys) {
			targets = append(targets, "n"+y)
		}
		links = append(links, x+">"+strings.Join(targets, " "))
	}
	return snapshot(t, strings.Join(links, ";"), old...)
}

// neighbours returns N(x) of h as sorted page names.
func neighbours(h *Bipartite, x string) []string {
	var out []string
	for _, y := range h.Yield(u(x)) {
		out = append(out, strings.TrimPrefix(y, "http://"+site+"/"))
	}
	slices.Sort(out)
	return out
}

// names strips the site from URLs.
func names(urls []string) []string {
	out := make([]string, len(urls))
	for i, x := range urls {
		out[i] = strings.TrimPrefix(x, "http://"+site+"/")
	}
	return out
}

func same(a, b []string) bool { return slices.Equal(a, b) }

func show(v any) string { return fmt.Sprintf("%v", v) }
