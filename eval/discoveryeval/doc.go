// Package discoveryeval measures how well the discovery algorithms find
// new pages on the weekly archives: `deltaq eval discovery --archive DIR
// --out DIR` (thesis ch. 3).
//
// For each archive it reads every archived body once (crawler/extract),
// builds the site-internal link graph G_t of each week (links to pages of
// the same week; anchors, canonical, feed and meta-refresh links) and H_t
// between the old pages X_t (any earlier week) and the new ones Y_t
// (§3.2, §3.5.1, orphans counted apart). On these it runs:
//
//   - Table 3.2 (§3.6.6): CLIQ-WIN, COV, OD-WIN, OD-1 with full re-crawls
//     every Δ weeks (summed over eval.discovery.table_recrawl_every),
//     OD-ALL (Δ = 1), Optimal (GREEDY) and the live crawler's
//     discovery.Stats, at each budget k: average depth (cover size),
//     overhead (§3.2.1) and coverage;
//   - coverage against average cover size for Δ = 1 and 4 (figs. 3.5, 3.6);
//   - §3.6.5's upper bound: re-fetch every page that ever yielded, w = 1,
//     2, 4;
//   - GREEDY's ρ-partial covers and its coverage at cover size k
//     (§3.5.3, fig. 3.2b, fig. 3.4's 90 % and 100 % overheads);
//   - the project target: OD-WIN within 5 coverage points of the best
//     history-based algorithm at every budget.
//
// It writes report.md (our numbers beside the thesis's and why they
// differ), results.csv and SVG/PNG plots into the output directory, each
// through a temporary file renamed into place.
//
// State and bounds. One archive is in memory at a time (archive.Archive
// holds its decompressed bodies: 31 MB for tldr-en, 72 MB for
// digitalgov-2023), plus one out-link list per archived interval and one
// H_t per week. Bodies are parsed by eval.discovery.workers goroutines.
//
// Usage:
//
//	sum, err := discoveryeval.Run(ctx, cfg.Eval.Discovery,
//		[]string{filepath.Join(data, "archives", "tldr-en")}, "out/discovery", os.Stderr)
//	for _, a := range sum.Archives { fmt.Println(a.Name, a.TargetMet) }
package discoveryeval
