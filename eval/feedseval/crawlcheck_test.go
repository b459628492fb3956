package feedseval_test

import (
	"os"
	"testing"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/feedseval"
	"github.com/deltaq/deltaq/eval/feedtrace"
	"github.com/deltaq/deltaq/internal/datasets"
)

// TestCrawlerMeasuresTheTraceDrivenDelays plays one week of the combined
// schedule through the real crawler against the replayed feeds: the delays
// measured from what the crawler stored must match the trace-driven ones.
func TestCrawlerMeasuresTheTraceDrivenDelays(t *testing.T) {
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := feedtrace.Load(t.Context(), datasets.Path(t, "feeds"))
	if err != nil {
		t.Fatal(err)
	}
	var progress *os.File
	if testing.Verbose() {
		progress = os.Stderr
	}
	cc := feedseval.CrawlConfigs{Crawler: cfg.Crawler, Frontier: cfg.Frontier, Repo: cfg.Repo}
	res, err := feedseval.CrawlCheck(t.Context(), cfg.Eval.Feeds, cfg.Feeds, cc, tr, 1, 1, 20, progress)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.Polls != 7*len(tr.Feeds) || res.Fetched != res.Polls {
		t.Errorf("%d polls planned, %d fetched; want %d", res.Polls, res.Fetched, 7*len(tr.Feeds))
	}
	if res.NotModified == 0 || res.NotModified == res.Polls {
		t.Errorf("%d of %d polls were 304: conditional GET should answer the unchanged feeds only", res.NotModified, res.Polls)
	}
	if res.Postings == 0 || !res.Within(0.05) {
		t.Errorf("crawler mean delay %s over %d postings (%d missed) against the trace's %s: ratio %.4f", res.CrawlMean, res.Seen, res.Missed, res.TraceMeanSeen, res.Ratio)
	}
	// Feeds that show every posting lose none, and then the crawler's mean
	// is the trace's over all postings.
	all, err := feedseval.CrawlCheck(t.Context(), cfg.Eval.Feeds, cfg.Feeds, cc, tr, 1, 1, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Missed != 0 || all.Postings != res.Postings || !all.Within(0.05) || all.TraceMeanSeen != all.TraceMean {
		t.Errorf("with 1000 items shown: %d of %d missed, ratio %.4f", all.Missed, all.Postings, all.Ratio)
	}
}
