package adsim

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestSmallSimulationIsReproducible runs a small simulation on the real
// data twice: the same seed gives the same bytes, and they match the
// golden files (regenerate with go test -run Reproducible -update).
func TestSmallSimulationIsReproducible(t *testing.T) {
	cfg := smallConfig(t)
	var outs [2]string
	for i := range outs {
		outs[i] = t.TempDir()
		sum, err := Run(t.Context(), cfg, outs[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Totals) != len(cfg.Policies) || len(sum.Match) != 2 {
			t.Fatalf("summary %+v", sum)
		}
	}
	for _, name := range []string{"report.md", "results.csv"} {
		a, err := os.ReadFile(filepath.Join(outs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("%s differs between two runs with the same seed", name)
		}
		golden := filepath.Join("testdata", "small."+name+".golden")
		if *update {
			if err := os.WriteFile(golden, a, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(a, want) {
			t.Fatalf("%s differs from %s; rerun with -update if the change is intended", name, golden)
		}
	}
	for _, fig := range []string{"fig-6.3-revenue-by-day", "fig-6.4-revenue-vs-C", "fig-6.5-priors-p0.5", "fig-6.6-lifetime"} {
		for _, ext := range []string{".svg", ".png"} {
			if st, err := os.Stat(filepath.Join(outs[0], fig+ext)); err != nil || st.Size() == 0 {
				t.Fatalf("figure %s%s missing: %v", fig, ext, err)
			}
		}
	}
}

func TestDifferentSeedsGiveDifferentReports(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Lifetimes, cfg.PriorFractions, cfg.SensitivityQueriesPerDay = nil, nil, nil
	var reports [2][]byte
	for i := range reports {
		cfg.Seed = uint64(i + 1)
		dir := t.TempDir()
		if _, err := Run(t.Context(), cfg, dir, nil); err != nil {
			t.Fatal(err)
		}
		var err error
		if reports[i], err = os.ReadFile(filepath.Join(dir, "results.csv")); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(reports[0], reports[1]) {
		t.Fatal("seeds 1 and 2 gave the same results")
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Run(ctx, smallConfig(t), t.TempDir(), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}
