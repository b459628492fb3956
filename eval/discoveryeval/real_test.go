package discoveryeval

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

// TestRealArchiveSmoke runs the evaluation over the real tldr-en archive
// and checks what must hold whatever the numbers: the week-to-week
// created counts of archive.json, the link graph's size, coverage within
// [0, 100], GREEDY at least as good as every history-based algorithm, and
// the live Stats agreeing with OD-WIN.
func TestRealArchiveSmoke(t *testing.T) {
	dir := datasets.Path(t, "archives", "tldr-en")
	cfg := testConfig()

	s, err := openSite(t, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("created counts match archive.json week by week", func(t *testing.T) {
		series := s.meta.Stats.CreatedSeries
		if len(series) != len(s.weeks) {
			t.Fatalf("created_series has %d weeks, archive %d", len(series), len(s.weeks))
		}
		for w := 1; w < len(s.weeks); w++ {
			if got := s.weeks[w].created; got != series[w] {
				t.Errorf("week %d: created %d, archive.json %d", w, got, series[w])
			}
			if s.weeks[w].newPages > s.weeks[w].created {
				t.Errorf("week %d: %d new pages but only %d created", w, s.weeks[w].newPages, s.weeks[w].created)
			}
		}
	})
	t.Run("the link graph has archive.json's edges", func(t *testing.T) {
		first, last := archiveEdges(s)
		if got := s.weeks[0].edges; first != itoa(got) {
			t.Errorf("week 0: %d edges, archive.json %s", got, first)
		}
		if got := s.weeks[len(s.weeks)-1].edges; last != itoa(got) {
			t.Errorf("last week: %d edges, archive.json %s", got, last)
		}
	})

	out := t.TempDir()
	sum, err := Run(t.Context(), cfg, []string{dir}, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := sum.Archives[0]
	t.Run("totals agree with archive.json", func(t *testing.T) {
		if a.Created != a.ArchiveCreated || a.NewPages == 0 || a.NewPages > a.Created || a.Coverable+a.Orphans != a.NewPages {
			t.Errorf("created %d (archive.json %d), new %d, coverable %d, orphans %d", a.Created, a.ArchiveCreated, a.NewPages, a.Coverable, a.Orphans)
		}
	})
	t.Run("coverage is a percentage of the coverable new pages", func(t *testing.T) {
		for _, r := range a.Rows {
			if r.CoveragePct < 0 || r.CoveragePct > 100 || r.Covered > r.Coverable {
				t.Errorf("%+v", r)
			}
		}
	})
	t.Run("GREEDY covers at least as much as every history-based algorithm", func(t *testing.T) {
		greedy := map[int]float64{}
		for _, r := range a.Rows {
			if r.Algorithm == "Optimal" && (r.Experiment == "table-3.2" || r.Experiment == "coverage-curve") {
				greedy[r.Budget] = r.CoveragePct
			}
		}
		for _, r := range a.Rows {
			if r.Algorithm == "Optimal" || (r.Experiment != "table-3.2" && r.Experiment != "coverage-curve") {
				continue
			}
			g, ok := greedy[r.Budget]
			if !ok {
				t.Fatalf("no GREEDY row at budget %d", r.Budget)
			}
			if r.CoveragePct > g+1e-9 {
				t.Errorf("%s (%s, Δ %s) covers %.2f %% at k = %d, GREEDY %.2f %%", r.Algorithm, r.Experiment, r.RecrawlEvery, r.CoveragePct, r.Budget, g)
			}
		}
	})
	t.Run("the live Stats agrees with OD-WIN", func(t *testing.T) {
		od, st := map[int]float64{}, map[int]float64{}
		for _, r := range a.Rows {
			if r.Experiment != "table-3.2" {
				continue
			}
			switch r.Algorithm {
			case "OD-WIN":
				od[r.Budget] = r.CoveragePct
			case statsName:
				st[r.Budget] = r.CoveragePct
			}
		}
		for k, c := range od {
			if math.Abs(c-st[k]) > 1 {
				t.Errorf("k = %d: OD-WIN %.2f %%, Stats %.2f %%", k, c, st[k])
			}
		}
	})
	t.Run("OD-WIN is within the target of the algorithms with the same re-crawls", func(t *testing.T) {
		if !a.TargetMetSameRecrawls {
			t.Errorf("gaps %+v", a.Gaps)
		}
	})
	t.Run("writes a report", func(t *testing.T) {
		if st, err := os.Stat(filepath.Join(out, "report.md")); err != nil || st.Size() == 0 {
			t.Errorf("report.md: %v", err)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
