package ads

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// MaxPhraseBytes bounds a normalized target phrase. Queries longer than
// this are still normalized, but no ad can target them.
const MaxPhraseBytes = 200

// NormalizePhrase maps a query or a target phrase to the key ads are
// matched on (the query phrase Q_j of §6.1). The steps, in order:
//
//  1. invalid UTF-8 bytes become U+FFFD;
//  2. Unicode NFKC normalization, so compatibility forms match their plain
//     equivalents (full-width "ＡＢＣ" → "ABC", the "ﬁ" ligature → "fi");
//  3. language-neutral Unicode lower-casing ("Straße" → "straße",
//     "ÉCOLE" → "école");
//  4. every run of Unicode white space and control characters becomes one
//     ASCII space, and leading and trailing spaces are removed.
//
// Punctuation is kept: "c++" and "c" are different phrases. The function is
// idempotent: NormalizePhrase(NormalizePhrase(q)) == NormalizePhrase(q).
func NormalizePhrase(q string) string {
	q = strings.ToValidUTF8(q, "\uFFFD")
	if isPlainASCII(q) {
		return collapseASCII(q)
	}
	lower := cases.Lower(language.Und) // a Caser is stateful: one per call
	q = lower.String(norm.NFKC.String(q))
	// Lower-casing can produce sequences that are not NFKC (and the
	// reverse), so repeat both until the phrase is stable; one extra round
	// almost always suffices.
	for range 3 {
		next := lower.String(norm.NFKC.String(q))
		if next == q {
			break
		}
		q = next
	}
	var b strings.Builder
	b.Grow(len(q))
	space := false
	for _, r := range q {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hasWord reports whether phrase holds a word a search can match: a
// letter, a digit or a connector such as _. The index's analyzers (Bleve's
// unicode tokenizer, Unicode word boundaries) keep runs of those and drop
// the rest, and the searcher refuses a query they leave no word of, so a
// phrase of other punctuation and symbols alone ("+-:^~*?") names a query
// no one is ever shown ads for.
func hasWord(phrase string) bool {
	for _, r := range phrase {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Pc, r) {
			return true
		}
	}
	return false
}

// isPlainASCII reports whether q is ASCII, for which NFKC is the identity.
func isPlainASCII(q string) bool {
	for i := 0; i < len(q); i++ {
		if q[i] >= 0x80 {
			return false
		}
	}
	return true
}

// collapseASCII is the ASCII fast path of NormalizePhrase.
func collapseASCII(q string) string {
	clean := true
	prevSpace := true
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == ' ':
			if prevSpace {
				clean = false
			}
			prevSpace = true
		case c < 0x20 || c == 0x7f || ('A' <= c && c <= 'Z'):
			clean = false
			prevSpace = false
		default:
			prevSpace = false
		}
	}
	if clean && (len(q) == 0 || q[len(q)-1] != ' ') {
		return q
	}
	b := make([]byte, 0, len(q))
	space := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= 0x20 || c == 0x7f {
			space = len(b) > 0
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
