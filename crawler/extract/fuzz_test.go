package extract

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

func FuzzHTML(f *testing.F) {
	f.Add(readTestdata(f, "tldr-tar.html"), "text/html")
	f.Add(readTestdata(f, "digitalgov-article.html"), "text/html; charset=utf-8")
	f.Add([]byte(`<base href="/b/"><a href="x" rel=nofollow>x</a><link rel=canonical href=y><meta http-equiv=refresh content="1;url='z'"><meta name=robots content=none>`), "")
	f.Add([]byte("<meta charset=shift_jis><title>\x82\xa0</title><main><nav>n</nav>m</main>"), "text/html; charset=x")
	f.Add([]byte("\xff\xfe<\x00p\x00>\x00"), "")
	f.Add([]byte("<script/>a</script><svg><p>b</svg><textarea>c<p>d</textarea>"), "")
	page, err := url.Parse("https://example.com/dir/page.html")
	if err != nil {
		f.Fatal(err)
	}
	lim := Limits{MaxLinks: 20, MaxTextBytes: 500, MaxDepth: 32, MaxNodes: 2000}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		doc, err := HTML(body, contentType, page, lim)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Links) > lim.MaxLinks || len(doc.Text) > lim.MaxTextBytes || len(doc.Title) > lim.MaxTextBytes {
			t.Fatalf("limits broken: %d links, %d text bytes, %d title bytes", len(doc.Links), len(doc.Text), len(doc.Title))
		}
		for _, s := range []string{doc.Text, doc.Title} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8: %q", s)
			}
			if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
				t.Fatalf("whitespace not collapsed: %q", s)
			}
		}
		for _, l := range doc.Links {
			if n, err := urlnorm.Normalize(l.URL); err != nil || n != l.URL {
				t.Fatalf("link %q is not normalized (%q, %v)", l.URL, n, err)
			}
		}
		if doc.Canonical != "" {
			if n, err := urlnorm.Normalize(doc.Canonical); err != nil || n != doc.Canonical {
				t.Fatalf("canonical %q is not normalized", doc.Canonical)
			}
		}
	})
}
