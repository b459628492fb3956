package postings

import (
	"slices"
	"testing"
)

func TestAll(t *testing.T) {
	ix := Index{}
	ix.Add(0, []string{"git", "commit", "git"})
	ix.Add(1, []string{"git", "push"})
	ix.Add(2, []string{"tar"})
	ix.Add(3, []string{"git", "push", "tar"})
	for _, c := range []struct {
		q    []string
		want []int32
	}{
		{[]string{"git"}, []int32{0, 1, 3}},
		{[]string{"git", "push"}, []int32{1, 3}},
		{[]string{"push", "tar", "git"}, []int32{3}},
		{[]string{"git", "nope"}, nil},
		{nil, nil},
	} {
		if got := ix.All(c.q); !slices.Equal(got, c.want) {
			t.Errorf("All(%q) = %v, want %v", c.q, got, c.want)
		}
	}
	if len(ix["git"]) != 3 {
		t.Errorf("a keyword repeated in one document is listed %d times", len(ix["git"]))
	}
}
