// Package discovery decides which old pages of a site to re-fetch so that
// their links reveal the site's new pages at the least overhead (thesis
// ch. 3).
//
// Model (§3.2, graph.go). A Graph is one snapshot G_t of a site. Cover
// turns it into H_t, a Bipartite: for every old page x (seen in an earlier
// snapshot, X_t) the set N(x) of new pages (Y_t) reachable from x through
// new pages only. Orphans, new pages no old page covers, are counted but
// left out of the totals (§3.5.1). The overhead of re-fetching a set O is
// |O|/|N(O)| (§3.2.1).
//
// Algorithms, one file each:
//
//	greedy.go   GREEDY, full knowledge: k-budgeted and ρ-partial cover (§3.5.2)
//	od.go       OD: the k pages with the largest p_x = |N(x)|/N (§3.6.1)
//	cliq.go     Clusters by Jaccard ≥ 1 − ε_b and CLIQ (§3.6.2, Lemma 2, Theorem 1)
//	odwin.go    OD-WIN, OD-1, OD-ALL: OD with p_x weighted by α over full
//	            re-crawls every Δ periods (§3.6.4)
//	cliqwin.go  CLIQ-WIN and CLIQ-1 (§3.6.4)
//	cov.go      COV: the last full re-crawl's greedy cover (§3.6.3)
//	stats.go    Stats: OD-WIN for the live crawler, from per-page yields
//
// The history-based algorithms implement Policy: Observe a full re-crawl's
// H_t, then Select(site, k). Ties always go to the smaller URL, so every
// result is deterministic.
//
// State and bounds. Graph and Bipartite hold one snapshot; Cover needs, on
// top of its result, the links among new pages and one reach set per new
// page linked directly from an old page. The Policy implementations keep, per site, an estimate
// for every page that ever linked to new content (the evaluation's
// algorithms; a site's size bounds them). Stats, used by the live crawler
// and safe for concurrent use, keeps per site at most
// discovery.tracked_per_site page estimates, as many yields of the period
// being gathered, and an 8 KiB sketch counting the period's new URLs.
//
// §7.1 notes that the thesis's algorithms assume periodic complete
// re-crawls without charging for them; Stats.FullRecrawlDue tells the
// frontier when a site's Δ is up, so the cost is paid from the same budget.
//
// Load rebuilds Stats at start-up from the yields stored in the
// repository, one host at a time (memory: one host's yields).
//
// Usage:
//
//	st, err := discovery.Load(ctx, db, cfg.Discovery, 7*24*time.Hour, logger) // or NewStats: empty
//	err = st.Record(oldURL, repo.DiscoveryYield{At: fetchedAt, New: newURLs})
//	for _, u := range st.Select(host, now) { frontier.Push(u) } // ≤ per_site pages
//	h := discovery.Cover(g, func(u string) bool { return seenBefore[u] })
//	cover := discovery.PartialCover(h, 0.9) // GREEDY's 90 % cover
package discovery
