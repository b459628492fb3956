package diff

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzText diffs any two texts, under a deadline as a watch does: the word
// runs must give back both copies (common and removed runs the old words,
// common and added runs the new), the line runs both copies' lines, the
// fraction lie in [0, 1] and be 0 only for equal word sequences, and both
// HTML views must render.
//
//	go test ./diff -run '^$' -fuzz FuzzText -fuzztime 2m
func FuzzText(f *testing.F) {
	f.Add("the budget report for 2023", "the draft budget report for 2024")
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "new page")
	f.Add("same words", "same   words")
	f.Add("x x x x y", "y x x x x")
	f.Add("<b>&amp;</b> \u2028 \xff\xfe", "\u00a0 \u3000 naïve café")
	f.Fuzz(func(t *testing.T, old, cur string) {
		r := Text(old, cur, Options{Timeout: 50 * time.Millisecond})
		oldWords, curWords := Fields(old), Fields(cur)
		if got := side(r.Words, Insert, " "); !slices.Equal(got, oldWords) {
			t.Fatalf("old words %q, runs give %q", oldWords, got)
		}
		if got := side(r.Words, Delete, " "); !slices.Equal(got, curWords) {
			t.Fatalf("new words %q, runs give %q", curWords, got)
		}
		if got, want := side(r.Lines, Insert, "\n"), lines(old); !slices.Equal(got, want) {
			t.Fatalf("old lines %q, runs give %q", want, got)
		}
		if got, want := side(r.Lines, Delete, "\n"), lines(cur); !slices.Equal(got, want) {
			t.Fatalf("new lines %q, runs give %q", want, got)
		}
		equal := slices.Equal(oldWords, curWords)
		if r.Fraction < 0 || r.Fraction > 1 || (r.Fraction == 0) != equal {
			t.Fatalf("fraction %v for equal words %v", r.Fraction, equal)
		}
		for _, v := range []View{SideBySide, ChangesOnly} {
			if err := r.WriteHTML(io.Discard, v); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// side is the tokens of one copy: every run but those of kind skip, split
// at sep.
func side(ops []Op, skip Kind, sep string) []string {
	var toks []string
	for _, op := range ops {
		if op.Kind != skip && op.N > 0 {
			toks = append(toks, strings.Split(op.Text, sep)...)
		}
	}
	return toks
}
