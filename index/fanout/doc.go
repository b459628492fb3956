// Package fanout searches several indexes as one: a query goes to every
// node's index (each holding the pages of its shards' hosts), and their
// best pages are merged into the ranking one index over all the pages
// would give (issue "search across nodes"). It owns the coordinator's
// side; the shard's side is index.Index's Stats, Feedback and MatchShard
// (index/shard.go), and the merge is index.MergeShards, so `deltaq serve
// --cluster` (package cluster's transport over NATS) and `deltaq eval
// fanout` (in-process indexes) run the same code.
//
// A search is up to four rounds, each to every node at once, each node
// under Options.Timeout:
//
//  1. statistics: each node's N, summed text length and the df of the
//     query's words; the coordinator sums them (dfs_query_then_fetch).
//  2. feedback (queries RM3 expands: more than short_query_terms words):
//     each node's best feedback_docs pages, scored with the cluster's
//     statistics, with their words; the coordinator takes the best of
//     all and builds the relevance model (index.NewFeedbackModel);
//  3. statistics of the model's words new to the query, which the
//     expansion needs (it leaves out words most pages hold), then the
//     expanded query (FeedbackModel.ExpandTerms);
//  4. match: each node's best pages scored with the cluster's statistics
//     (and the expanded query), merged: the coordination rule's AND/OR
//     choice on the summed counts, the proximity component on the best
//     proximity_depth over all nodes, ties by URL.
//
// With global statistics the merged scores are the single index's, bit
// for bit; rankings differ only where one index breaks a tie by document
// number (the cut at k, and which of tied pages are RM3's feedback set).
// `deltaq eval fanout`, 3 nodes, the share of queries whose top 10 is one
// index's (the same set), with the cluster's statistics against each
// node's own: trec-mq (59,672 queries) on digitalgov-2023 split by URL
// 99.89 % against 51.72 %; on both archives split by host
// (digitalgov-2023 on one node, tldr-en on another, as the crawl
// cluster's 12 host shards fall) 99.80 % against 38.98 %; tldr-en's log
// on tldr-en by URL 99.53 % against 85.32 %. The rest are ties: the same
// scores rank by rank, up to ties at the 10th, for 100 % of queries on
// one archive and 99.99 % on both.
//
// Why statistics per query rather than exchanged periodically: the rounds
// of statistics (and RM3's feedback) are parallel over the nodes and
// exact at every moment. Periodic exchange saves the first round but is
// stale by every page indexed since: with statistics a week old (the
// archives' next week searched with this week's N, lengths and df) the
// same top 10 falls to 99.34 % on digitalgov-2023 by URL and 99.36 % on
// both archives by host (the same order to 97.6 and 97.9 %), twelve weeks
// old to 97.52 % (same order 89.32 %, a 10,000-query sample), and no score
// is the single index's any more. A
// published df table is a node's whole vocabulary (12,400 words, 104 kB
// a node on digitalgov-2023 by URL, 20,800 words and 191 kB on both
// archives), growing with the vocabulary rather than with the queries,
// and it still leaves RM3's feedback pages and the AND/OR count to a
// round per query. The rounds cost, on trec-mq over digitalgov-2023 by
// URL, 2.2 rounds and 8.5 kB of JSON per query over all nodes against
// 1 round and 3.3 kB with local statistics (most of the difference is
// RM3's feedback pages). BenchmarkFanOut (package
// cluster; trec-mq on digitalgov-2023, 3 nodes; two runs on a loaded
// 2-core machine): for a first page of 10, one index 43–45 µs a query,
// fanned out in the process 173–194 µs (about 4×: three searches and up
// to four rounds), from one node over NATS on loopback 616–791 µs (14–18×)
// with 4.7 requests and 7.7 kB of coordination a query; for the 200
// candidates `deltaq serve` ranks, one index 137–467 µs, over NATS
// 1.1–1.6 ms and 36 kB. Rounds dominate; a cache of recent statistics
// would remove the first, and only then would periodic tables pay.
//
// A node that fails or times out in a round is dropped from the later
// rounds and named in Result.Missing: the answer is partial, never a hang;
// a query every node refuses (*index.QueryError) is the caller's error.
//
// State: none between searches; a search holds each node's answers (at
// most max(limit, proximity_depth) pages plus the OR fallback's few, and
// for RM3 feedback_docs pages' words per node).
//
//	res, err := fanout.Search(ctx, []fanout.Node{{Name: "a", Shard: ixA}, {Name: "b", Shard: ixB}}, q, 10,
//		fanout.Options{Retrieval: cfg.Index.Retrieval, Timeout: 2 * time.Second})
//	if res.Partial() { ... res.Missing ... }
//	for _, r := range res.Ranked { ... r.URL, r.Score ... }
package fanout
