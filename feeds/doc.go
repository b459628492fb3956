// Package feeds decides when to poll each subscribed RSS/Atom feed so that
// new postings reach the aggregator soon after they are posted, and keeps
// what polling has learned (Sia & Cho, "Efficient Monitoring Algorithm for
// Fast News Alert"; the seed copy has its digits and formulas stripped, so
// the formulas below are the reconstruction in MONITORING-DIGEST.md §2.2).
//
// Implemented:
//   - posting model (§3): a periodic inhomogeneous Poisson process, λ(t) =
//     λ̄·shape(t), the shape over one week of hourly bins (Period, Bins) as
//     the product of a daily and a weekly pattern (Model, Learn);
//   - delay (Def. 1–2, Lemma 1): ExpectedDelay, ∫ λ(t)(τ_j − t) dt per
//     posting, exact on the placement grid;
//   - resource allocation (Thm. 1): SqrtAllocation, m_i = k·√(w_i·λ_i), with
//     per-feed floors and ceilings from max and min poll intervals (Bounds,
//     Fit), rounded to the integer optimum by single-poll exchanges;
//   - retrieval scheduling (Thm. 2, Thm. 3): Place, the iterative refinement
//     that moves each τ_j to the best slot between its neighbours until
//     λ(τ_j)(τ_{j+1} − τ_j) = ∫_{τ_{j−1}}^{τ_j} λ(t) dt holds on the grid;
//   - learning (§5): rates from a window of posting times, daily patterns
//     clustered by k-means on 24-hour share vectors (Cluster), sparse feeds
//     shrunk towards their cluster's pattern (LearnAll); posting times taken
//     from the feed when plausible (never in the future, not back-dated past
//     the previous poll), else the first-seen time (PostingTime);
//   - parsing RSS 1.0/2.0 and Atom with gofeed (Parse): items keyed by GUID,
//     else link, else content hash; bounded by feeds.max_bytes and
//     feeds.max_items; HTML and non-feeds are ErrNotAFeed.
//
// State: Store keeps each feed in the repository bucket "feeds" (repo/FORMAT.md):
// "f/<id>" the Feed (validators for conditional GET, counts, the newest
// feeds.seen_kept item keys, feeds.history_kept posting times, 64 recent
// delays) and "i/<id>/<first seen>/<hash>" the newest feeds.seen_kept items.
// A poll's result is one batch: after kill -9 a feed is as before or after
// a poll. A body that does not parse changes nothing but the feed's last
// error.
//
//	models, _ := feeds.LearnAll(cfg, postings, from, to, rng)
//	m, _ := feeds.SqrtAllocation(pollsPerWeek, weights, rates, bounds)
//	grid, _ := feeds.NewGrid(cfg.Step)
//	slots := feeds.Place(models[i], grid, m[i], cfg.Starts) // poll at slot·step after Monday 00:00 UTC
//	up, err := store.Record(ctx, id, feeds.Fetch{At: now, Status: 200, ETag: etag, Body: body})
package feeds
