package diff

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestTextFindsAddedAndRemovedWords(t *testing.T) {
	old := "Apply by March 3 for the summer program.\nContact the office."
	cur := "Apply by April 10 for the summer program.\nContact the office.\nNew: virtual sessions."
	r := Text(old, cur, Options{})
	if got, want := strings.Join(r.Removed(), "|"), "March 3"; got != want {
		t.Errorf("removed = %q, want %q", got, want)
	}
	if got, want := strings.Join(r.Added(), "|"), "April 10|New: virtual sessions."; got != want {
		t.Errorf("added = %q, want %q", got, want)
	}
	var addedLines []string
	for _, op := range r.Lines {
		if op.Kind == Insert {
			addedLines = append(addedLines, op.Text)
		}
	}
	if got, want := strings.Join(addedLines, "|"), "Apply by April 10 for the summer program.|New: virtual sessions."; got != want {
		t.Errorf("added lines = %q, want %q", got, want)
	}
	// 2 removed + 5 added of 10 + 15 words.
	if want := 7.0 / 25; r.Fraction != want {
		t.Errorf("fraction = %v, want %v", r.Fraction, want)
	}
}

func TestTextOfEqualCopiesIsUnchanged(t *testing.T) {
	r := Text("same  words\nhere", "same words here", Options{})
	if r.Changed() || r.Fraction != 0 {
		t.Errorf("changed = %v, fraction = %v for copies with the same words", r.Changed(), r.Fraction)
	}
}

func TestSets(t *testing.T) {
	s := Sets([]string{"a", "b", "b", "c"}, []string{"c", "d", "a"})
	if strings.Join(s.Added, ",") != "d" || strings.Join(s.Removed, ",") != "b" {
		t.Errorf("Sets = %+v, want added [d] removed [b]", s)
	}
	if f := SetFraction(s, 3, 3); f != 0.5 {
		t.Errorf("SetFraction = %v, want 2/4", f)
	}
}

func TestChangesOnlyElidesLongCommonRuns(t *testing.T) {
	common := strings.Repeat("w ", 40)
	r := Text(common+"old", common+"new", Options{})
	c := r.ChangesOnly()
	if c.Words[0].Kind != Equal || !strings.HasPrefix(c.Words[0].Text, Elided) || c.Words[0].N != contextTokens {
		t.Errorf("first run = %+v, want %s and %d words of context", c.Words[0], Elided, contextTokens)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kind":"insert","text":"new"`) {
		t.Errorf("JSON lacks the insertion: %s", b)
	}
}

func TestWriteHTMLEscapesAndMarks(t *testing.T) {
	r := Text("x <b>old</b>", "x <i>new</i>", Options{})
	r.Links = Sets(nil, []string{"https://e.example/?a=1&b=2"})
	for _, v := range []View{SideBySide, ChangesOnly} {
		var b strings.Builder
		if err := r.WriteHTML(&b, v); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"<ins>&lt;i&gt;new&lt;/i&gt;</ins>", "<del>&lt;b&gt;old&lt;/b&gt;</del>", "a=1&amp;b=2"} {
			if !strings.Contains(out, want) {
				t.Errorf("view %d: %q lacks %q", v, out, want)
			}
		}
	}
	if err := r.WriteHTML(&strings.Builder{}, View(9)); err == nil || !strings.Contains(err.Error(), "view 9") {
		t.Errorf("bad view: err = %v, want one naming view 9", err)
	}
}

func TestTokensManyDistinctTokens(t *testing.T) {
	// More distinct tokens than the surrogate gap starts at.
	var a, b []string
	for i := range 60000 {
		a = append(a, "t"+strconv.Itoa(i))
	}
	b = append(append([]string{}, a[:30000]...), a[30001:]...)
	ops := Tokens(a, b, " ", Options{})
	var del []string
	for _, op := range ops {
		if op.Kind == Delete {
			del = append(del, op.Text)
		}
	}
	if len(del) != 1 || del[0] != a[30000] {
		t.Errorf("deleted = %v, want [%s]", del, a[30000])
	}
}
