package diff

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sergi/go-diff/diffmatchpatch"
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
	// More distinct tokens than the surrogate gap starts at, and
	// different first and last tokens.
	var a, b []string
	for i := range 60000 {
		a = append(a, "t"+strconv.Itoa(i))
	}
	b = append(append(append([]string{"first"}, a[:30000]...), a[30001:]...), "last")
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

// Tokens' runs must be those of the whole sequences aligned by go-diff,
// tokens joined back in order. Few distinct tokens make repeats, which
// go-diff's clean-up shifts edits over; long common heads and tails, as
// two copies of a page have.
func TestTokensAsAlignedWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := func(n, distinct int) []string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = string(rune('a' + rng.IntN(distinct)))
		}
		return ws
	}
	cut := 0
	for i := range 20000 {
		distinct := 1 + rng.IntN(4)
		head, tail := words(rng.IntN(12), distinct), words(rng.IntN(12), distinct)
		a := slices.Concat(head, words(rng.IntN(5), distinct), tail)
		b := slices.Concat(head, words(rng.IntN(5), distinct), tail)
		if i%2 == 1 { // a longer head or tail, the common case on a page
			a, b = slices.Concat(words(40, distinct), a), slices.Concat(words(0, distinct), b)
			b = slices.Concat(a[:40], b)
		}
		got, want := Tokens(a, b, " ", Options{}), alignedWhole(a, b, " ")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokens(%q, %q) =\n%v, aligned whole\n%v", a, b, got, want)
		}
		if len(a)+len(b) > 2*len(want)+8 {
			cut++
		}
	}
	if cut == 0 {
		t.Error("no case had a long common head or tail")
	}
}

// alignedWhole is Tokens as go-diff gives it, every token through it.
func alignedWhole(a, b []string, sep string) []Op {
	ids := map[string]rune{}
	names := map[rune]string{}
	encode := func(toks []string) []rune {
		var rs []rune
		for _, t := range toks {
			r, ok := ids[t]
			if !ok {
				r = tokenRune(len(ids))
				ids[t], names[r] = r, t
			}
			rs = append(rs, r)
		}
		return rs
	}
	ra, rb := encode(a), encode(b)
	ops := []Op{}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // as Options{}: no deadline, so no half-match short cut
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		var toks []string
		for _, r := range d.Text {
			toks = append(toks, names[r])
		}
		kind := map[diffmatchpatch.Operation]Kind{diffmatchpatch.DiffEqual: Equal, diffmatchpatch.DiffInsert: Insert, diffmatchpatch.DiffDelete: Delete}[d.Type]
		ops = append(ops, Op{Kind: kind, Text: strings.Join(toks, sep), N: len(toks)})
	}
	return ops
}

// TextChanges cuts the common runs while it joins them; it must give what
// Text's whole runs give once cut, the fraction too.
func TestTextChangesAsChangesOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString([]string{"a", "b", "c", "dd", "e", "f", "g"}[rng.IntN(7)])
			b.WriteString([]string{" ", " ", " ", "\n", "  ", " \n "}[rng.IntN(6)])
		}
		return b.String()
	}
	for range 5000 {
		old := text(rng.IntN(60))
		cur := old
		if rng.IntN(8) > 0 {
			cut := rng.IntN(len(old) + 1)
			cur = old[:cut] + text(rng.IntN(4)) + old[cut+rng.IntN(len(old)-cut+1):]
		}
		if rng.IntN(2) == 0 {
			cur = text(rng.IntN(6)) + cur + text(rng.IntN(6))
		}
		got, want := TextChanges(old, cur, Options{}), Text(old, cur, Options{}).ChangesOnly()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("TextChanges(%q, %q) =\n%+v, Text(…).ChangesOnly() =\n%+v", old, cur, got, want)
		}
	}
}

// Sorted sets take a one-pass merge; it must give what any order gives.
func TestSetsOfSortedListsAsOfShuffledLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var old, cur []string
		for i := range 60 {
			w := strconv.Itoa(i)
			if rng.IntN(3) > 0 {
				old = append(old, w)
			}
			if rng.IntN(3) > 0 {
				cur = append(cur, w)
			}
		}
		slices.Sort(old)
		slices.Sort(cur)
		merged := Sets(old, cur)
		shuffled := func(xs []string) []string {
			xs = slices.Clone(xs)
			rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			return append(xs, xs...) // repeats, so that the general path runs
		}
		general := Sets(shuffled(old), shuffled(cur))
		if !reflect.DeepEqual(merged, general) {
			t.Fatalf("Sets(%v, %v) = %+v by merge, %+v in general", old, cur, merged, general)
		}
	}
}

// Lines already collapsed are kept as they are; every other line is
// collapsed: the result is each non-blank line's fields joined by spaces.
func TestLinesCollapseSpaces(t *testing.T) {
	text := "a b\n  lead\ntrail \nin  side\ntab\there\n\n \nnb\u00a0sp\nem\u2003sp\nok é ü\nbad\xffbyte\nx"
	var want []string
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Join(strings.Fields(l), " "); f != "" {
			want = append(want, f)
		}
	}
	if got := lines(text); !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

// The changes-only view cuts the common runs' text in place; it must be
// the runs split into tokens, the context kept and the tokens joined.
func TestChangesOnlyKeepsContextTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		var ops []Op
		for i := range 1 + rng.IntN(5) {
			kind := []Kind{Equal, Insert, Delete}[(i+rng.IntN(2))%3]
			var toks []string
			for k := range 1 + rng.IntN(15) {
				toks = append(toks, strconv.Itoa(k))
			}
			ops = append(ops, Op{Kind: kind, Text: strings.Join(toks, " "), N: len(toks)})
		}
		got := trimEqual(ops, " ", contextTokens)
		if len(got) != len(ops) {
			t.Fatalf("%d runs, want %d", len(got), len(ops))
		}
		for i, op := range ops {
			toks := strings.Split(op.Text, " ")
			after, before := contextTokens, contextTokens
			if i == 0 {
				after = 0
			}
			if i == len(ops)-1 {
				before = 0
			}
			want := op
			if op.Kind == Equal && len(toks) > after+before {
				parts := append(append(slices.Clone(toks[:after]), Elided), toks[len(toks)-before:]...)
				want = Op{Kind: Equal, Text: strings.Join(parts, " "), N: after + before}
			}
			if got[i] != want {
				t.Fatalf("run %d of %+v: %+v, want %+v", i, ops, got[i], want)
			}
		}
	}
}

// TestCappedKeepsWholeTokensAndCountsTheRest: each view keeps its runs up
// to the bound, the run that crosses it cut after its last whole token,
// and counts the changed tokens it left out; the result it was cut from
// stays whole.
func TestCappedKeepsWholeTokensAndCountsTheRest(t *testing.T) {
	r := Text("a b c", "a x y z c", Options{})
	c := r.Capped(6)
	want := []Op{{Equal, "a", 1}, {Delete, "b", 1}, {Insert, "x y", 2}, {Omitted, "… 1 more word changed", 1}}
	if !slices.Equal(c.Words, want) {
		t.Errorf("words = %+v, want %+v", c.Words, want)
	}
	if want := []Op{{Delete, "a b c", 1}, {Omitted, "… 1 more line changed", 1}}; !slices.Equal(c.Lines, want) {
		t.Errorf("lines = %+v, want %+v", c.Lines, want)
	}
	if r.Words[2].Text != "x y z" || !slices.Equal(r.Capped(0).Words, r.Words) || !slices.Equal(r.Capped(100).Words, r.Words) {
		t.Errorf("capping changed the result it was cut from, or cut it under no bound or a large one: %+v", r.Words)
	}
	if got := c.PlainText(); !strings.Contains(got, "+ x y\n… 1 more word changed\n") {
		t.Errorf("plain text = %q, want the count after the kept runs", got)
	}
}

// TestCappedKeepsLinksUpToTheBound: the links added, then the links
// removed, are kept while their URLs fit the bound; the others are
// counted, and said so in the plain text and the HTML.
func TestCappedKeepsLinksUpToTheBound(t *testing.T) {
	r := Result{Links: SetChange{Added: []string{"aaaa", "bbbb", "cccc"}, Removed: []string{"dd", "ee"}}}
	for _, c := range []struct {
		max                          int
		added, removed               []string
		addedOmitted, removedOmitted int
	}{
		{0, r.Links.Added, r.Links.Removed, 0, 0},
		{100, r.Links.Added, r.Links.Removed, 0, 0},
		{14, r.Links.Added, []string{"dd"}, 0, 1},
		{9, []string{"aaaa", "bbbb"}, nil, 1, 2},
		{3, nil, nil, 3, 2},
	} {
		got := r.Capped(c.max).Links
		if !slices.Equal(got.Added, c.added) || !slices.Equal(got.Removed, c.removed) || got.AddedOmitted != c.addedOmitted || got.RemovedOmitted != c.removedOmitted {
			t.Errorf("Capped(%d).Links = %+v, want added %q, removed %q, %d and %d omitted", c.max, got, c.added, c.removed, c.addedOmitted, c.removedOmitted)
		}
	}
	if again := r.Capped(9).Capped(4).Links; !slices.Equal(again.Added, []string{"aaaa"}) || again.Omitted() != 4 {
		t.Errorf("a capped diff capped again: %+v, want aaaa kept and 4 omitted", again)
	}
	c := r.Capped(9)
	if got := c.PlainText(); !strings.HasSuffix(got, "+ link bbbb\n… 3 more links added or removed\n") {
		t.Errorf("plain text = %q, want the count after the kept links", got)
	}
	var b strings.Builder
	if err := c.WriteHTML(&b, ChangesOnly); err != nil || !strings.Contains(b.String(), `<p class="links-omitted">… 3 more links added or removed</p>`) {
		t.Errorf("HTML = %q, %v; want the count of links left out", b.String(), err)
	}
	if (Result{Links: SetChange{RemovedOmitted: 1}}).Links.Empty() {
		t.Error("links with one left out count as no change")
	}
}
