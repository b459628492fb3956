package watch

import (
	"slices"
	"strings"
)

// Box is a phrase's context bounding box (WebCQ §3.2, Fig. 5): the words
// just before the object (B) and just after it (E), ContextWords each at
// most (fewer at the page's edges).
type Box struct {
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// equal reports whether two boxes hold the same words; nil is a box
// of its own.
func (b *Box) equal(o *Box) bool {
	if b == nil || o == nil {
		return b == o
	}
	return slices.Equal(b.Before, o.Before) && slices.Equal(b.After, o.After)
}

// boxAround is the box of words[start:end].
func boxAround(words []string, start, end, n int) *Box {
	return &Box{
		Before: slices.Clone(words[max(0, start-n):start]),
		After:  slices.Clone(words[end:min(len(words), end+n)]),
	}
}

// keep is the fewest words of a box of n words that must be unchanged
// for the box to be shrunk to them: "if less than 50 % of the words used in
// a bounding box have changed, then we adjust the bounding box to the
// unchanged portion" (§3.2; with n = 10, up to i = 4 changed words).
func keep(n int) int { return n - (n-1)/2 }

// locate finds the object between the box's B and E in words. B may have
// lost words at its far end (cases 5–7 of Fig. 5): its suffix of at least
// keep(|B|) words next to the object is tried, longest first; likewise E's
// prefix. It fails when the box changed next to the object (cases 8–10).
func (b *Box) locate(words []string) (start, end int, ok bool) {
	for k := len(b.Before); k >= keep(len(b.Before)) && (k > 0 || len(b.Before) == 0); k-- {
		suffix := b.Before[len(b.Before)-k:]
		for from := 0; from <= len(words); {
			s := indexOf(words, suffix, from)
			if s < 0 {
				break
			}
			objStart := s + len(suffix)
			if e, ok := b.findAfter(words, objStart); ok {
				return objStart, e, true
			}
			if len(suffix) == 0 {
				break
			}
			from = s + 1
		}
		if len(b.Before) == 0 {
			break
		}
	}
	return 0, 0, false
}

// findAfter finds where E (or its prefix of at least keep(|E|) words)
// begins at or after from; an empty E means the object runs to the end.
func (b *Box) findAfter(words []string, from int) (int, bool) {
	if len(b.After) == 0 {
		return len(words), true
	}
	for k := len(b.After); k >= keep(len(b.After)); k-- {
		if e := indexOf(words, b.After[:k], from); e >= 0 {
			return e, true
		}
	}
	return 0, false
}

// indexOf is the first i ≥ from with words[i:i+len(seq)] == seq, or -1.
func indexOf(words, seq []string, from int) int {
	if len(seq) == 0 {
		return from
	}
	for i := from; i+len(seq) <= len(words); i++ {
		if words[i] == seq[0] && slices.Equal(words[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}

// phraseObject locates a phrase in the words of its scope: at install
// (prev == nil) by its own words, afterwards by the cached object's
// bounding box, which is then moved to the phrase's new surroundings.
func phraseObject(words []string, s *Spec, prev *Object, cfg Config) (Object, error) {
	if s.Selector != "" && s.Object == "" {
		// The selector is the locator: the phrase is the selected text.
		return Object{Located: true, Text: strings.Join(words, " ")}, nil
	}
	var start, end int
	if prev == nil || prev.Box == nil {
		obj := strings.Fields(s.Object)
		start = indexOf(words, obj, 0)
		if start < 0 {
			return Object{}, nil
		}
		end = start + len(obj)
	} else {
		var ok bool
		if start, end, ok = prev.Box.locate(words); !ok {
			return Object{Box: prev.Box}, nil // keep the box: the object may come back
		}
	}
	return Object{Located: true, Text: strings.Join(words[start:end], " "), Box: boxAround(words, start, end, cfg.ContextWords)}, nil
}
