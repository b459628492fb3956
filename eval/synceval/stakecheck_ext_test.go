package synceval_test

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"testing"

	"github.com/deltaq/deltaq/eval/synceval"
)

var stakeChanges = flag.String("stakechanges", "", "also write each archive's pages' stakes and change counts (synceval.StakeChanges) as ARCHIVE.csv in this directory")

// BenchmarkStakeChanges is a measurement, run on request only: it runs
// synceval.StakeChanges on both archives with change history, each under
// its query log, and logs the summaries the frontier's change model
// quotes; with -stakechanges DIR it also writes one row per page. It
// takes about a minute:
//
//	go test ./eval/synceval -run '^$' -bench StakeChanges -benchtime 1x -args -stakechanges=OUT
func BenchmarkStakeChanges(b *testing.B) {
	for _, c := range []struct{ archive, log string }{
		{"tldr-en", "tldr-brew-installs.tsv"},
		{"digitalgov-2023", "trec-mq.tsv"},
	} {
		b.Run(c.archive, func(b *testing.B) { stakeChangesOf(b, c.archive, c.log) })
	}
}

func stakeChangesOf(b *testing.B, archive, log string) {
	cfg := archiveConfig(b, archive, log)
	rows := io.Discard
	if *stakeChanges != "" {
		rows = rowsFile(b, filepath.Join(*stakeChanges, archive+".csv"))
	}
	for b.Loop() {
		if err := synceval.StakeChanges(context.Background(), cfg, rows, b.Output(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
