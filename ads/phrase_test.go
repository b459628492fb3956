package ads

import (
	"strings"
	"testing"
	"unicode/utf8"

	bleveunicode "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

func TestNormalizePhrase(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"lower-cases ASCII", "Running Shoes", "running shoes"},
		{"collapses and trims white space", "  running \t\n shoes  ", "running shoes"},
		{"lower-cases beyond ASCII", "ÉCOLE Ärzte", "école ärzte"},
		{"folds full-width forms (NFKC)", "ＡＢＣ　shoes", "abc shoes"},
		{"expands ligatures (NFKC)", "ﬁsh", "fish"},
		{"composes combining marks (NFKC)", "cafe\u0301", "café"},
		{"treats no-break and ideographic spaces as space", "a\u00a0b\u3000c", "a b c"},
		{"drops control characters", "a\x00\x07b", "a b"},
		{"keeps punctuation", "C++ vs. C#", "c++ vs. c#"},
		{"replaces invalid UTF-8", "a\xffb", "a\ufffdb"},
		{"maps blank to empty", " \t ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NormalizePhrase(tc.in); got != tc.want {
				t.Fatalf("NormalizePhrase(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzNormalizePhrase(f *testing.F) {
	for _, s := range []string{"Running Shoes", "ＡＢＣ", "ﬁsh", "cafe\u0301", "a\x00b", " x ", "ẞ", "İstanbul", "\u0345\u0399"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizePhrase(s)
		if !utf8.ValidString(n) {
			t.Fatalf("NormalizePhrase(%q) = %q: invalid UTF-8", s, n)
		}
		if again := NormalizePhrase(n); again != n {
			t.Fatalf("not idempotent: %q → %q → %q", s, n, again)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("NormalizePhrase(%q) = %q: stray spaces", s, n)
		}
	})
}

// TestHasWordAgreesWithTheIndexTokenizer: a phrase has a word when the
// tokenizer of the index's analyzers finds one in it, so no phrase a
// search could match is refused, and punctuation and symbols alone are.
// The one way they part: a few letters Unicode word boundaries do not
// count as words (〆) pass, which costs an advertiser nothing.
func TestHasWordAgreesWithTheIndexTokenizer(t *testing.T) {
	tok := bleveunicode.NewUnicodeTokenizer()
	lettersNotWords := map[string]bool{"〆": true}
	for _, p := range []string{
		"shoes", "c++", "3", "node.js", "straße", "你好", "カタカナ", "مرحبا", "½", "②", "x²",
		"+-:^~*?\\/()[]{}", "\ufffd", "€ ★", "...", "-", "'\"", "🙂", "\u0301", "_", "#1",
		"‿", "＿", "a_b", "©", "%", "@", "°", "µ", "ǅ", "Ⅻ", "٣", "〆", "ー", "·",
	} {
		p = NormalizePhrase(p)
		words := len(tok.Tokenize([]byte(p))) > 0
		if got := hasWord(p); got != words && !(got && lettersNotWords[p]) {
			t.Errorf("hasWord(%q) = %v; the tokenizer finds words: %v", p, got, words)
		}
	}
}
