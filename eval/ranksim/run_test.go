package ranksim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden reports under testdata/")

// TestQuickRunMatchesGolden runs the quick plan from a fixed seed and
// compares report.md and results.csv byte for byte with testdata/quick/.
// The same seed must give the same bytes whatever the number of workers
// and the order the simulations finish in. Regenerate with -update.
func TestQuickRunMatchesGolden(t *testing.T) {
	dir := t.TempDir()
	s, err := Run(t.Context(), Config{Seed: 42, Quick: true, Workers: 3}, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != "quick" || s.Runs == 0 || s.Analyses == 0 || len(s.Targets) != 4 {
		t.Fatalf("summary %+v", s)
	}
	for _, name := range []string{"report.md", "results.csv"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "quick", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s differs from %s at line %d:\n got %s\nwant %s", name, golden, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("%s differs from %s in length (%d vs %d lines)", name, golden, len(gl), len(wl))
		}
	}
	for _, f := range s.Files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("output %s missing or empty: %v", f, err)
		}
	}
	if n := len(s.Files); n != 2+2*10 {
		t.Errorf("%d files written, want report, CSV and 10 plots in two formats", n)
	}
}

func TestRunRejectsABadConfig(t *testing.T) {
	_, err := Run(t.Context(), Config{Workers: -1}, t.TempDir(), nil)
	if err == nil || err.Error() != "eval.ranking.workers = -1: must be in [0, 256]" {
		t.Fatalf("err = %v", err)
	}
}
