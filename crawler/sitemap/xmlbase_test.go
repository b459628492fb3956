package sitemap

import (
	"net/url"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// A feed item's link is resolved against the xml:base in effect at the
// element it came from, and then, as the crawler does, against the feed's
// own URL.
func TestXMLBase(t *testing.T) {
	const atomNS = `xmlns="http://www.w3.org/2005/Atom"`
	for _, tc := range []struct {
		name, doc, body string
		want            []string
	}{{
		name: "a base on <feed> holds for its entries",
		doc:  "https://feeds.example.com/atom.xml",
		body: `<feed ` + atomNS + ` xml:base="https://example.org/blog/">
			<entry><link href="posts/1"/></entry>
			<entry><link href="https://other.example/abs"/></entry>
		</feed>`,
		want: []string{"https://example.org/blog/posts/1", "https://other.example/abs"},
	}, {
		name: "an entry's relative base is resolved against the feed's",
		doc:  "https://feeds.example.com/atom.xml",
		body: `<feed ` + atomNS + ` xml:base="https://example.org/blog/">
			<entry xml:base="sub/"><link href="x"/></entry>
			<entry><link href="y"/></entry>
		</feed>`,
		want: []string{"https://example.org/blog/sub/x", "https://example.org/blog/y"},
	}, {
		name: "a <link> element's own base holds for its href",
		doc:  "https://feeds.example.com/atom.xml",
		body: `<feed ` + atomNS + ` xml:base="https://example.org/blog/">
			<entry><link xml:base="../news/" href="y"/></entry>
			<entry><link rel="self" xml:base="https://wrong.example/" href="z"/><link xml:base="https://cdn.example.net/a/" href="b"/></entry>
			<entry><link href="c"/></entry>
		</feed>`,
		want: []string{"https://example.org/news/y", "https://cdn.example.net/a/b", "https://example.org/blog/c"},
	}, {
		name: "a relative base on <feed> is resolved against the document's URL",
		doc:  "https://example.com/feeds/atom.xml",
		body: `<feed ` + atomNS + ` xml:base="blog/">
			<entry><link href="posts/1"/></entry>
			<entry xml:base="../archive/"><link href="p?q=1#f"/></entry>
			<entry xml:base="../../../up/"><link href="u"/></entry>
			<entry xml:base="/root/"><link href="r"/></entry>
			<entry xml:base="//cdn.example.net/s/"><link href="s"/></entry>
		</feed>`,
		want: []string{
			"https://example.com/feeds/blog/posts/1",
			"https://example.com/feeds/archive/p?q=1",
			"https://example.com/up/u",
			"https://example.com/root/r",
			"https://cdn.example.net/s/s",
		},
	}, {
		name: "an unparsable or overlong base is ignored",
		doc:  "https://feeds.example.com/atom.xml",
		body: `<feed ` + atomNS + ` xml:base="https://example.org/blog/">
			<entry xml:base="https://[::1"><link href="a"/></entry>
			<entry xml:base="%zz"><link href="b"/></entry>
			<entry xml:base="https://long.example/` + strings.Repeat("x", maxField) + `/"><link href="c"/></entry>
		</feed>`,
		want: []string{"https://example.org/blog/a", "https://example.org/blog/b", "https://example.org/blog/c"},
	}, {
		name: "a base on an RSS 2.0 <channel> holds for its items' links",
		doc:  "https://feeds.example.com/rss.xml",
		body: `<rss version="2.0"><channel xml:base="https://example.org/news/">
			<link>https://example.org/</link>
			<item><link>2024/a</link></item>
			<item><link xml:base="/other/">b</link></item>
		</channel></rss>`,
		want: []string{"https://example.org/news/2024/a", "https://example.org/other/b"},
	}, {
		name: "without a base, links stay relative to the document",
		doc:  "https://feeds.example.com/blog/atom.xml",
		body: `<feed ` + atomNS + `>
			<entry xml:base="https://example.org/"><link href="a"/></entry>
			<entry><link href="b"/></entry>
		</feed>`,
		want: []string{"https://example.org/a", "https://feeds.example.com/blog/b"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse([]byte(tc.body), testLimits)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := url.Parse(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range res.URLs {
				s, err := urlnorm.Resolve(doc, u.Loc)
				if err != nil {
					t.Fatalf("resolve %q: %v", u.Loc, err)
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("links\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// A link without any xml:base in effect is returned exactly as written.
func TestXMLBaseAbsentKeepsLinks(t *testing.T) {
	body := `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href=" ./a/../b?x#y "/></entry></feed>`
	res, err := Parse([]byte(body), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	checkURLs(t, res.URLs, []URL{{Loc: "./a/../b?x#y", Priority: 0.5}})
}

// Resolving a base that is itself relative and then a reference gives,
// against any document URL, what resolving both in turn against it gives.
func TestResolveRefRelativeBase(t *testing.T) {
	docs := []string{"https://h.example/", "https://h.example/a/b/c", "https://h.example/a/b/", "https://h.example/a?q"}
	bases := []string{"", "x/", "x/y", "./", "../", "../../z/", "x/../", "?bq", "#bf", "x/.", "x/..", "/abs/", "//cdn.example/p/"}
	refs := []string{"", "r", "r/", "../r", "../../../r", "./", "..", "?rq", "#rf", "r?rq#rf", "/root", "//o.example/p", "https://s.example/t"}
	for _, d := range docs {
		du, _ := url.Parse(d)
		for _, b := range bases {
			bu, _ := url.Parse(b)
			for _, r := range refs {
				ru, _ := url.Parse(r)
				composed, ok := resolveRef(b, ru, r)
				if !ok {
					t.Errorf("resolveRef(%q, %q) failed", b, r)
					continue
				}
				cu, err := url.Parse(composed)
				if err != nil {
					t.Errorf("resolveRef(%q, %q) = %q, unparsable: %v", b, r, composed, err)
					continue
				}
				want := du.ResolveReference(bu).ResolveReference(ru)
				got := du.ResolveReference(cu)
				if r == "" {
					// net/url keeps the base's fragment for an empty
					// reference, RFC 3986 does not; links are never empty.
					want.Fragment, got.Fragment = "", ""
				}
				if got.String() != want.String() {
					t.Errorf("against %s: resolveRef(%q, %q) = %q gives %s, want %s", d, b, r, composed, got, want)
				}
			}
		}
	}
}

// A sitemap's locations are absolute by protocol and kept as written, even
// under an xml:base.
func TestXMLBaseIgnoredInSitemaps(t *testing.T) {
	body := `<urlset xml:base="https://example.org/a/"><url><loc>b</loc></url></urlset>`
	res, err := Parse([]byte(body), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	checkURLs(t, res.URLs, []URL{{Loc: "b", Priority: 0.5}})
}
