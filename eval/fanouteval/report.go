package fanouteval

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/deltaq/deltaq/eval/report"
)

// write writes report.md, results.csv and the overlap histogram.
func write(out string, opts Options, sum Summary) error {
	k := opts.Config.Depth
	t := report.NewTable(fmt.Sprintf("Fan-out top %d against one index", k),
		"partition", "statistics", "shards", "pages per shard", "queries", "same set", "same order", "same scores (up to ties)",
		fmt.Sprintf("mean overlap@%d", k), "min overlap", "max |score diff|", "rounds/query", "bytes/query", "df table words/shard", "df table bytes/shard")
	for _, r := range sum.Rows {
		var parts []string
		for _, n := range r.ShardPages {
			parts = append(parts, fmt.Sprint(n))
		}
		stats := r.Statistics.String()
		if r.StaleWeeks > 0 {
			stats = fmt.Sprintf("%s, %d week(s) old", stats, r.StaleWeeks)
		}
		t.Add(string(r.Partition), stats, len(r.ShardPages), strings.Join(parts, "/"), r.Compared,
			r.SetEqual, r.ListEqual, r.TieEqual, r.Overlap, r.MinOverlap, r.MaxScoreDiff, r.Rounds, r.Bytes, r.DFTableWords, r.DFTableBytes)
	}
	t.Note("\"N week(s) old\": the cluster's statistics as published N weeks before the pages searched (statistics exchanged periodically), against one index of the later week.")
	t.Note("same scores (up to ties): the same scores rank by rank, the pages the same but for ties at the k-th score, which one index breaks by document number (Bleve numbers a batch's documents in no fixed order, so the strict shares vary slightly between runs).")
	t.Note("bytes/query: the requests and answers of every round as JSON; df table: what a shard would publish per period if statistics were exchanged periodically (its text words with their df).")
	t.Note("%d pages, %d queries asked, %d refused by the single index (no searchable words); target: the same top %d set for at least 90 %% of queries.",
		sum.Pages, sum.Queries, sum.Refused, k)
	header := opts.Header + fmt.Sprintf("\n\nTook %s.", sum.Took.Round(1e6))
	if err := report.WriteMarkdown(filepath.Join(out, "report.md"), header, t); err != nil {
		return err
	}
	if err := t.WriteCSV(filepath.Join(out, "results.csv")); err != nil {
		return err
	}
	var series []report.Series
	for _, r := range sum.Rows {
		name := string(r.Partition) + ", " + r.Statistics.String()
		if r.StaleWeeks > 0 {
			name += fmt.Sprintf(", %d week(s) old", r.StaleWeeks)
		}
		s := report.Series{Name: name}
		for i, n := range r.Hist {
			s.Add(float64(i), float64(n)/float64(max(r.Compared, 1)))
		}
		series = append(series, s)
	}
	return report.Plot{Title: fmt.Sprintf("Pages of the top %d shared with one index", k),
		X: "pages shared", Y: "share of queries", Series: series}.Write(filepath.Join(out, "overlap"))
}
