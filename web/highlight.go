package web

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/deltaq/deltaq/index"
)

// Span is a highlighted range of a snippet's text: byte offsets into
// Result.SnippetText (UTF-8), End exclusive. It is the index's, so a hit's
// highlights are a result's as they are.
type Span = index.Span

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
					terms = addTerm(terms, 0, b.String()[start:])
				}
				start = -1
			}
		}
	}
}

// markedTerms is highlights' terms for a snippet whose plain text and
// spans the index gave beside it (index.Hit.Highlights), without parsing
// it: the terms are appended to terms, made distinct among those appended.
func markedTerms(terms []string, text string, marks []Span) []string {
	from := len(terms)
	for _, m := range marks {
		terms = addTerm(terms, from, text[m.Start:m.End])
	}
	return terms
}

// addTerm adds a marked word, lower-cased, to terms unless terms[from:]
// hold it.
func addTerm(terms []string, from int, word string) []string {
	if !containsLower(terms[from:], word) {
		terms = append(terms, strings.ToLower(word))
	}
	return terms
}

// containsLower reports whether terms hold strings.ToLower(word), without
// lower-casing an ASCII word into a new string: a word is marked each
// time it occurs, and mostly capitalized or not, rarely new.
func containsLower(terms []string, word string) bool {
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			return slices.Contains(terms, strings.ToLower(word))
		}
	}
	for _, t := range terms {
		if len(t) == len(word) && asciiLowerEqual(t, word) {
			return true
		}
	}
	return false
}

// asciiLowerEqual reports whether t is the ASCII word w (of t's length)
// lower-cased.
func asciiLowerEqual(t, w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if t[i] != c {
			return false
		}
	}
	return true
}
