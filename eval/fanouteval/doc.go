// Package fanouteval is `deltaq eval fanout`: how close a search fanned
// out over S indexes comes to one index over the same pages, with each
// shard's own BM25 statistics and with the cluster's (package
// index/fanout), the measure the issue "search across nodes" asks for
// (at least 90 % of trec-mq queries with the same top 10 on
// digitalgov-2023).
//
// One week of the archives is extracted as the crawler extracts it (hosts
// <name>.test, as the replay serves them) and indexed twice: whole, and
// split over S indexes, one per node, by each partition: host (each host
// in one of the cluster's cluster.shards host shards, cluster.ShardOf, the
// shards dealt to the nodes in turn as leases spread them; an archive is
// one host, so one archive alone puts every page on one node and the
// comparison says nothing: give both archives) and url (cluster.ShardOf
// of the URL among S: every node a sample of every host, where the
// statistics differ most). Every query of the log (or a seeded
// sample) is asked of the single index through the searcher's Retrieve
// and of each split through fanout.Search, the code `deltaq serve
// --cluster` runs, and the top k are compared: the share with the same
// set, with the same order, the same up to ties at the k-th score
// (fanout.SameUpToTies), the mean overlap |A∩B|/max(|A|, |B|), the
// largest score difference of a page in both, and the rounds and JSON
// bytes of coordination per query (fanout.Measured). With
// eval.fanout.stale_weeks, the case of statistics exchanged periodically
// is measured too: the nodes' statistics from their indexes of the week,
// their pages (and the single index compared with) stale_weeks later.
//
// The strict shares vary slightly between runs: one index breaks ties at
// the k-th score, and among RM3's feedback pages, by document number,
// which Bleve assigns within a batch in no fixed order. The query sample
// is seeded; every other measure is a function of the pages.
//
// State: the indexes live in a temporary directory removed at the end;
// in memory, the archives and the extracted pages. It writes report.md,
// results.csv and overlap.svg/png (queries by pages shared) into --out.
//
//	sum, err := fanouteval.Run(ctx, fanouteval.Options{Config: cfg.Eval.Fanout, Index: cfg.Index,
//		Repo: cfg.Repo, Extract: cfg.Crawler.Extract, Archives: archives, Queries: queries,
//		Partitions: []fanouteval.Partition{fanouteval.ByHost, fanouteval.ByURL}}, out, progress)
package fanouteval
