package synceval

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
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
	type page struct{ stake, changes float64 }
	var pages []page
	var stakes, counts []float64
	fmt.Fprintln(rows, "url,stake,changes")
	for _, d := range h.c.live[0] {
		p := page{h.baseStakes[d.url], changes[d.url]}
		pages = append(pages, p)
		stakes, counts = append(stakes, p.stake), append(counts, p.changes)
		fmt.Fprintf(rows, "%s,%g,%g\n", h.c.urls[d.url], p.stake, p.changes)
	}
	fmt.Fprintf(summary, "%s: %d pages live in week 0; stake against weeks changed in, Spearman %.3f\n",
		h.c.name, len(pages), pearson(ranks(stakes), ranks(counts)))
	slices.SortFunc(pages, func(a, b page) int { return cmp.Compare(a.stake, b.stake) })
	describe := func(name string, ps []page) {
		var sum float64
		often := 0
		for _, p := range ps {
			sum += p.changes
			if p.changes >= 40 {
				often++
			}
		}
		fmt.Fprintf(summary, "%-12s %5d pages, stake %.3g to %.3g: %.3f changes on average, %d changed in 40 weeks or more\n",
			name, len(ps), ps[0].stake, ps[len(ps)-1].stake, sum/float64(max(1, len(ps))), often)
	}
	zero := 0 // pages[:zero] have no stake
	for zero < len(pages) && pages[zero].stake <= 0 {
		zero++
	}
	if zero > 0 {
		describe("no stake", pages[:zero])
	}
	rest := pages[zero:]
	for i := range 10 {
		if part := rest[i*len(rest)/10 : (i+1)*len(rest)/10]; len(part) > 0 {
			describe(fmt.Sprintf("tenth %d", i+1), part)
		}
	}
	return nil
}
