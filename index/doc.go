// Package index owns the Bleve index over the repository's indexable pages,
// the searcher's retrieval over it (best-match ranking, match.go), and the
// ΔQ_A measurement taken while the index is updated (thesis §4.6.1–4.6.2):
// it decides what each re-download was worth to searchers.
//
// State:
//
//   - The Bleve index (scorch, in its own directory) is derived data: one
//     document per indexable page (id = URL) with the fields of mapping.go,
//     the only place field and analyzer names live. It can be rebuilt from
//     the repository (Rebuild) and catches up from a watermark after a
//     crash. Backup copies it online with a repository checkpoint taken
//     between the same two batches, so the pair agrees (backup.go). Its
//     scoring model (index.scoring, BM25 or TF-IDF) is stored in its
//     mapping; reopening with another model is an error.
//   - The watermark, repository metadata "index.watermark": the index
//     generation (a random id stored inside the Bleve index) and the last
//     change-feed sequence applied. It is committed after Bleve has
//     persisted the batch, in the same repository batch as the batch's
//     measurements and snapshots, so re-applying after kill -9 is safe.
//     Each Bleve batch also records its sequence inside the index (internal
//     key "deltaq.applied"): Bleve opens an older snapshot, without an
//     error, when a newer one lost a segment file, and Open then applies
//     the feed again from where that snapshot stands.
//   - Page snapshots, repository bucket "index", one per indexed page: the
//     generation, the workload fingerprint, the fetch time of the indexed
//     version (LR(p, t)), the text field's analyzed length and the tf of
//     each workload term present (snapshot.go, ~20 bytes + 2–3 per term).
//     They give the old copy's scores without re-analyzing it.
//   - ΔQ_A measurements, repository prefix 's' kind 'd' (repo.PutDeltaQ).
//   - In memory: the workload Q′ (workload.go; one entry per distinct
//     term, at most index.workload_max_terms) and the histograms H_q
//     (histogram.go; 8·(index.histogram_buckets+2) bytes plus a map entry
//     per term with results, ~130 bytes per term with 8 buckets), both
//     swapped atomically.
//   - In memory, for retrieval (snaptext.go): the text field of the
//     snapshot searched last, built once per snapshot from the segments'
//     postings, carrying over (or deriving, for a merge) from the last
//     build what it held, and reading only the rest (snapbuild.go):
//     each term's documents and frequencies, each document's terms (the
//     forward index RM3 reads) and analyzed length, their mean, the byte
//     ranges of each posting's occurrences (snippets), and the columns a
//     result page shows, by document number: URL (and back), title,
//     fetch time, popularity and stored text, read once from the stored
//     documents; 20 bytes per posting, 8 per token, ~40 per dictionary
//     word (its id by hash), a page's text, title and URL and ~200 bytes
//     more per page (about 40 MB for digitalgov-2023's week of 5,000
//     pages, 14 MB of it the columns), replaced when a search sees
//     another snapshot (a batch or a merge). A serving index (Run)
//     builds it after each pass and searches the last one built
//     meanwhile, keeping that snapshot open (Lucene's searcher manager
//     with a warmer does the same), so no search waits for a build; a
//     page is found once its snapshot's build ends. Its builds' time and
//     segments, and the searches answered from the last snapshot built,
//     are exported to Prometheus (metrics.go). Beside it, per search running
//     at once, pooled: a page's score sums, 16 bytes per document number,
//     and for a long query RM3's word sums, 8 bytes per dictionary word.
//
// Retrieval (match.go): textbook BM25 over the text field (scored from
// the in-memory postings) with the snapshot's mean length, a
// coordination rule (all words for queries of at most
// index.retrieval.short_query_terms words, falling back to any word below
// index.retrieval.min_results pages), RM3 feedback for longer queries
// (from the in-memory forward index, its feedback pages found by MaxScore
// pruning, prune.go: the same pages, scores and ties as scoring every
// page, argued there and tested against it; the ranking's
// ranking.candidates are still scored in full, so its blend and
// promotion see exactly the best candidates), optional title and proximity
// components; quotes, -exclusions and site: filter; a stop-word query
// searches the titles, and excludes its excluded stop words there. Search and Shown read what they show from the
// snapshot's columns in memory: no stored document is read per query. A
// parsed Query remembers how the index analyzed its words, so the
// snippets of the page shown reuse the retrieval's analysis. A snippet is
// cut from the page's main text, below the title a result shows, after a
// heading that repeats the title: around its matches there, or from its
// start when only the title matches.
// shard.go serves the same retrieval as one shard of a cluster: the
// statistics of a query's words (Stats), the best pages for RM3 feedback
// (Feedback) and the best pages scored with statistics given from outside
// (MatchStats, MatchShard), merged by MergeShards into the single index's
// ranking (package index/fanout coordinates); given no statistics, a
// shard scores with its own, and Search and Retrieve never come there.
// matchscore.go gives its text score, idf and coordination in closed form
// for pages outside the index (eval sync's live web), equal to Ranker.Match
// bit for bit.
//
// Thesis:
//
//   - S(p, q) (§4.2.1) is Bleve's score of p for the term query q on the
//     text field; scorer.go reproduces it exactly from (tf, field length,
//     df, corpus statistics), for both models, including Bleve's BM25
//     "average length" (the field's vocabulary size summed over segments,
//     divided by the document count, rounded up), which moves when
//     segments merge. Compact (rank.go) makes it that of the live
//     documents; AssumeCompacted (compact.go) gives the same statistics
//     without merging, from the vocabulary a caller that followed what it
//     indexed knows (eval sync, every week).
//   - §4.6.1 Q′: queries are split with the index's own analyzer and a
//     term's frequency is the summed frequency of the queries containing it.
//   - §4.6.1 H_q: average scores over exponentially growing rank buckets
//     (1, 2–3, 4–7, …), rebuilt from the term's postings every
//     index.histogram_batches batches or index.histogram_interval; R̂ and Ŝ
//     interpolate linearly within buckets.
//   - §4.6.1 ΔQ_A: for each re-indexed page p and q ∈ S = Q′ ∩ (old ∪ new
//     terms), f_q·[(I(r2) − I(r1))·s2 + Σ_{r=r1+1}^{r2} (I(r−1) − I(r))·Ŝ(r)]
//     (and the symmetric case), I(r) = c·r^(−3/2) (eq. 4.2); exact sums up
//     to index.rank_cutoff, a closed form beyond (deltaq.go).
//   - §4.6.2: the measurement happens inside each batch. s1 is scored on
//     the index before the Bleve batch from the page's snapshot, s2 after it
//     from the analysis Bleve itself made of the new document
//     (Batch.IndexAdvanced; the fields keep AnalyzedLength and
//     AnalyzedTokenFrequencies after Index.Batch). The workload terms'
//     document frequencies are counted when H_q are built and then moved
//     by the postings each batch removes and adds (docfreq.go), so no
//     postings are read on the hot path. Only pages that had an indexed
//     copy are measured; LR(p, t) is the fetch time of the copy replaced,
//     t that of the new copy (or of the fetch that removed it).
//   - §4.6.3: the per-page work runs on all cores while Bleve writes the
//     batch to disk (Bleve runs with unsafe_batch; the watermark waits for
//     the batch's persisted callback). BenchmarkDeltaQOverhead measures it.
//   - A page's stake (stake.go), Σ f_q·I(R̂(S(p, q), H_q)) over the
//     workload terms of its snapshot: what searchers see of it now, the
//     impact side of the frontier's deltaq policy and μ(p) of EBR and
//     LambdaCrawl, read without re-downloading the page.
//
// Usage:
//
//	ix, err := index.Open(dir, cfg.Index, db, index.Options{Logger: logger, Workload: queries})
//	defer ix.Close()
//	go ix.Run(ctx, crawlerCommitted) // follow the change feed, measuring ΔQ_A
//	q, err := index.ParseQuery(`plain language -draft site:digital.gov`, cfg.Index.Limits())
//	res, err := ix.Search(ctx, q, 0, 10)            // a page of hits with snippets
//	ranked, total, err := ix.RetrieveRanked(ctx, q, 200) // URLs and scores for ranking
//	res, err := ix.RetrieveUnordered(ctx, q, 200)        // the same, unsorted, with document numbers
//	shown, err := ix.Shown(ctx, q, urls)           // titles and snippets of the page shown
//	titled, err := ix.Titles(ctx, urls)            // the same without snippets
package index
