package extract

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// textBuf accumulates text with whitespace collapsed, up to max bytes.
type textBuf struct {
	b         []byte
	max       int
	space     bool // a separator is due before the next word
	truncated bool
}

// brk marks a word boundary (a block element's edge).
func (t *textBuf) brk() { t.space = true }

func (t *textBuf) write(s []byte) {
	if t.truncated {
		return
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
				t.space = true
				i++
				continue
			}
			if c < ' ' || c == 0x7f {
				i++ // other control characters are not text
				continue
			}
			// Copy the run of visible ASCII at once.
			j := i + 1
			for j < len(s) && s[j] > ' ' && s[j] < 0x7f {
				j++
			}
			t.sep()
			t.b = append(t.b, s[i:j]...)
			i = j
		} else {
			r, n := utf8.DecodeRune(s[i:])
			if unicode.IsSpace(r) {
				t.space = true
			} else {
				t.sep()
				t.b = append(t.b, s[i:i+n]...)
			}
			i += n
		}
		if len(t.b) > t.max {
			t.cut()
			return
		}
	}
}

func (t *textBuf) sep() {
	if t.space && len(t.b) > 0 {
		t.b = append(t.b, ' ')
	}
	t.space = false
}

// cut truncates to at most max bytes, at a word boundary unless that
// would lose more than half, else at a rune boundary.
func (t *textBuf) cut() {
	n := t.max
	for n > 0 && !utf8.RuneStart(t.b[n]) {
		n--
	}
	if t.b[n] != ' ' {
		if i := bytes.LastIndexByte(t.b[:n], ' '); i >= n/2 {
			n = i
		}
	}
	for n > 0 && t.b[n-1] == ' ' {
		n--
	}
	t.b = t.b[:n]
	t.truncated = true
}

func (t *textBuf) String() string { return string(t.b) }
