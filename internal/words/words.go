// Package words splits text into the keywords a keyword-search interface
// matches: lower-cased runs of letters and digits, English stop words
// dropped. The replay's added search interface indexes pages with it and
// relations draw their query keywords with it, so both sides agree on what
// a keyword is (Yang et al. §3: a row is a bag of words, a query a set of
// them).
//
// Usage:
//
//	for _, w := range words.Split("The tar archiving utility") { ... } // "tar", "archiving", "utility"
//	words.Distinct("a b a") // ["b"] (a is a stop word)
package words

import (
	"strings"
	"unicode"
)

// Split returns the keywords of s in order, repeats kept.
func Split(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w := strings.ToLower(f)
		if !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

// Distinct returns the keywords of s once each, in first-seen order.
func Distinct(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range Split(s) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// IsStop reports whether w (lower case) is a stop word.
func IsStop(w string) bool { return stop[w] }

// stop is a short English stop list: the words a title bag drops (§5.1).
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be by for from has have in is it its of on or that the this to was were will with
		not no can if into than then there these those such which who whom when where why how all any each other some
		your you their them they our we he she his her i me my do does did so up out about`) {
		m[w] = true
	}
	return m
}()
