package archive

import (
	"slices"
	"testing"
)

func TestPersistentKeepsOnlyPagesOfEveryWeek(t *testing.T) {
	a := openTiny(t)
	p := a.Persistent()
	// /a misses week 2 and /b weeks 0 and 3; / and /c%5B are always there.
	if got, want := p.URLs(), []string{"/", "/c%5B"}; !slices.Equal(got, want) {
		t.Fatalf("URLs() = %q, want %q", got, want)
	}
	for w := range p.Weeks() {
		if p.Len(w) != 2 {
			t.Errorf("Len(%d) = %d, want 2", w, p.Len(w))
		}
		var got []string
		for pg := range p.Pages(w) {
			got = append(got, pg.URL+"="+string(pg.Body))
			orig, ok := a.Lookup(pg.URL, w)
			if !ok || orig.Hash != pg.Hash || string(orig.Body) != string(pg.Body) {
				t.Errorf("week %d %s: body %q hash %s, the archive has %q %s", w, pg.URL, pg.Body, pg.Hash, orig.Body, orig.Hash)
			}
		}
		if len(got) != 2 {
			t.Errorf("week %d pages %q, want / and /c%%5B", w, got)
		}
	}
	if _, ok := p.Lookup("/a", 0); ok {
		t.Error("Lookup(/a) found a page that misses a week")
	}
	if ivs := p.Intervals("/"); len(ivs) != 2 || ivs[1].First != 2 || string(ivs[1].Body) != "h1\n" {
		t.Errorf("Intervals(/) = %+v, want both of its intervals", ivs)
	}
	if p.NumIntervals() != 3 || p.Name() != "tiny" || !p.Date(1).Equal(a.Date(1)) {
		t.Errorf("NumIntervals %d, Name %q: want 3 and the archive's metadata", p.NumIntervals(), p.Name())
	}
	if a.Len(2) != 3 || len(a.URLs()) != 4 {
		t.Error("Persistent changed the archive it was taken from")
	}
}
