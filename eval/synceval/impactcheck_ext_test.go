package synceval_test

import (
	"context"
	"flag"
	"io"
	"os"
	"testing"

	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/internal/datasets"
)

var impactCheck = flag.String("impactcheck", "", "also write the impact check's changes (synceval.ImpactCheck) to this CSV file")

// BenchmarkImpactCheck is a measurement, run on request only: it runs
// synceval.ImpactCheck on digitalgov-2023 under trec-mq (weeks 6, 12, 18,
// 24, 30, 36) and logs the summary doc.go quotes; with -impactcheck FILE
// it also writes one row per change. It takes minutes:
//
//	go test ./eval/synceval -run '^$' -bench ImpactCheck -benchtime 1x -timeout 40m -args -impactcheck=OUT.csv
func BenchmarkImpactCheck(b *testing.B) {
	cfg := defaults(b)
	cfg.Archive = datasets.Path(b, "archives", "digitalgov-2023")
	cfg.Log = datasets.Path(b, "querylogs", "trec-mq.tsv")
	rows := io.Discard
	if *impactCheck != "" {
		f, err := os.Create(*impactCheck)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		rows = f
	}
	for b.Loop() {
		if err := synceval.ImpactCheck(context.Background(), cfg, []int{6, 12, 18, 24, 30, 36}, rows, b.Output(), os.Stderr); err != nil {
			b.Fatal(err)
		}
	}
}
