package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/index"
)

// TestPlainHighlightsAreHighlights checks the spans and terms the engine
// appends for a page's results, in shared arrays, against those
// highlights parses out of each snippet: terms lower-cased (ASCII and
// not), distinct within a result but not across results.
func TestPlainHighlightsAreHighlights(t *testing.T) {
	snippets := []string{
		`<mark>Tar</mark> and <mark>tar</mark> and <mark>TAR</mark>, <mark>gz</mark>`,
		`no match here`,
		`<mark>tar</mark> again, <mark>Café</mark> <mark>CAFÉ</mark> <mark>café</mark>`,
		`<mark>İstanbul</mark> <mark>istanbul</mark> <mark>ǅ</mark> <mark>ǆ</mark> <mark>Gz</mark>`,
		`<mark>A1-b</mark> <mark>a1-B</mark> <mark>a1_b</mark>`,
	}
	var spans []Span
	var terms []string
	type part struct{ spans, terms [2]int }
	var parts []part
	for _, s := range snippets {
		text, want, _ := highlights(s)
		marks := make([]index.Span, len(want))
		for i, sp := range want {
			marks[i] = index.Span{Start: sp.Start, End: sp.End}
		}
		p := part{spans: [2]int{len(spans), 0}, terms: [2]int{len(terms), 0}}
		spans, terms = plainHighlights(spans, terms, text, marks)
		p.spans[1], p.terms[1] = len(spans), len(terms)
		parts = append(parts, p)
	}
	for i, s := range snippets {
		_, wantSpans, wantTerms := highlights(s)
		p := parts[i]
		gotSpans, gotTerms := spans[p.spans[0]:p.spans[1]], terms[p.terms[0]:p.terms[1]]
		if !slices.Equal(gotSpans, wantSpans) || !slices.Equal(gotTerms, wantTerms) {
			t.Errorf("%s:\n got %v %q\nwant %v %q", s, gotSpans, gotTerms, wantSpans, wantTerms)
		}
	}
}

// TestContainsLowerIsToLower checks the lower-casing comparison against
// strings.ToLower.
func TestContainsLowerIsToLower(t *testing.T) {
	words := []string{"", "tar", "Tar", "TAR", "ta", "tarr", "gz", "@[`{", "`", "café", "CAFÉ", "İ", "i̇", "ǅ", "ǆ", "K", "k", "\xff", "a\x00"}
	for _, list := range [][]string{nil, {"tar"}, {"gz", "café", "i̇"}, {"ǆ", "k", "@[`{"}, {"\xff", "a\x00", ""}} {
		for _, w := range words {
			if got, want := containsLower(list, w), slices.Contains(list, strings.ToLower(w)); got != want {
				t.Errorf("containsLower(%q, %q) = %v, want %v", list, w, got, want)
			}
		}
	}
}
