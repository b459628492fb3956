package fanouteval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/index/fanout"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
)

// TestGlobalStatisticsGiveOneIndexsScores runs the evaluation on tldr-en
// and a sample of its log, split by URL, twice: the merge with the
// cluster's statistics gives every page the single index's score and at
// least as many identical top-10 lists as the merge with each shard's own,
// and the same seed writes the same results.
func TestGlobalStatisticsGiveOneIndexsScores(t *testing.T) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := archive.Open(datasets.Path(t, "archives", "tldr-en"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := querylog.Load(datasets.Path(t, "querylogs", "tldr-brew-installs.tsv"), querylog.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	ecfg := fanouteval.Config{Shards: 3, MaxQueries: 150, Seed: 7, Depth: 10, Timeout: time.Minute}
	run := func(out string) fanouteval.Summary {
		sum, err := fanouteval.Run(t.Context(), fanouteval.Options{
			Config: ecfg, Index: cfg.Index, Repo: cfg.Repo, Extract: cfg.Crawler.Extract,
			Archives: []*archive.Archive{a}, Queries: qs, Partitions: []fanouteval.Partition{fanouteval.ByURL},
			HostShards: cfg.Cluster.Shards, Header: "# test",
		}, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	dir := t.TempDir()
	sum := run(filepath.Join(dir, "a"))
	if len(sum.Rows) != 2 || sum.Rows[0].Statistics != fanout.Local || sum.Rows[1].Statistics != fanout.Global {
		t.Fatalf("rows %+v, want local then global", sum.Rows)
	}
	local, global := sum.Rows[0], sum.Rows[1]
	if global.Compared == 0 || global.MaxScoreDiff != 0 {
		t.Errorf("global statistics: %d queries compared, largest score difference %v; want 0", global.Compared, global.MaxScoreDiff)
	}
	if local.MaxScoreDiff == 0 {
		t.Errorf("local statistics gave every page the single index's score")
	}
	if global.SetEqual < local.SetEqual || global.Overlap < local.Overlap {
		t.Errorf("global same set %v, overlap %v; local %v, %v", global.SetEqual, global.Overlap, local.SetEqual, local.Overlap)
	}
	for _, f := range []string{"report.md", "results.csv", "overlap.svg", "overlap.png"} {
		if _, err := os.Stat(filepath.Join(dir, "a", f)); err != nil {
			t.Error(err)
		}
	}
	run(filepath.Join(dir, "b"))
	csvA, _ := os.ReadFile(filepath.Join(dir, "a", "results.csv"))
	csvB, _ := os.ReadFile(filepath.Join(dir, "b", "results.csv"))
	if !bytes.Equal(csvA, csvB) {
		t.Errorf("two runs with one seed differ:\n%s\n%s", csvA, csvB)
	}
}
