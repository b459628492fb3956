package relationeval

import (
	"strings"
	"testing"
)

// TestValidateRefusesARepeatedBudget: --budgets 5,5 would replay the
// archive twice at one budget, its rows doubled in results.csv.
func TestValidateRefusesARepeatedBudget(t *testing.T) {
	a := validArchive
	a.Budgets = []int{5, 5}
	want := "eval.relation.archive.budgets[1] = 5: given twice (also archive.budgets[0])"
	if err := (Config{Archive: a}).Validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Validate() = %v, want %q", err, want)
	}
}
