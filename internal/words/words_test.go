package words

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"The tar archiving utility.", []string{"tar", "archiving", "utility"}},
		{"gzip2 -- Compress FILES, and such", []string{"gzip2", "compress", "files"}},
		{"Übersicht über ÄPFEL", []string{"übersicht", "über", "äpfel"}},
		{"", nil},
	} {
		if got := Split(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Distinct("git git commit the git"); !slices.Equal(got, []string{"git", "commit"}) {
		t.Errorf("Distinct = %q", got)
	}
}
