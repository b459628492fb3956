package synceval

import (
	"context"
	"fmt"
	"io"
)

// StakeChanges measures how well a page's stake in the workload, known
// before any re-fetch, predicts how often it changes (the stake classes
// of the frontier's change model). For every page live in week 0 it
// writes its stake μ(p) over the week-0 crawl's answers and the number of
// weeks its copy changed in, one CSV row each, to rows, and to summary
// their Spearman correlation and the mean change count of the pages
// without a stake and of each tenth of the others by stake.
func StakeChanges(ctx context.Context, cfg Config, rows, summary, progress io.Writer) error {
	h, done, err := checkHarness(ctx, cfg, progress)
	if err != nil {
		return err
	}
	defer done()
	changes := make([]float64, len(h.c.urls))
	for w := 1; w < h.c.weeks(); w++ {
		before := h.c.bodiesIn(w - 1)
		for _, d := range h.c.live[w] {
			if b, ok := before[d.url]; ok && b != d.body {
				changes[d.url]++
			}
		}
	}
	var stakes, counts []float64
	fmt.Fprintln(rows, "url,stake,changes")
	for _, d := range h.c.live[0] {
		stakes, counts = append(stakes, h.baseStakes[d.url]), append(counts, changes[d.url])
		fmt.Fprintf(rows, "%s,%g,%g\n", h.c.urls[d.url], h.baseStakes[d.url], changes[d.url])
	}
	fmt.Fprintf(summary, "%s: %d pages live in week 0; stake against weeks changed in, Spearman %.3f\n",
		h.c.name, len(stakes), pearson(ranks(stakes), ranks(counts)))
	for i, ids := range h.stakeGroups() {
		if len(ids) == 0 {
			continue
		}
		var sum float64
		often := 0
		for _, id := range ids {
			sum += changes[id]
			if changes[id] >= 40 {
				often++
			}
		}
		name := "no stake"
		if i > 0 {
			name = fmt.Sprintf("tenth %d", i)
		}
		fmt.Fprintf(summary, "%-12s %5d pages, stake %.3g to %.3g: %.3f changes on average, %d changed in 40 weeks or more\n",
			name, len(ids), h.baseStakes[ids[0]], h.baseStakes[ids[len(ids)-1]], sum/float64(len(ids)), often)
	}
	return nil
}
