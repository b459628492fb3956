package diff

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Fields must split as strings.Fields does, on ASCII and Unicode white
// space, around runes outside ASCII and bytes that are not UTF-8.
func TestFieldsAsStringsFields(t *testing.T) {
	pieces := []string{" ", "\t", "\n", "\r\n", "\u00a0", "\u0085", "\u2003", "\u3000",
		"a", "word", "é", "’", "—", "日本", "\xff", "\xe2\x80"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := Fields(s), strings.Fields(s); !slices.Equal(got, want) {
			t.Fatalf("Fields(%q) = %q, strings.Fields: %q", s, got, want)
		}
	}
}

func TestFieldsAllocatesOnce(t *testing.T) {
	s := "Plain language “guides” — for federal websites\u00a0and apps"
	if n := testing.AllocsPerRun(100, func() { Fields(s) }); n != 1 {
		t.Errorf("Fields allocates %v times, want 1", n)
	}
}
