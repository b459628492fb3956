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
	cfg := archiveConfig(b, "digitalgov-2023", "trec-mq.tsv")
	rows := rowsFile(b, *impactCheck)
	for b.Loop() {
		if err := synceval.ImpactCheck(context.Background(), cfg, []int{6, 12, 18, 24, 30, 36}, rows, b.Output(), os.Stderr); err != nil {
			b.Fatal(err)
		}
	}
}

// archiveConfig is the default configuration over a stored archive and
// query log.
func archiveConfig(b *testing.B, archive, log string) synceval.Config {
	cfg := defaults(b)
	cfg.Archive = datasets.Path(b, "archives", archive)
	cfg.Log = datasets.Path(b, "querylogs", log)
	return cfg
}

// rowsFile is where a measurement writes its rows: the file at path, or
// nowhere for "".
func rowsFile(b *testing.B, path string) io.Writer {
	if path == "" {
		return io.Discard
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}
