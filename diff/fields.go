package diff

import (
	"unicode"
	"unicode/utf8"
)

// Fields splits s around runs of white space, as strings.Fields does.
// It counts the words first and allocates the result once. For text with
// a rune outside ASCII, strings.Fields falls back to FieldsFunc, which
// collects the word boundaries in a slice it grows, and a page's text
// usually has one such rune (a curly quote, a dash): that growing slice
// was most of what splitting a changed page allocated.
func Fields(s string) []string {
	n, inWord := 0, false
	for i := 0; i < len(s); {
		space, size := spaceAt(s, i)
		if !space && !inWord {
			n++
		}
		inWord = !space
		i += size
	}
	out := make([]string, 0, n)
	start := -1
	for i := 0; i < len(s); {
		space, size := spaceAt(s, i)
		switch {
		case space && start >= 0:
			out = append(out, s[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
		i += size
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// spaceAt reports whether the rune at s[i] is white space, and its size.
func spaceAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiSpace[c], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), size
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
