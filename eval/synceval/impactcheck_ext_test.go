package synceval_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/internal/datasets"
)

var impactCheck = flag.String("impactcheck", "", "write the impact check of digitalgov-2023 (synceval.ImpactCheck) to this CSV file")

// TestImpactCheck is a measurement, not a check of behaviour: with
// -impactcheck FILE it runs synceval.ImpactCheck on digitalgov-2023 under
// trec-mq (weeks 6, 12, 18, 24, 30, 36), writes the changes to FILE and
// logs the summary doc.go quotes. It takes minutes.
func TestImpactCheck(t *testing.T) {
	if *impactCheck == "" {
		t.Skip("a measurement: run with -impactcheck FILE")
	}
	cfg := defaults(t)
	cfg.Archive = datasets.Path(t, "archives", "digitalgov-2023")
	cfg.Log = datasets.Path(t, "querylogs", "trec-mq.tsv")
	f, err := os.Create(*impactCheck)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := synceval.ImpactCheck(context.Background(), cfg, []int{6, 12, 18, 24, 30, 36}, f, t.Output(), os.Stderr); err != nil {
		t.Fatal(err)
	}
}
