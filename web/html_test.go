package web

import (
	"html/template"
	"testing"
)

// TestMarkedSnippetIsSafeSnippet: a snippet rendered from its plain text
// and highlights is what re-escaping its HTML gives, for snippets with
// entities, markup characters, several marks and none; hostile text stays
// text; highlights out of order or out of the text fall back to the HTML.
func TestMarkedSnippetIsSafeSnippet(t *testing.T) {
	for _, s := range []string{
		`<mark>Tar</mark> and <mark>tar</mark>, &lt;b&gt; &amp; &#34;quoted&#34; &#39;single&#39;`,
		`no match here`,
		``,
		`…the <mark>budget</mark>&#39;s <mark>café</mark>…`,
		`<mark>a</mark><mark>b</mark>`,
		`the <mark>R&amp;D</mark> budget`,
		`&lt;script&gt;alert(1)&lt;/script&gt; <mark>x</mark>`,
	} {
		text, spans, _ := highlights(s)
		r := Result{Snippet: s, SnippetText: text, Highlights: spans}
		if got, want := markedSnippet(r), safeSnippet(s); got != want {
			t.Errorf("%s:\n got %s\nwant %s", s, got, want)
		}
	}
	hostile := Result{SnippetText: `<script>alert(1)</script> budget`, Highlights: []Span{{Start: 26, End: 32}}}
	if got, want := markedSnippet(hostile), template.HTML(`&lt;script&gt;alert(1)&lt;/script&gt; <mark>budget</mark>`); got != want {
		t.Errorf("hostile text: got %s, want %s", got, want)
	}
	html := `a <mark>budget</mark>`
	for _, bad := range [][]Span{{{Start: 2, End: 8}, {Start: 0, End: 1}}, {{Start: 2, End: 99}}, {{Start: -1, End: 2}}, {{Start: 3, End: 3}}} {
		r := Result{Snippet: html, SnippetText: "a budget", Highlights: bad}
		if got, want := markedSnippet(r), safeSnippet(html); got != want {
			t.Errorf("highlights %v: got %s, want %s", bad, got, want)
		}
	}
}
