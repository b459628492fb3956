// Package ireval measures what users of the searcher get against relevance
// judgements: `deltaq eval ir`. Each topic runs through the same
// ranking.Searcher that `deltaq serve` answers with (retrieval by
// index.Index, the popularity blend, randomized rank promotion), and the
// resulting lists are scored with package trec's trec_eval 9 definitions
// (nDCG@10 with gain/log2(rank+1), MAP, MRR, P@10, R@100), beside judged@10,
// the share of the first 10 places the judgements cover: measures over
// pooled judgements count an unjudged page as not relevant, so a variant
// that reaches pages no pooled system returned is under-scored, and
// judged@10 shows by how much it strayed.
//
// Variants, each a ranking.Config derived from the configured one:
//
//   - relevance: the index's best-match order alone (blend weight 0, no
//     promotion);
//   - blend: the configured order and blend, promotion off;
//   - served: the configured ranking as users get it. With promotion on,
//     each topic is asked by Users simulated users (promotion seeds differ
//     per user); the measures are their means, and the difference from
//     blend is promotion's cost.
//
// A topic the searcher refuses (a *index.QueryError, or a query outside
// ranking's limits) scores 0 and is listed; nothing is dropped from a
// mean. The run file of each variant (OUT/run.txt for served, as the first
// simulated user sees it; run-relevance.txt, run-blend.txt) is in TREC
// format with score = depth+1−rank, so trec_eval's order (score
// descending, docno descending on ties) is the served order and there are
// no ties.
//
// The report also pairs the variants topic by topic (relevance against
// bare-bm25, blend against relevance, served against blend): the mean
// difference in nDCG@10 and MAP, its standard error over the topics
// (package paired), a paired randomization test's p-value and the topics
// each side wins, so that a difference of means can be told from which
// topics happened to be judged.
//
// State: none beyond one evaluation's run lists (topics × depth URLs per
// variant); it writes report.md, results.csv (the means), topics.csv (each
// topic's measures per variant), the run files and ndcg.svg/png into the
// output directory.
//
//	sum, err := ireval.Run(ctx, ireval.Options{Retriever: r, Stats: store, Ranking: cfg.Ranking,
//		Secret: secret, Topics: topics, Qrels: qrels, Depth: 100, Users: 10}, out, progress)
package ireval
