package web

import (
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/deltaq/deltaq/index"
)

// Span is a highlighted range of a snippet's text: byte offsets into
// Result.SnippetText (UTF-8), End exclusive.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// highlights reads an HTML snippet whose matches are in <mark> elements
// (index.Snippets) and returns its plain text, the marked spans and the
// distinct marked words, lower-cased, in order of appearance. Other tags
// are dropped, as safeSnippet drops them.
func highlights(snippet string) (text string, spans []Span, terms []string) {
	var b strings.Builder
	spans, terms = []Span{}, []string{}
	start := -1
	z := html.NewTokenizer(strings.NewReader(snippet))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String(), spans, terms
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "mark" && start < 0 {
				start = b.Len()
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "mark" && start >= 0 {
				if start < b.Len() {
					spans = append(spans, Span{Start: start, End: b.Len()})
					terms = addTerm(terms, b.String()[start:])
				}
				start = -1
			}
		}
	}
}

// plainHighlights is highlights for a snippet whose plain text and spans
// the index gave beside it (index.Hit.Highlights), without parsing it.
func plainHighlights(text string, marks []index.Span) (spans []Span, terms []string) {
	spans, terms = make([]Span, len(marks)), []string{}
	for i, m := range marks {
		spans[i] = Span{Start: m.Start, End: m.End}
		terms = addTerm(terms, text[m.Start:m.End])
	}
	return spans, terms
}

// addTerm adds a marked word, lower-cased, to terms unless it is there.
func addTerm(terms []string, word string) []string {
	if t := strings.ToLower(word); !slices.Contains(terms, t) {
		terms = append(terms, t)
	}
	return terms
}
