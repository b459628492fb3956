// Package excerpt cuts a value an error message repeats (a query, a URL,
// a user name) to a length a reader takes in at a glance: a value refused
// for its length may be megabytes long, and repeated whole it would bury
// the message.
package excerpt

import "strconv"

// Of returns s cut to its first n characters, "…" marking a cut.
func Of(s string, n int) string {
	if cut, ok := cutAt(s, n); ok {
		return s[:cut] + "…"
	}
	return s
}

// Quoted returns s quoted as %q quotes it, cut to its first n characters,
// "…" after the closing quote marking a cut.
func Quoted(s string, n int) string {
	if cut, ok := cutAt(s, n); ok {
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// cutAt returns the byte offset of s's (n+1)-th character, and whether s
// has more than n characters.
func cutAt(s string, n int) (int, bool) {
	chars := 0
	for i := range s {
		if chars == n {
			return i, true
		}
		chars++
	}
	return len(s), false
}
