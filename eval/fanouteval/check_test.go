package fanouteval_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
)

// TestRunRefusesRepeats: one archive given twice (two copies of one name)
// would index every URL twice; a partition given twice would be run and
// reported twice.
func TestRunRefusesRepeats(t *testing.T) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := archive.Open(datasets.Path(t, "archives", "tldr-en"))
	if err != nil {
		t.Fatal(err)
	}
	qs := []querylog.Query{{Text: "tar", Count: 1}}
	ecfg := fanouteval.Config{Shards: 3, MaxQueries: 1, Seed: 7, Depth: 10, Timeout: time.Minute}
	for _, tc := range []struct {
		archives []*archive.Archive
		parts    []fanouteval.Partition
		want     string
	}{
		{[]*archive.Archive{a, a}, []fanouteval.Partition{fanouteval.ByURL}, `two archives are named "tldr-en"`},
		{[]*archive.Archive{a}, []fanouteval.Partition{fanouteval.ByURL, fanouteval.ByURL}, "given twice"},
	} {
		_, err := fanouteval.Run(t.Context(), fanouteval.Options{
			Config: ecfg, Index: cfg.Index, Repo: cfg.Repo, Extract: cfg.Crawler.Extract,
			Archives: tc.archives, Queries: qs, Partitions: tc.parts, HostShards: cfg.Cluster.Shards, Header: "# test",
		}, t.TempDir(), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run = %v, want %q", err, tc.want)
		}
	}
}
