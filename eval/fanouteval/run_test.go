package fanouteval_test

import (
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
// and a sample of its log, split by URL: the merge with the cluster's
// statistics gives every query the single index's top 10 up to ties at
// the 10th score, with its scores, and the merge with each shard's own
// does not.
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
	if global.TieEqual != 1 || local.TieEqual == 1 {
		t.Errorf("same up to ties: global %v, local %v; want 1 and less", global.TieEqual, local.TieEqual)
	}
	for _, f := range []string{"report.md", "results.csv", "overlap.svg", "overlap.png"} {
		if _, err := os.Stat(filepath.Join(dir, "a", f)); err != nil {
			t.Error(err)
		}
	}
}
