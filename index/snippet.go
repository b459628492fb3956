package index

import (
	"cmp"
	"html"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search"
)

// Span is a highlighted range of a snippet's plain text: byte offsets, End
// exclusive.
type Span struct{ Start, End int }

// snippetCut is a snippet as HTML and as plain text with the matches'
// spans: the text and spans an HTML parser reads from the HTML (entities
// decoded, <mark> elements as spans). Spans is nil, and Text empty, when
// the window holds a carriage return or a NUL byte, which an HTML parser
// would rewrite.
type snippetCut struct {
	HTML  string
	Text  string
	Spans []Span
}

// snippet cuts about size bytes of text around the densest group of
// matches, escapes it for HTML and wraps each match in <mark>. Matches come
// from the term vectors of FieldText (byte offsets into the stored text).
// "…" marks a cut at either end.
func snippet[T string | []byte](text T, locs search.TermLocationMap, size int) string {
	return cutSnippet(text, locs, size).HTML
}

// cutSnippet is snippet with the plain text and spans beside the HTML.
// text may be the stored bytes themselves: only the window is copied.
func cutSnippet[T string | []byte](text T, locs search.TermLocationMap, size int) snippetCut {
	type span struct{ start, end int }
	var spans []span
	for _, ls := range locs {
		for _, l := range ls {
			s, e := int(l.Start), int(l.End)
			if s >= 0 && e <= len(text) && s < e {
				spans = append(spans, span{s, e})
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	// Drop overlaps (a phrase and its words can report the same bytes).
	kept := spans[:0]
	for _, s := range spans {
		if len(kept) > 0 && s.start < kept[len(kept)-1].end {
			continue
		}
		kept = append(kept, s)
	}
	spans = kept

	// The window starting at the match that has the most matches within size bytes.
	best, bestN := 0, 0
	for i, s := range spans {
		n := 0
		for j := i; j < len(spans) && spans[j].end <= s.start+size; j++ {
			n++
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	ws := 0
	if len(spans) > 0 {
		ws = max(0, spans[best].start-size/5)
	}
	we := min(len(text), ws+size)
	if we-ws < size {
		ws = max(0, we-size)
	}
	ws, we = wordStart(text, ws), wordEnd(text, we)
	if len(spans) > 0 {
		ws = min(ws, spans[best].start)
		we = max(we, min(len(text), spans[best].end))
	}

	var b, plain strings.Builder
	b.Grow(we - ws + 32)
	plain.Grow(we - ws + 8)
	var marks []Span
	if ws > 0 {
		b.WriteString("…")
		plain.WriteString("…")
	}
	pos := ws
	for _, s := range spans {
		if s.start < ws || s.end > we {
			continue
		}
		b.WriteString(html.EscapeString(string(text[pos:s.start])))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(string(text[s.start:s.end])))
		b.WriteString("</mark>")
		plain.WriteString(string(text[pos:s.start]))
		start := plain.Len()
		plain.WriteString(string(text[s.start:s.end]))
		marks = append(marks, Span{start, plain.Len()})
		pos = s.end
	}
	b.WriteString(html.EscapeString(string(text[pos:we])))
	plain.WriteString(string(text[pos:we]))
	if we < len(text) {
		b.WriteString("…")
		plain.WriteString("…")
	}
	out := snippetCut{HTML: strings.TrimSpace(b.String())}
	p := plain.String()
	if strings.ContainsAny(p, "\r\x00") {
		return out
	}
	// Trimmed as the HTML is: no match is white space.
	lead := len(p) - len(strings.TrimLeftFunc(p, unicode.IsSpace))
	out.Text, out.Spans = strings.TrimSpace(p), make([]Span, len(marks))
	for i, m := range marks {
		out.Spans[i] = Span{m.Start - lead, m.End - lead}
	}
	return out
}

// wordStart moves i forward past a partial word (up to 24 bytes), and at
// least to a rune boundary.
func wordStart[T string | []byte](text T, i int) int {
	if i <= 0 {
		return 0
	}
	if j := strings.IndexAny(string(text[i:min(len(text), i+24)]), " \n\t"); j >= 0 && text[i-1] != ' ' && text[i-1] != '\n' {
		return i + j + 1
	}
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	return i
}

// wordEnd moves i back before a partial word (up to 24 bytes), and at least
// to a rune boundary.
func wordEnd[T string | []byte](text T, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if j := strings.LastIndexAny(string(text[max(0, i-24):i]), " \n\t"); j >= 0 && text[i] != ' ' && text[i] != '\n' {
		return max(0, i-24) + j
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}
