package extract

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"golang.org/x/net/html/atom"
)

var testLimits = Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 256, MaxNodes: 100000}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func extract(t *testing.T, body, contentType, page string) *Document {
	t.Helper()
	doc, err := HTML([]byte(body), contentType, mustURL(t, page), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestTLDRPage(t *testing.T) {
	doc, err := HTML(readTestdata(t, "tldr-tar.html"), "text/html", mustURL(t, "https://tldr.example/common/tar.html"), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "tar — tldr pages" {
		t.Errorf("Title = %q", doc.Title)
	}
	if doc.Language != "en" || doc.Charset != "utf-8" {
		t.Errorf("Language %q, Charset %q", doc.Language, doc.Charset)
	}
	if !strings.HasPrefix(doc.Text, "tar Archiving utility. Often combined with a compression method, such as gzip or bzip2. More information:") {
		t.Errorf("Text starts %q", doc.Text[:min(len(doc.Text), 120)])
	}
	for _, gone := range []string{"tldr pages", "Search", "licensed", "Click to copy", "font-family"} {
		if strings.Contains(doc.Text, gone) {
			t.Errorf("Text holds %q from outside <main>", gone)
		}
	}
	if !strings.Contains(doc.Text, "[c]reate an archive and write it to a [f]ile: tar cf path/to/target.tar") {
		t.Errorf("block elements do not separate words: %q", doc.Text)
	}
	if doc.Canonical != "https://tldr.example/common/tar.html" {
		t.Errorf("Canonical = %q", doc.Canonical)
	}
	want := []Link{
		{"https://tldr.example/common/tar.html", KindCanonical, false},
		{"https://tldr.example/feed.xml", KindFeed, false},
		{"https://tldr.example/", KindAnchor, false},
		{"https://tldr.example/common/", KindAnchor, false},
		{"https://tldr.example/linux/", KindAnchor, false},
		{"https://tldr.example/osx/", KindAnchor, false},
		{"https://tldr.example/windows/", KindAnchor, false},
		{"https://tldr.example/android/", KindAnchor, false},
		{"https://www.gnu.org/software/tar/", KindAnchor, false},
		{"https://tldr.example/common/gzip.html", KindAnchor, false},
		{"https://tldr.example/common/bzip2.html", KindAnchor, false},
		{"https://tldr.example/common/xz.html", KindAnchor, false},
		{"https://tldr.example/common/zip.html", KindAnchor, false},
		{"https://tldr.example/linux/%5B.html", KindAnchor, false},
		{"https://github.com/tldr-pages/tldr/blob/main/pages/common/tar.md", KindAnchor, true},
	}
	if !slices.Equal(doc.Links, want) {
		t.Errorf("Links:\n got %v\nwant %v", doc.Links, want)
	}
	if doc.LinksSkipped != 1 { // mailto:
		t.Errorf("LinksSkipped = %d, want 1", doc.LinksSkipped)
	}
}

func TestDigitalGovArticle(t *testing.T) {
	page := "https://digital.gov/2023/05/11/a-new-way-to-build-accessible-forms/"
	doc, err := HTML(readTestdata(t, "digitalgov-article.html"), "text/html; charset=utf-8", mustURL(t, page), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "A new way to build accessible forms | Digital.gov" || doc.Language != "en-US" {
		t.Errorf("Title %q, Language %q", doc.Title, doc.Language)
	}
	if !strings.HasPrefix(doc.Text, "Home News A new way to build accessible forms ") {
		t.Errorf("Text starts %q", doc.Text[:min(len(doc.Text), 120)])
	}
	for _, want := range []string{"by Jane Doe and Sam Roe May 11, 2023", "Forms should work on every device.", "Topics:"} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("Text lacks %q", want)
		}
	}
	for _, gone := range []string{"official website", "Skip to main content", "Share:", "Related", "Upcoming events",
		"Return to top", "Technology Transformation Services", "dataLayer", "Join a community"} {
		if strings.Contains(doc.Text, gone) {
			t.Errorf("Text holds %q", gone)
		}
	}
	if doc.Canonical != page || doc.Robots != (Robots{}) {
		t.Errorf("Canonical %q, Robots %+v", doc.Canonical, doc.Robots)
	}
	kinds := map[Kind]int{}
	for _, l := range doc.Links {
		kinds[l.Kind]++
		if !strings.HasPrefix(l.URL, "https://") {
			t.Errorf("link %q is not absolute https", l.URL)
		}
	}
	if kinds[KindCanonical] != 1 || kinds[KindFeed] != 1 || kinds[KindAnchor] < 100 {
		t.Errorf("link kinds %v", kinds)
	}
	if doc.LinksSkipped != 2 { // mailto: and javascript:
		t.Errorf("LinksSkipped = %d, want 2", doc.LinksSkipped)
	}
}

func TestMainContentSelection(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"without main the whole body counts",
			`<body><nav>Menu</nav><p>Hello <b>bold</b> world</p><footer>Foot</footer></body>`, "Menu Hello bold world Foot"},
		{"main content is preferred",
			`<body><header>Site</header><nav>Menu</nav><main><p>Body text</p></main><footer>Foot</footer></body>`, "Body text"},
		{"article content is preferred",
			`<body><nav>Menu</nav><article><h1>Title</h1><p>Body</p></article><aside>Ads</aside></body>`, "Title Body"},
		{"several articles are joined",
			`<body><nav>Menu</nav><article>One</article><div>between</div><article>Two</article></body>`, "One Two"},
		{"nav and aside inside main are dropped",
			`<main><nav>Crumbs</nav><p>Text</p><aside>Share</aside><p>More</p></main>`, "Text More"},
		{"header and footer inside an article are kept",
			`<article><header><h1>Head</h1><time>May 1</time></header><p>Text</p><footer>Tags</footer></article>`, "Head May 1 Text Tags"},
		{"an empty main falls back to the body",
			`<body><p>Shell</p><main></main></body>`, "Shell"},
		{"nav outside main does not hide main",
			`<nav><ul><li>a</li></ul></nav><main>Kept</main>`, "Kept"},
		{"an unclosed aside inside main ends with main",
			`<main><aside>x</main><main>y</main>`, "y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extract(t, tc.body, "", "http://a.example/").Text; got != tc.want {
				t.Fatalf("Text = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTextCleaning(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"scripts and styles are dropped", `<p>a</p><script>var x = "<p>no</p>";</script><style>p{}</style><p>b</p>`, "a b"},
		{"noscript, template, svg, math, iframe, canvas, select and object are dropped",
			`a<noscript>n</noscript><template>t</template><svg><title>s</title><text>s</text></svg><math>m</math><iframe>i</iframe><canvas>c</canvas><select><option>o</option></select><object>o</object>b`, "a b"},
		{"a self-closing script still hides its content", `<p>a</p><script/>hidden()</script><p>b</p>`, "a b"},
		{"whitespace collapses", "<p>  a \n\t b\u00a0\u00a0c  </p>", "a b c"},
		{"inline elements do not separate words", `<p>un<b>bel</b><i>iev</i><a href="/x">able</a></p>`, "unbelievable"},
		{"block elements separate words", `<div>a</div><div>b</div><p>c</p>d<br>e<li>f<td>g`, "a b c d e f g"},
		{"entities are decoded", `<p>caf&eacute; &amp; cr&egrave;me&nbsp;br&ucirc;l&eacute;e &#8212; &lt;ok&gt;</p>`, "café & crème brûlée — <ok>"},
		{"head content is not text", `<html><head><title>T</title><meta name="x"></head><body>b</body></html>`, "b"},
		{"a body element ends an unclosed head", `<head><title>T</title><p>text</p>`, "text"},
		{"comments are dropped", `<p>a<!-- hidden --></p>b`, "a b"},
		{"control characters are not text", "<p>a\x00b\x1bc\x7fd</p>", "abcd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extract(t, tc.body, "", "http://a.example/").Text; got != tc.want {
				t.Fatalf("Text = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"the title is trimmed and collapsed", "<title>\n  A   page\n</title>", "A page"},
		{"the first title wins", "<title>One</title><title>Two</title>", "One"},
		{"an svg title is not the page title", "<body><svg><title>Icon</title></svg><title>Real</title>", "Real"},
		{"entities in the title are decoded", "<title>Q&amp;A &mdash; help</title>", "Q&A — help"},
		{"no title is empty", "<p>x</p>", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extract(t, tc.body, "", "http://a.example/").Title; got != tc.want {
				t.Fatalf("Title = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	page := "https://example.com/dir/page.html?x=1"
	for _, tc := range []struct {
		name, body string
		want       []Link
		skipped    int
	}{
		{"relative links resolve against the page", `<a href="other.html">o</a><a href="../up/">u</a><a href="//cdn.example.com/x">c</a>`,
			[]Link{{"https://example.com/dir/other.html", KindAnchor, false}, {"https://example.com/up/", KindAnchor, false}, {"https://cdn.example.com/x", KindAnchor, false}}, 0},
		{"a base href is honoured", `<head><base href="https://other.example/base/"></head><a href="x">x</a>`,
			[]Link{{"https://other.example/base/x", KindAnchor, false}}, 0},
		{"a relative base href resolves against the page", `<base href="/root/"><a href="x">x</a>`,
			[]Link{{"https://example.com/root/x", KindAnchor, false}}, 0},
		{"only the first base counts", `<base href="/one/"><base href="/two/"><a href="x">x</a>`,
			[]Link{{"https://example.com/one/x", KindAnchor, false}}, 0},
		{"non-http targets are skipped", `<a href="mailto:a@b">m</a><a href="javascript:void(0)">j</a><a href="data:text/html,x">d</a><a href="tel:1">t</a><a href="http://[bad">b</a>`,
			nil, 5},
		{"links to the page itself are left out", `<a href="#top">t</a><a href="">e</a><a href="?x=1#f">q</a><a href="page.html">p</a>`,
			[]Link{{"https://example.com/dir/page.html", KindAnchor, false}}, 0},
		{"nofollow, ugc and sponsored are nofollow", `<a href="/a" rel="nofollow">a</a><a href="/b" rel="noopener UGC">b</a><a href="/c" rel="sponsored">c</a><a href="/d" rel="noopener">d</a>`,
			[]Link{{"https://example.com/a", KindAnchor, true}, {"https://example.com/b", KindAnchor, true}, {"https://example.com/c", KindAnchor, true}, {"https://example.com/d", KindAnchor, false}}, 0},
		{"a link appears once; one followable occurrence clears nofollow", `<a href="/a" rel="nofollow">1</a><a href="/a">2</a><a href="/A/../a">3</a>`,
			[]Link{{"https://example.com/a", KindAnchor, false}}, 0},
		{"area links are anchors", `<map><area href="/area" alt="x"></map>`,
			[]Link{{"https://example.com/area", KindAnchor, false}}, 0},
		{"a canonical link is its own kind", `<link rel="canonical" href="/canon"><a href="/canon">c</a>`,
			[]Link{{"https://example.com/canon", KindCanonical, false}, {"https://example.com/canon", KindAnchor, false}}, 0},
		{"RSS and Atom alternates are feeds, others are not", `<link rel="alternate" type="application/rss+xml" href="/rss"><link rel="Alternate" type="application/atom+xml; charset=utf-8" href="/atom"><link rel="alternate" hreflang="es" href="/es/"><link rel="stylesheet" href="/s.css">`,
			[]Link{{"https://example.com/rss", KindFeed, false}, {"https://example.com/atom", KindFeed, false}}, 0},
		{"link targets are normalized", `<a href="HTTPS://Example.COM:443/%7euser/./x#frag">x</a>`,
			[]Link{{"https://example.com/~user/x", KindAnchor, false}}, 0},
		{"whitespace around an href is ignored", "<a href=\"\n  /spaced \n\">x</a>",
			[]Link{{"https://example.com/spaced", KindAnchor, false}}, 0},
		{"an anchor without href is not a link", `<a name="x">x</a>`, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := extract(t, tc.body, "", page)
			if !slices.Equal(doc.Links, tc.want) {
				t.Errorf("Links:\n got %v\nwant %v", doc.Links, tc.want)
			}
			if doc.LinksSkipped != tc.skipped {
				t.Errorf("LinksSkipped = %d, want %d", doc.LinksSkipped, tc.skipped)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	doc := extract(t, `<link rel="canonical" href="mailto:x"><link rel="canonical" href="/c1"><link rel="canonical" href="/c2">`, "", "http://a.example/p")
	if doc.Canonical != "http://a.example/c1" {
		t.Fatalf("Canonical = %q, want the first valid one", doc.Canonical)
	}
	doc = extract(t, `<link rel="canonical" href="">`, "", "http://a.example/p?q")
	if doc.Canonical != "http://a.example/p?q" {
		t.Fatalf("a self canonical: Canonical = %q", doc.Canonical)
	}
}

func TestRefresh(t *testing.T) {
	page := "http://a.example/dir/p"
	for _, tc := range []struct {
		name, content string
		want          *Refresh
	}{
		{"a delay and a URL", `5; url=/next`, &Refresh{5 * time.Second, "http://a.example/next"}},
		{"a quoted URL", `0;URL='next?a=1'`, &Refresh{0, "http://a.example/dir/next?a=1"}},
		{"a comma and no url=", `3, http://b.example/`, &Refresh{3 * time.Second, "http://b.example/"}},
		{"a delay alone reloads the page", `30`, &Refresh{30 * time.Second, ""}},
		{"a fraction is ignored", `1.5; url=/x`, &Refresh{time.Second, "http://a.example/x"}},
		{"an absurd delay is capped", `99999999999999999999; url=/x`, &Refresh{24 * time.Hour, "http://a.example/x"}},
		{"no number is no refresh", `url=/x`, nil},
		{"a javascript target is no refresh", `0; url=javascript:alert(1)`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := extract(t, `<meta http-equiv="Refresh" content="`+tc.content+`">`, "", page)
			switch {
			case tc.want == nil && doc.Refresh != nil:
				t.Fatalf("Refresh = %+v, want none", *doc.Refresh)
			case tc.want != nil && (doc.Refresh == nil || *doc.Refresh != *tc.want):
				t.Fatalf("Refresh = %+v, want %+v", doc.Refresh, *tc.want)
			}
			if tc.want != nil && tc.want.URL != "" && !slices.Contains(doc.Links, Link{tc.want.URL, KindRefresh, false}) {
				t.Fatalf("no refresh link in %v", doc.Links)
			}
		})
	}
}

func TestRobotsMeta(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Robots
	}{
		{"noindex", `<meta name="robots" content="noindex">`, Robots{NoIndex: true}},
		{"nofollow in capitals", `<meta name="ROBOTS" content="NOFOLLOW">`, Robots{NoFollow: true}},
		{"none is both", `<meta name="robots" content="none">`, Robots{true, true}},
		{"a list", `<meta name="robots" content="noarchive, noindex,nofollow">`, Robots{true, true}},
		{"several metas add up", `<meta name="robots" content="noindex"><meta name="robots" content="nofollow">`, Robots{true, true}},
		{"index, follow is nothing", `<meta name="robots" content="index, follow">`, Robots{}},
		{"googlebot meta is not read", `<meta name="googlebot" content="noindex, nofollow">`, Robots{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extract(t, tc.body, "", "http://a.example/").Robots; got != tc.want {
				t.Fatalf("Robots = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRobotsTag(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		want   Robots
	}{
		{"no header", nil, Robots{}},
		{"noindex", []string{"noindex"}, Robots{NoIndex: true}},
		{"a list", []string{"noindex, nofollow"}, Robots{true, true}},
		{"several values", []string{"noarchive", "none"}, Robots{true, true}},
		{"a crawler-scoped value is ignored", []string{"googlebot: noindex"}, Robots{}},
		{"unscoped directives before a scope count", []string{"nofollow, otherbot: noindex"}, Robots{NoFollow: true}},
		{"unavailable_after is not a scope", []string{"unavailable_after: 25 Jun 2010 15:00:00 PST, noindex"}, Robots{NoIndex: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RobotsTag(tc.values...); got != tc.want {
				t.Fatalf("RobotsTag(%q) = %+v, want %+v", tc.values, got, tc.want)
			}
		})
	}
	if got := (Robots{NoIndex: true}).Union(Robots{NoFollow: true}); got != (Robots{true, true}) {
		t.Fatalf("Union = %+v", got)
	}
}

func TestLanguage(t *testing.T) {
	if got := extract(t, `<html lang=" de-AT "><body lang="fr">x`, "", "http://a.example/").Language; got != "de-AT" {
		t.Fatalf("Language = %q", got)
	}
	if got := extract(t, `<p>x`, "", "http://a.example/").Language; got != "" {
		t.Fatalf("Language = %q, want none", got)
	}
}

func TestLimits(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString(`<p><a href="/p` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `">word</a></p>`)
	}
	lim := Limits{MaxLinks: 10, MaxTextBytes: 23, MaxDepth: 256, MaxNodes: 100000}
	doc, err := HTML([]byte(b.String()+`<a href="/pab">again</a>`), "", mustURL(t, "http://a.example/"), lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Links) != 10 || doc.LinksDropped != 40 {
		t.Errorf("kept %d links, dropped %d; want 10 and 40 (a repeat is not counted twice)", len(doc.Links), doc.LinksDropped)
	}
	if doc.Text != "word word word word" || !doc.TextTruncated {
		t.Errorf("Text = %q, truncated %v; want cut at 23 bytes on a word edge", doc.Text, doc.TextTruncated)
	}

	doc, err = HTML([]byte("<p>é"+strings.Repeat("ü", 10)), "", mustURL(t, "http://a.example/"), Limits{MaxLinks: 1, MaxTextBytes: 6, MaxDepth: 1, MaxNodes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "éüü" || !doc.TextTruncated {
		t.Errorf("Text = %q: not cut on a rune boundary", doc.Text)
	}

	doc, err = HTML([]byte(strings.Repeat("<p>x</p>", 100)), "", mustURL(t, "http://a.example/"), Limits{MaxLinks: 1, MaxTextBytes: 1000, MaxDepth: 10, MaxNodes: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.NodesTruncated || doc.Text != "x x x x x" {
		t.Errorf("NodesTruncated %v, Text %q; want the parse stopped after 5 tags", doc.NodesTruncated, doc.Text)
	}
}

func TestHostileNesting(t *testing.T) {
	deep := strings.Repeat("<div>", 100000) + "deep" + strings.Repeat("</div>", 100000)
	doc, err := HTML([]byte("<main>"+deep+"</main><script>evil()</script><p>after"), "", mustURL(t, "http://a.example/"),
		Limits{MaxLinks: 10, MaxTextBytes: 1000, MaxDepth: 100, MaxNodes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Text, "evil") || !strings.Contains(doc.Text, "deep") {
		t.Fatalf("Text = %q", doc.Text)
	}
	unclosed := strings.Repeat("<li><p><span><b>", 50000) + "x"
	if _, err := HTML([]byte(unclosed), "", mustURL(t, "http://a.example/"), testLimits); err != nil {
		t.Fatal(err)
	}
}

func TestHTMLRejectsBadArguments(t *testing.T) {
	if _, err := HTML(nil, "", nil, testLimits); err == nil {
		t.Error("a nil page URL was accepted")
	}
	if _, err := HTML(nil, "", mustURL(t, "ftp://a.example/"), testLimits); err == nil {
		t.Error("an ftp page URL was accepted")
	}
	_, err := HTML(nil, "", mustURL(t, "http://a.example/"), Limits{MaxLinks: -1})
	if err == nil {
		t.Fatal("invalid limits were accepted")
	}
	for _, key := range []string{"extract.max_links = -1", "extract.max_text_bytes = 0", "extract.max_depth = 0", "extract.max_nodes = 0"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not name %q", err, key)
		}
	}
	huge := testLimits
	huge.MaxTextBytes = 1 << 62
	if err := huge.Validate(); err == nil || !strings.Contains(err.Error(), "extract.max_text_bytes = 4611686018427387904: must be <= 1073741824") {
		t.Errorf("max_text_bytes 2^62: %v, want it refused naming the limit", err)
	}
	var target interface{ Unwrap() []error }
	if !errors.As(err, &target) || len(target.Unwrap()) != 4 {
		t.Errorf("want all four problems joined, got %v", err)
	}
}

// TestLimitsUpperBounds: a count far past any page is refused with its key
// and range; the bound itself is accepted. The same Limits bound
// crawler.extract, watch.extract and eval.discovery.extract.
func TestLimitsUpperBounds(t *testing.T) {
	fresh := func() Limits { return testLimits }
	boundstest.Check(t, "extract.", fresh, (*Limits).Validate, []boundstest.Setting[Limits]{
		{Key: "max_links", Lo: 1, Hi: maxLinksLimit, Set: func(l *Limits, v int64) { l.MaxLinks = int(v) }},
		{Key: "max_depth", Lo: 1, Hi: maxDepthLimit, Set: func(l *Limits, v int64) { l.MaxDepth = int(v) }},
		{Key: "max_nodes", Lo: 1, Hi: maxNodesLimit, Set: func(l *Limits, v int64) { l.MaxNodes = int(v) }},
	})
}

func TestEmptyBody(t *testing.T) {
	doc := extract(t, "", "", "http://a.example/")
	if doc.Text != "" || doc.Title != "" || len(doc.Links) != 0 || doc.Charset != "utf-8" {
		t.Fatalf("%+v", doc)
	}
}

func TestTagAtom(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want atom.Atom
	}{
		{"<div>", atom.Div}, {"<DIV class=x>", atom.Div}, {"</P >", atom.P}, {"<br/>", atom.Br},
		{"<a\nhref=x>", atom.A}, {"<my-widget>", 0}, {"<" + strings.Repeat("x", 40) + ">", 0}, {"<>", 0}, {"<", 0},
	} {
		if got := tagAtom([]byte(tc.raw)); got != tc.want {
			t.Errorf("tagAtom(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
