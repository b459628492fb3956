package sentineleval

import (
	"strings"
	"testing"
)

// TestValidateRefusesRepeats: a number of sentinels or an accuracy
// archive given twice would be measured twice, its rows doubled in
// results.csv and accuracy.csv.
func TestValidateRefusesRepeats(t *testing.T) {
	c := Config{Archive: "a", Sentinels: []int{500, 500}, Dists: []string{"uniform"}, Groups: []string{"none"},
		ZipfAlpha: 1, Repeats: 1, AccuracyPages: 20, AccuracyArchives: []string{"x", "x"}, Queries: "q"}
	err := c.Validate()
	for _, want := range []string{"eval.sentinels.sentinels[1] = 500: given twice", "eval.sentinels.accuracy_archives[1] = x: given twice"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q", err, want)
		}
	}
}
