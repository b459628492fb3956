package web

import (
	"slices"
	"strings"
	"testing"
)

// TestMarkedTermsAreHighlights checks the terms the engine appends for a
// page's results, in one shared array, against those highlights parses out
// of each snippet: lower-cased (ASCII and not), distinct within a result
// but not across results.
func TestMarkedTermsAreHighlights(t *testing.T) {
	snippets := []string{
		`<mark>Tar</mark> and <mark>tar</mark> and <mark>TAR</mark>, <mark>gz</mark>`,
		`no match here`,
		`<mark>tar</mark> again, <mark>Café</mark> <mark>CAFÉ</mark> <mark>café</mark>`,
		`<mark>İstanbul</mark> <mark>istanbul</mark> <mark>ǅ</mark> <mark>ǆ</mark> <mark>Gz</mark>`,
		`<mark>A1-b</mark> <mark>a1-B</mark> <mark>a1_b</mark>`,
	}
	var terms []string
	var parts [][2]int
	for _, s := range snippets {
		text, spans, _ := highlights(s)
		from := len(terms)
		terms = markedTerms(terms, text, spans)
		parts = append(parts, [2]int{from, len(terms)})
	}
	for i, s := range snippets {
		_, _, want := highlights(s)
		if got := terms[parts[i][0]:parts[i][1]]; !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", s, got, want)
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
