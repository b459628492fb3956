// Package ranking decides the order of search results: relevance from the
// index, popularity (PageRank over the crawled link graph, in-link count, or
// clicks), and randomized rank promotion so that new pages get a chance to
// prove themselves (thesis ch. 5).
//
// State: the repository bucket "rank" (layout in store.go): each page's
// PageRank and in-link count, written by ComputePageRank with the time of
// the computation; each page's click count and awareness count, written by
// RecordClick; one marker per (page, monitored user) so a user is counted
// once; and the generated server secret. In memory: the statistics column
// (every page's PageRank, in-links, clicks and awareness, ~100 bytes per
// page with statistics, in rows that are only ever added), loaded on the
// first Lookup and kept in step by ComputePageRank and RecordClick, so a
// query's candidates cost no repository reads; per Searcher, the row of
// each page of the last key space its candidates were numbered in (an
// index snapshot: 4 bytes per document number), so they are not looked up
// by URL either; and the PageRank computation's graph while it runs
// (O(nodes + edges)).
//
// Thesis sections:
//   - §5.4 popularity and awareness: A(p,t) is the fraction of monitored users
//     U_m who have visited p; monitored users are chosen by a hash of the user
//     id (Monitored), a ranking.monitored_fraction share of them; awareness
//     grows on a monitored user's first click through the signed redirect.
//   - §5.5 randomized rank promotion (Promote): the promotion pool (selective:
//     zero awareness; uniform: each page with probability r), the starting
//     point k and the degree of randomization r; the shuffle is seeded per
//     user and query (PromotionSeed), so pagination is consistent.
//   - §5.3 popularity sources: link-based (PageRank, in-links) and click-based.
//
// The result order is either the thesis's (popularity alone, ties by
// relevance) or a blend of normalized relevance and log-scaled popularity
// rank (Blend documents the formula and why). A search sorts the blend
// order only as far as its page reads it when the promotion pool does not
// depend on the order (RuleNone, RuleUniform, or a selective pool of all
// candidates or none, as on a cold start): the first positions, and of
// the rest only the positions a promotion takes, found by selection; the
// page is the full sort's.
//
// Result links go through RedirectPath with an HMAC-SHA256 signature
// (Signer), so the redirect is not an open redirect and clicks cannot be
// forged; package web serves the redirect, verifying with the Signer and
// recording with RecordClick.
//
//	store, err := ranking.NewStore(db, cfg.Ranking, ranking.StoreOptions{Logger: logger})
//	ix, err := index.Open(dir, cfg.Index, db, index.Options{Popularity: store.Popularity})
//	go store.RunPageRank(ctx, cfg.Ranking.PageRank.Interval, ix) // and re-index popularity
//	secret, err := store.Secret(ctx, cfg.Ranking.Secret)
//	s, err := ranking.NewSearcher(cfg.Ranking, index, store, secret, logger)
//	page, err := s.Search(ctx, userID, "go pebble", 1, 10)
//	page, err = s.Order(ctx, userID, "go pebble", cands, total, 1, 10) // candidates retrieved by the caller
//	click, err := s.Signer().Verify(rawQuery) // then store.RecordClick(ctx, click.Target, click.User)
package ranking
