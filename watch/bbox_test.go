package watch

import (
	"fmt"
	"strings"
	"testing"
)

// TestBoundingBoxFigure5 walks the ten cases of WebCQ Fig. 5 on a page of
// words: filler, the box B (10 words), the object O, the box E, filler.
func TestBoundingBoxFigure5(t *testing.T) {
	seq := func(p string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", p, i+1)
		}
		return out
	}
	B, O, E := seq("b", 10), seq("o", 6), seq("e", 10)
	page := func(pre, b, o, e, post []string) string {
		var all []string
		for _, part := range [][]string{pre, b, o, e, post} {
			all = append(all, part...)
		}
		return strings.Join(all, " ")
	}
	with := func(xs []string, at []int, w string) []string {
		ys := append([]string(nil), xs...)
		for _, i := range at {
			ys[i] = w
		}
		return ys
	}
	pre, post := seq("x", 30), seq("y", 30)
	O2 := with(O, []int{2}, "changed")
	cfg := testConfig()
	spec := &Spec{Type: Phrase, Object: strings.Join(O, " ")}
	installed, err := phraseObject(strings.Fields(page(pre, B, O, E, post)), spec, nil, cfg)
	if err != nil || !installed.Located || installed.Text != strings.Join(O, " ") {
		t.Fatalf("install: %+v, %v", installed, err)
	}
	cases := []struct {
		name    string
		page    string
		located bool
		object  []string
	}{
		{"(1) the object changed, the box did not", page(pre, B, O2, E, post), true, O2},
		{"(2) text before the box changed", page(with(pre, []int{29}, "z"), B, O, E, post), true, O},
		{"(3) text after the box changed", page(pre, B, O, E, with(post, []int{0}, "z")), true, O},
		{"(4) text on both sides changed", page(seq("z", 30), B, O, E, seq("z", 30)), true, O},
		{"(5) the far end of B changed (4 of 10)", page(pre, with(B, []int{0, 1, 2, 3}, "z"), O2, E, post), true, O2},
		{"(6) the far end of E changed (4 of 10)", page(pre, B, O2, with(E, []int{6, 7, 8, 9}, "z"), post), true, O2},
		{"(7) the far ends of both changed", page(pre, with(B, []int{0, 1}, "z"), O2, with(E, []int{8, 9}, "z"), post), true, O2},
		{"(8) B changed next to the object: must fail", page(pre, with(B, []int{9}, "z"), O, E, post), false, nil},
		{"(9) E changed next to the object: must fail", page(pre, B, O, with(E, []int{0}, "z"), post), false, nil},
		{"(10) both changed next to the object: must fail", page(pre, with(B, []int{9}, "z"), O, with(E, []int{0}, "z"), post), false, nil},
		{"half of B changed at its far end: over the limit", page(pre, with(B, []int{0, 1, 2, 3, 4}, "z"), O, E, post), false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := phraseObject(strings.Fields(tc.page), spec, &installed, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Located != tc.located {
				t.Fatalf("located = %v, want %v", got.Located, tc.located)
			}
			if tc.located && got.Text != strings.Join(tc.object, " ") {
				t.Errorf("object = %q, want %q", got.Text, strings.Join(tc.object, " "))
			}
			if tc.located && len(got.Box.Before) != 10 {
				t.Errorf("the box was not moved to the new surroundings: %v", got.Box.Before)
			}
		})
	}
}

func TestBoundingBoxAtThePageEdges(t *testing.T) {
	cfg := testConfig()
	spec := &Spec{Type: Phrase, Object: "one two three four five"}
	obj, err := phraseObject(strings.Fields("one two three four five six"), spec, nil, cfg)
	if err != nil || !obj.Located || len(obj.Box.Before) != 0 || len(obj.Box.After) != 1 {
		t.Fatalf("object at the start: %+v, %v", obj, err)
	}
	got, _ := phraseObject(strings.Fields("one two 3 four five six"), spec, &obj, cfg)
	if !got.Located || got.Text != "one two 3 four five" {
		t.Errorf("object at the start after a change: %+v", got)
	}
}
