package index

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a highlighted range of a snippet's plain text: byte offsets
// (UTF-8), End exclusive.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// CheckSpans reports whether spans are highlights of a text of n bytes as
// the index cuts them: each non-empty, after the one before it and inside
// the text. Spans from elsewhere (a peer, another backend) are checked
// before the text is sliced at them.
func CheckSpans(spans []Span, n int) error {
	end := 0
	for i, s := range spans {
		if s.Start < end || s.End <= s.Start || s.End > n {
			return fmt.Errorf("highlights[%d] = [%d, %d): need %d ≤ start < end ≤ %d (the text's length)", i, s.Start, s.End, end, n)
		}
		end = s.End
	}
	return nil
}

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

// cutPageSnippet is cutSnippet for a page's stored text,
// IndexedText(title, text). A result shows its title above its snippet,
// so the snippet is cut from the main text after a heading that repeats
// the title: around the matches there, or from its start when only the
// title matches (what the page says, not its title twice). A page without
// main text has its title cut, one with a heading alone the heading.
func cutPageSnippet[T string | []byte](stored T, title string, matches []Span, size int, bufs *snippetBufs) snippetCut {
	return cutSnippetFrom(stored, snippetStart(stored, title), matches, size, bufs)
}

// snippetStart is where cutPageSnippet cuts a page's stored text from:
// after the title, the blank line and a heading that repeats the title;
// 0 (the whole text) when the text is not a title and main text, or is a
// title alone. A snapshot keeps it per page (snapText.snippetAt), so a
// search does not read the title's bytes again.
func snippetStart[T string | []byte](stored T, title string) int {
	start := mainTextStart(stored, title)
	if start == 0 || start == len(stored) {
		return 0
	}
	if h := headingLen(stored[start:], title); start+h < len(stored) {
		start += h
	}
	return start
}

// cutSnippetFrom is cutSnippet for stored[start:], given matches in stored.
func cutSnippetFrom[T string | []byte](stored T, start int, matches []Span, size int, bufs *snippetBufs) snippetCut {
	if start == 0 {
		return cutSnippet(stored, matches, size, bufs)
	}
	inMain := matches[:0]
	for _, m := range matches {
		if m.Start >= start {
			inMain = append(inMain, Span{m.Start - start, m.End - start})
		}
	}
	return cutSnippet(stored[start:], inMain, size, bufs)
}

// mainTextStart is where the main text starts in stored, the text
// IndexedText(title, text) made: after the title and the blank line, or 0
// when stored does not start with them.
func mainTextStart[T string | []byte](stored T, title string) int {
	if title == "" || !hasPrefix(stored, title) || !hasPrefix(stored[len(title):], titleBreak) {
		return 0
	}
	return len(title) + len(titleBreak)
}

// hasPrefix is strings.HasPrefix for stored text of either type.
func hasPrefix[T string | []byte](s T, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

// titleSeparators end the part of a title that names the page, before the
// site's name ("Page | Site").
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " :: "}

// headingLen is the length of the heading text starts with, and the
// white space after it: text's first words when they are the title, or
// the title's part before a separator (extraction joins a page's blocks
// with spaces, so its main heading, most often the title again, is told
// only by repeating it). 0 when text starts otherwise.
func headingLen[T string | []byte](text T, title string) int {
	n := 0
	for n < len(text) && n < len(title) && text[n] == title[n] {
		n++
	}
	for n > 0 && isSnippetSpace(title[n-1]) {
		n--
	}
	if n == 0 || n < len(title) && !slices.ContainsFunc(titleSeparators, func(sep string) bool { return strings.HasPrefix(title[n:], sep) }) {
		return 0
	}
	if n < len(text) {
		var next [utf8.UTFMax]byte
		r, _ := utf8.DecodeRune(next[:copy(next[:], text[n:])])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return 0 // the title's words end inside one of text's
		}
	}
	for n < len(text) && isSnippetSpace(text[n]) {
		n++
	}
	return n
}

// snippetBufs are cutSnippet's working buffers, kept from one snippet
// to the next of a result page (what it returns is copied out of them).
type snippetBufs struct {
	html, plain []byte
	spans       []Span   // the matches of every page shown, one page after another
	locs        [][]Span // each page's part of spans
}

// cutSnippet cuts about size bytes of text around the densest group of
// matches (byte ranges, in any order; it sorts them in place): the HTML,
// escaped with each match in <mark>, the plain text and the matches' spans
// in it. "…" marks a cut at either end. text may be the stored bytes
// themselves: only the window is copied, into bufs.
func cutSnippet[T string | []byte](text T, matches []Span, size int, bufs *snippetBufs) snippetCut {
	spans := matches[:0]
	for _, m := range matches {
		if m.Start >= 0 && m.End <= len(text) && m.Start < m.End {
			spans = append(spans, m)
		}
	}
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	// Drop overlaps (a phrase and its words can report the same bytes).
	kept := spans[:0]
	for _, s := range spans {
		if len(kept) > 0 && s.Start < kept[len(kept)-1].End {
			continue
		}
		kept = append(kept, s)
	}
	spans = kept

	// The window starting at the match that has the most matches within size bytes.
	best, bestN := 0, 0
	for i, s := range spans {
		n := 0
		for j := i; j < len(spans) && spans[j].End <= s.Start+size; j++ {
			n++
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	ws := 0
	if len(spans) > 0 {
		ws = max(0, spans[best].Start-size/5)
	}
	we := min(len(text), ws+size)
	if we-ws < size {
		ws = max(0, we-size)
	}
	ws, we = wordStart(text, ws), wordEnd(text, we)
	if len(spans) > 0 {
		ws = min(ws, spans[best].Start)
		we = max(we, min(len(text), spans[best].End))
	}

	b := slices.Grow(bufs.html[:0], we-ws+32)
	plain := slices.Grow(bufs.plain[:0], we-ws+8)
	defer func() { bufs.html, bufs.plain = b[:0], plain[:0] }()
	n := 0
	for _, s := range spans {
		if s.Start >= ws && s.End <= we {
			n++
		}
	}
	marks := make([]Span, 0, n)
	if ws > 0 {
		b = append(b, "…"...)
		plain = append(plain, "…"...)
	}
	pos := ws
	for _, s := range spans {
		if s.Start < ws || s.End > we {
			continue
		}
		b = appendEscaped(b, text[pos:s.Start])
		b = append(b, "<mark>"...)
		b = appendEscaped(b, text[s.Start:s.End])
		b = append(b, "</mark>"...)
		plain = append(plain, text[pos:s.Start]...)
		start := len(plain)
		plain = append(plain, text[s.Start:s.End]...)
		marks = append(marks, Span{start, len(plain)})
		pos = s.End
	}
	b = appendEscaped(b, text[pos:we])
	plain = append(plain, text[pos:we]...)
	if we < len(text) {
		b = append(b, "…"...)
		plain = append(plain, "…"...)
	}
	html := bytes.TrimSpace(b)
	if bytes.IndexByte(plain, '\r') >= 0 || bytes.IndexByte(plain, 0) >= 0 {
		return snippetCut{HTML: string(html)}
	}
	// Trimmed as the HTML is: no match is white space. The HTML and the
	// text are made one string, written after the HTML in its buffer.
	lead := len(plain) - len(bytes.TrimLeftFunc(plain, unicode.IsSpace))
	both := string(append(html, bytes.TrimSpace(plain)...))
	for i := range marks {
		marks[i] = Span{marks[i].Start - lead, marks[i].End - lead}
	}
	return snippetCut{HTML: both[:len(html)], Text: both[len(html):], Spans: marks}
}

// htmlSpecial is 1 for the bytes html.EscapeString replaces.
var htmlSpecial = [256]uint8{'<': 1, '>': 1, '&': 1, '\'': 1, '"': 1}

// appendEscaped appends s escaped as html.EscapeString escapes it.
func appendEscaped[T string | []byte](b []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		// Eight bytes at a time, the OR of their marks tested once: few
		// need escaping.
		for i+8 <= len(s) {
			w := s[i : i+8]
			if htmlSpecial[w[0]]|htmlSpecial[w[1]]|htmlSpecial[w[2]]|htmlSpecial[w[3]]|htmlSpecial[w[4]]|htmlSpecial[w[5]]|htmlSpecial[w[6]]|htmlSpecial[w[7]] != 0 {
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		if htmlSpecial[s[i]] == 0 { // one load, where the switch below compares five times
			continue
		}
		var esc string
		switch s[i] {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// wordStart moves i forward past a partial word (up to 24 bytes), and at
// least to a rune boundary.
func wordStart[T string | []byte](text T, i int) int {
	if i <= 0 {
		return 0
	}
	if text[i-1] != ' ' && text[i-1] != '\n' {
		for j := i; j < min(len(text), i+24); j++ {
			if isSnippetSpace(text[j]) {
				return j + 1
			}
		}
	}
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	return i
}

// isSnippetSpace reports whether c separates words for wordStart and
// wordEnd: a space, newline or tab.
func isSnippetSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }

// wordEnd moves i back before a partial word (up to 24 bytes), and at least
// to a rune boundary.
func wordEnd[T string | []byte](text T, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if text[i] != ' ' && text[i] != '\n' {
		for j := i - 1; j >= max(0, i-24); j-- {
			if isSnippetSpace(text[j]) {
				return j
			}
		}
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}
