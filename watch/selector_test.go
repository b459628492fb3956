package watch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// randomPage is a random tree of elements from a few tags and classes,
// some with an href, as HTML.
func randomPage(rng *rand.Rand, elements int) string {
	tags := []string{"div", "p", "span", "ul", "li", "section"}
	classes := []string{"", "a", "b", "a b"}
	var b strings.Builder
	var open []string
	for range elements {
		for len(open) > 0 && rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "</%s>", open[len(open)-1])
			open = open[:len(open)-1]
		}
		tag := tags[rng.IntN(len(tags))]
		fmt.Fprintf(&b, "<%s", tag)
		if c := classes[rng.IntN(len(classes))]; c != "" {
			fmt.Fprintf(&b, ` class="%s"`, c)
		}
		if rng.IntN(4) == 0 {
			b.WriteString(` href="x y"`)
		}
		b.WriteString(">t")
		open = append(open, tag)
	}
	return "<html><body>" + b.String() + "</body></html>"
}

// randomSelector is a random selector of the forms the walk takes.
func randomSelector(rng *rand.Rand) string {
	compounds := []string{"div", "p", "span", "li", ".a", ".b", "div.a", "*", "p:first-child", "li:nth-child(2n + 1)",
		"span:not(.a)", ":not(.a, .b)", "[href]", `[href~="y"]`, "div:has(.b)", "ul:haschild(li.a)"}
	combs := []string{" ", " > ", " + ", " ~ ", ">"}
	var alts []string
	for range 1 + rng.IntN(2) {
		s := compounds[rng.IntN(len(compounds))]
		for range rng.IntN(4) {
			s += combs[rng.IntN(len(combs))] + compounds[rng.IntN(len(compounds))]
		}
		alts = append(alts, s)
	}
	return strings.Join(alts, ", ")
}

// TestSelectorMatchesWhatCascadiaFinds: on random pages and selectors,
// the walk returns the elements goquery's Find (cascadia) returns, in the
// same order.
func TestSelectorMatchesWhatCascadiaFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		page, s := randomPage(rng, 5+rng.IntN(60)), randomSelector(rng)
		d, err := goquery.NewDocumentFromReader(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		sel, err := compileSelector(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		got, err := sel.match(d.Nodes[0], 512, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		want := d.Find(s).Nodes
		if !slices.Equal(got, want) {
			t.Fatalf("case %d, %q on %s: the walk found %d elements, cascadia %d", i, s, page, len(got), len(want))
		}
	}
}

// countingMatcher counts the nodes a compound selector is tried on.
type countingMatcher struct {
	m cascadia.Matcher
	n *int
}

func (c countingMatcher) Match(n *html.Node) bool { *c.n++; return c.m.Match(n) }

// TestSelectorWorkIsLinearInThePage: on a page 500 elements deep, where
// cascadia's Find took five minutes for "x div div div span", the walk
// tries each compound selector at most once per element.
func TestSelectorWorkIsLinearInThePage(t *testing.T) {
	const depth, spans = 500, 50
	page := strings.Repeat("<div>", depth) + strings.Repeat("<span>x</span>", spans) + strings.Repeat("</div>", depth)
	d, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := compileSelector("x div div div span, div > div ~ span")
	if err != nil {
		t.Fatal(err)
	}
	tries, steps := 0, 0
	for _, alt := range sel.alts {
		for i := range alt {
			alt[i].m = countingMatcher{alt[i].m, &tries}
			steps++
		}
	}
	got, err := sel.match(d.Nodes[0], 1000, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	// html, head, body, the divs and the spans.
	elements := 3 + depth + spans
	if tries > elements*steps {
		t.Errorf("%d compound matches on %d elements × %d steps", tries, elements, steps)
	}
	// No x holds the first alternative's divs, and no span has a div
	// among its earlier siblings, which the second needs.
	if len(got) != 0 {
		t.Errorf("%d elements matched, want none", len(got))
	}
	if sel, err = compileSelector("div > span ~ span"); err != nil {
		t.Fatal(err)
	}
	if got, err = sel.match(d.Nodes[0], 1000, 100_000); err != nil || len(got) != spans-1 {
		t.Errorf("div > span ~ span: %d elements (%v), want %d", len(got), err, spans-1)
	}
}

// TestSelectorRefusesWhatReadsMoreThanOneSubtree: selector arguments with
// combinators and the subtree-text pseudo-classes are refused at compile,
// naming the selector; the forms the walk bounds pass.
func TestSelectorRefusesWhatReadsMoreThanOneSubtree(t *testing.T) {
	for _, c := range []struct{ sel, want string }{
		{"div:has(div:has(p))", ":has(p) inside another :has()"},
		{"div:not(:has(div:haschild(p)))", ":haschild(p) inside another :has()"},
		{"div:has(div p)", ":has(div p): takes compound selectors only"},
		{":not(a .c)", ":not(a .c): takes compound selectors only"},
		{"div:has(> p)", ":has(> p): takes compound selectors only"},
		{"div:not(.a, span > b)", ":not(.a, span > b): takes compound selectors only"},
		{"div:not(:has(a b))", ":has(a b): takes compound selectors only"},
		{`p:contains("x")`, ":contains() reads the text under every element"},
		{`p:MATCHES(x)`, ":matches() reads the text under every element"},
		{"a,,b", "an empty selector in the list"},
		{"a >", "without a selector after it"},
		{"> a", "without a selector before it"},
		{"a > > b", "combinator '>' without a selector after it"},
		{"a[href", "unclosed"},
		{"a)", "unbalanced"},
	} {
		_, err := compileSelector(c.sel)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.sel, err, c.want)
		}
	}
	for _, ok := range []string{"div:has(p)", "div:not(:has(p))", ":not(.a, .b)", "li:nth-child(2n + 1)", `a[href~="x y"]`, `p:containsOwn("x")`,
		"div > p + ul ~ span", "ul:haschild(li.a)", "  div ,  p  "} {
		if _, err := compileSelector(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestSelectorRefusesAPageBeyondTheExtractLimits: a page deeper than
// max_depth, or with more elements than max_nodes, gets an error naming
// the limit, not a selection.
func TestSelectorRefusesAPageBeyondTheExtractLimits(t *testing.T) {
	page := strings.Repeat("<div>", 40) + strings.Repeat("</div>", 40)
	d, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := compileSelector("div")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sel.match(d.Nodes[0], 30, 1000); err == nil || !strings.Contains(err.Error(), "more than 30 deep (watch.extract.max_depth)") {
		t.Errorf("depth: %v", err)
	}
	if _, err := sel.match(d.Nodes[0], 100, 20); err == nil || !strings.Contains(err.Error(), "more than 20 elements (watch.extract.max_nodes)") {
		t.Errorf("nodes: %v", err)
	}
	if got, err := sel.match(d.Nodes[0], 100, 1000); err != nil || len(got) != 40 {
		t.Errorf("within the limits: %d elements, %v", len(got), err)
	}
}

// TestSelectedTextKeepsElementsApart: the text of several selected cells,
// and of the blocks inside one element, keeps their words apart, so that
// cells 10 and 25 changed to 102 and 5 are a change.
func TestSelectedTextKeepsElementsApart(t *testing.T) {
	db := openRepo(t)
	s := newSite(t)
	clk := newClock(t0)
	e := newEngine(t, db, nil, clk, Options{})
	fees := func(a, b string) string {
		return htmlPage(`<table id="f"><tr><td>Fee</td><td>` + a + `</td></tr><tr><td>Late</td><td>` + b + `</td></tr></table>` +
			`<div id="d"><p>one</p><p>two</p>three<br>four<ul><li>five</li><li>six</li></ul></div>`)
	}
	u := s.set("/f", fees("10", "25"))
	spec := Spec{URL: u, Type: Any, Selector: "#f td:last-child", Every: time.Hour}
	obj, err := e.Test(t.Context(), spec)
	if err != nil || obj.Text != "10 25" {
		t.Fatalf("Test = %q, %v; want the cells apart: 10 25", obj.Text, err)
	}
	obj, err = e.Test(t.Context(), Spec{URL: u, Type: Any, Selector: "#d", Every: time.Hour})
	if want := "one two three four five six"; err != nil || obj.Text != want {
		t.Fatalf("Test #d = %q, %v; want %q", obj.Text, err, want)
	}
	sn, err := e.Install(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	s.set("/f", fees("102", "5"))
	clk.add(time.Hour)
	if res, err := e.Check(t.Context(), u); err != nil || res.Changed != 1 {
		t.Fatalf("Check = %+v, %v; want the cells' change", res, err)
	}
	h, err := e.History(t.Context(), sn.ID)
	if err != nil || len(h) != 1 {
		t.Fatalf("History = %+v, %v; want one change", h, err)
	}
}
