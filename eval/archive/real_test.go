package archive

import (
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

// realArchives are the archives of the shared evaluation data.
var realArchives = []string{"tldr-en", "digitalgov-2023"}

// TestRealArchives checks the reader against everything archive.json says
// about each real archive: the statistics were computed by an independent
// converter, so agreement means the reader and the change-set definitions
// are right.
func TestRealArchives(t *testing.T) {
	for _, name := range realArchives {
		t.Run(name, func(t *testing.T) {
			a, err := Open(datasets.Path(t, "archives", name))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			m := a.Meta()
			st := m.Stats

			t.Run("has 48 weekly snapshots seven days apart", func(t *testing.T) {
				if a.Name() != name || a.Weeks() != 48 {
					t.Fatalf("Name, Weeks = %q, %d", a.Name(), a.Weeks())
				}
				for w := 1; w < a.Weeks(); w++ {
					if d := a.Date(w).Sub(a.Date(w - 1)); d.Hours() != 7*24 {
						t.Errorf("week %d is %v after week %d", w, d, w-1)
					}
				}
				if m.SourceRepo == "" || m.License == "" || m.Attribution == "" || m.Description == "" {
					t.Errorf("metadata incomplete: %+v", m)
				}
			})

			t.Run("totals match the stats", func(t *testing.T) {
				hashes := map[string]bool{}
				everChanged, allWeeks := 0, 0
				for _, u := range a.URLs() {
					ivs := a.Intervals(u)
					for _, p := range ivs {
						hashes[p.Hash] = true
					}
					if len(ivs) > 1 && slices.ContainsFunc(ivs[1:], func(p Page) bool { return p.Hash != ivs[0].Hash }) {
						everChanged++
					}
					covered := 0
					for _, p := range ivs {
						covered += p.Last - p.First + 1
					}
					if covered == a.Weeks() {
						allWeeks++
					}
				}
				got := []int{len(a.URLs()), a.NumIntervals(), len(hashes), everChanged, allWeeks, a.BlobSize()}
				want := []int{st.URLs, st.Intervals, st.DistinctBodies, st.URLsEverChanged, st.URLsPresentAllWeeks, int(st.BlobsBytesUncompressed)}
				if !slices.Equal(got, want) {
					t.Fatalf("urls, intervals, distinct bodies, ever changed, all weeks, blob bytes = %v, stats say %v", got, want)
				}
			})

			t.Run("weekly page counts and change sets match the stats series", func(t *testing.T) {
				series := []struct {
					name string
					fn   func(int) int
					want []int
				}{
					{"pages_per_week", a.Len, st.PagesPerWeek},
					{"pages_per_week (Week)", func(w int) int { return len(a.Week(w)) }, st.PagesPerWeek},
					{"created_series", func(w int) int { return len(a.Created(w)) }, st.CreatedSeries},
					{"changed_series", func(w int) int { return len(a.Changed(w)) }, st.ChangedSeries},
					{"deleted_series", func(w int) int { return len(a.Deleted(w)) }, st.DeletedSeries},
				}
				for _, s := range series {
					if len(s.want) != a.Weeks() {
						t.Fatalf("%s has %d entries, want %d", s.name, len(s.want), a.Weeks())
					}
					for w, want := range s.want {
						if got := s.fn(w); got != want {
							t.Errorf("%s[%d] = %d, stats say %d", s.name, w, got, want)
						}
					}
				}
			})

			if name == "tldr-en" {
				t.Run("a percent-encoded page name is found as the manifest writes it", func(t *testing.T) {
					p, ok := a.Lookup("/common/%5B.html", 0)
					if !ok || p.URL != "/common/%5B.html" || len(p.Body) == 0 {
						t.Fatalf("Lookup(/common/%%5B.html, 0) = %+v, %v", p, ok)
					}
					if _, ok := a.Lookup("/common/[.html", 0); ok {
						t.Fatalf("the decoded form must not match")
					}
				})
			}

			t.Run("each week's pages are sorted and found by Lookup", func(t *testing.T) {
				for _, w := range []int{0, 18, 47} {
					pages := a.Week(w)
					if !slices.IsSortedFunc(pages, func(p, q Page) int { return strings.Compare(p.URL, q.URL) }) {
						t.Fatalf("week %d is not sorted by URL", w)
					}
					for _, p := range pages {
						q, ok := a.Lookup(p.URL, w)
						if !ok || q.ID != p.ID || &q.Body[0] != &p.Body[0] {
							t.Fatalf("week %d: Lookup(%q) = %+v, %v; want interval %d", w, p.URL, q.ID, ok, p.ID)
						}
					}
				}
			})
		})
	}
}
