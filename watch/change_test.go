package watch

import (
	"testing"

	"github.com/deltaq/deltaq/diff"
)

// TestChangeSummaryCountsInWords: a notification's one-line summary says
// what changed in counts that read as English, one in the singular.
func TestChangeSummaryCountsInWords(t *testing.T) {
	c := Change{Kind: "update", Fraction: 0.25, Diff: &diff.Result{
		Words: []diff.Op{{Kind: diff.Delete, Text: "March 3", N: 2}, {Kind: diff.Insert, Text: "April 10", N: 2}},
		Links: diff.SetChange{Added: []string{"https://a.example/", "https://b.example/"}},
	}}
	if got, want := c.summary(), "update: 1 text run added, 1 removed, 2 links added, 0 removed; 25% of the object changed"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	// Links a capped diff left out still count.
	c.Diff.Links.AddedOmitted, c.Diff.Links.RemovedOmitted = 3, 1
	if got, want := c.summary(), "update: 1 text run added, 1 removed, 5 links added, 1 removed; 25% of the object changed"; got != want {
		t.Errorf("summary of a capped diff = %q, want %q", got, want)
	}
}
