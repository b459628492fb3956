package feedtrace

import (
	"testing"
	"time"

	"github.com/deltaq/deltaq/internal/datasets"
)

func TestLoadReadsTheRealTrace(t *testing.T) {
	tr, err := Load(t.Context(), datasets.Path(t, "feeds"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Feeds) != 77 || tr.Postings() != 47712 {
		t.Fatalf("%d feeds, %d postings; the README says 77 and 47,712", len(tr.Feeds), tr.Postings())
	}
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(1, 0, 0)
	for _, f := range tr.Feeds {
		if f.AtomURL == "" || len(f.Postings) == 0 {
			t.Fatalf("feed %s: url %q, %d postings", f.Name, f.AtomURL, len(f.Postings))
		}
		for i, p := range f.Postings {
			if p.Before(from) || !p.Before(to) || (i > 0 && p.Before(f.Postings[i-1])) {
				t.Fatalf("feed %s: posting %d at %s is outside 2025 or out of order", f.Name, i, p)
			}
		}
	}
}
