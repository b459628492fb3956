package index

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search"
)

func TestSnippet(t *testing.T) {
	text := strings.Repeat("früh ", 60) + "the budget line " + strings.Repeat("später ", 60)
	at := strings.Index(text, "budget")
	locs := search.TermLocationMap{"budget": {{Start: uint64(at), End: uint64(at + len("budget"))}}}
	got := snippet(text, locs, 80)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("a cut at both ends is not marked: %q", got)
	}
	if !strings.Contains(got, "the <mark>budget</mark> line") {
		t.Errorf("match not marked: %q", got)
	}
	if !utf8.ValidString(got) || len(got) > 80+40 {
		t.Errorf("snippet of %d bytes, valid UTF-8 %v: %q", len(got), utf8.ValidString(got), got)
	}
	if s := snippet("short <b>text</b>", nil, 80); s != "short &lt;b&gt;text&lt;/b&gt;" {
		t.Errorf("no matches: %q", s)
	}
}
