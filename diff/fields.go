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
	n := 0
	eachField(s, func(int, int) { n++ })
	out := make([]string, 0, n)
	eachField(s, func(start, end int) { out = append(out, s[start:end]) })
	return out
}

// eachField calls f with the bounds of each run of s that is not white
// space, in order.
func eachField(s string, f func(start, end int)) {
	start := -1
	for i := 0; i < len(s); {
		space, size := spaceAt(s, i)
		switch {
		case space && start >= 0:
			f(start, i)
			start = -1
		case !space && start < 0:
			start = i
		}
		i += size
	}
	if start >= 0 {
		f(start, len(s))
	}
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
