// Package synceval is `deltaq eval sync`: the offline evaluation of
// re-download policies against a query log, as in thesis §4.7 (Pandey,
// CMU 2008).
//
// An archive of weekly snapshots is replayed on loopback. Week 0 is
// crawled completely; in each later week a policy may re-download B pages
// through the real frontier (frontier.Plan with split.recrawl = 1), the
// real crawler and repository, and the real index, which measures ΔQ_A
// as it applies the week's batch (§4.6). Then the repository quality of
// eq. 4.5 is measured against that week's live pages:
//
//	Q(W^L) = Σ_q f_q Σ_{p ∈ A(q, W^L)} I(R(p, A(q, W^L)))·S(W[p], q)
//	         ─────────────────────────────────────────────────────────
//	         Σ_q f_q Σ_{p ∈ A(q, W)}   I(R(p, A(q, W)))·S(W[p], q)
//
// with I(r) = c·r^(−3/2) (eq. 4.2). What a query means follows
// eval.sync.semantics. Under "searcher", the default, A(q, W^L) is the
// local index's answer as `deltaq serve` ranks it (index.Ranker.Match:
// best-match BM25 over deltaq's own statistics, the coordination rule
// with its OR fallback, RM3 for long queries), and S(W[p], q) is the same
// model applied to the live copy of p under the live week's N and mean
// length (searcher.go, index/matchscore.go), so the re-crawl is measured
// on what users see. Under "thesis", A(q, W^L) is Bleve's answer to the
// terms ANDed (index.Ranker.Rank) and S Bleve's conjunction score
// (index.ConjunctionScore), §4.7's approximation, kept for the thesis's
// reproduction. searcher.go applies the searcher's model to the live
// pages, which have no index, through index/matchscore.go and
// index.RelevanceModel; TestMatchScoreIsMatch and
// TestEveryPageEveryWeekKeepsQualityOne pin it to index.Ranker.Match.
//
// Under "searcher", A(q, ·) is, on both sides, the first ranking.candidates
// results (model.depth; eval.sync reads the key, 200 by default): the
// searcher orders that many and its pager offers no more, so a page below
// them is never inspected, and I(r) past the cut is 0 for every user. Q
// then measures exactly what `deltaq serve` can show. The cut keeps Q in
// [0, 1]: the ideal side takes the K best live scores, and by the
// rearrangement inequality no K distinct pages in any order score more
// against I(r) decreasing. The relevance filter sums the same K scores,
// and μ(p) of EBR and LambdaCrawl counts the same ranks. Under "thesis"
// every result counts, as §4.7 has it.
//
// The ideal side, A(q, W), depends only on the week and is computed once
// (quality.go). Under "searcher" it holds per (week, query) the ideal
// value and how the searcher answered on the live week (the words scored
// with their idf and weight, RM3's included, and whether the
// coordination rule applied: answerPlan), not the answer: a local
// answer's page is scored on demand from its live copy and the week's
// mean length, the same float64 the answer gave it. Memory is W·|Q|·(24 +
// 32·t̄) bytes (t̄ the mean words scored per query), whatever the answers'
// lengths; the report states it: on digitalgov-2023 21.1 MB for 2,000
// trec-mq queries, 434 MB for all 40,047 the knee keeps (t̄ ≈ 6: RM3).
// Under "thesis" it holds every matching page's live score (one URL id
// and one float64 per week, query and page). The local side keeps each
// query's full answer, whose order the incremental check below needs (a
// page below the cut may rise into it when N or the mean length move),
// and reads its first K.
//
// The workload is filtered by relevance as §4.7 does: queries whose summed
// week-0 score falls below the knee of the sorted scores are dropped
// (knee.go). With the searcher's semantics the knee keeps 1,084 of the
// 1,145 tldr-brew-installs term lists matching tldr-en's week 0, and
// 40,047 of the 50,393 trec-mq term lists matching digitalgov-2023's
// (nearly every query shares a word with some page; ANDed, 1,943 are
// kept), which eval.sync.max_queries samples (configs/default.yaml).
// The live web is, by default, the pages present in every week
// (§4.7's data sets; archive.Persistent). Every policy learns its
// per-page parameters from its own re-downloads only, as a deployed
// crawler must (eval.sync.history = own, the headline); with "whole" they
// are estimated from the whole archive as §4.7.2 does (history.go) — the
// thesis's hindsight, labelled so in the report and plots. No run reads
// the replay's sitemap <lastmod> dates (harness.frontierConfig), which
// give every page's true change week, fetched or not.
//
// A run is a function of its configuration. The clock is manual, the
// replay serves fixed bytes, a deferred fetch keeps its planned slot
// (frontier), and the index merges segments only in a Compact
// (index.Options.MergeOnlyOnCompact), so Bleve's BM25 statistics, and the
// ΔQ_A measured in each batch, depend on the batches alone, not on when a
// background merge finished. Every week the index's statistics are made
// those of its content alone (harness.go: env.compact): the ΔQ_A
// measurement and H_q use Bleve's average field length, the text field's
// vocabulary summed over segments, under both semantics, and so do the
// answers under "thesis". Rather than rewrite every segment (Compact:
// about 40 % of a run's time), the run tells the index the vocabulary of
// what it holds, which it follows from the change feed (ownStats.vocab),
// and the index counts its segments as that one (index.AssumeCompacted),
// which gives the compacted statistics bit for bit; the week-0 index
// every run starts from is compacted for real. The workload sample of
// eval.sync.max_queries is seeded.
//
// Answers are re-ranked only when needed (local.go): a query keeps last
// week's answer unless a re-indexed page's old or new copy holds one of
// its terms; under "searcher" a kept answer is re-scored from the corpus
// under the index's new N and mean length and re-ranked if it fell out of
// order (own.go), and RM3-expanded queries are re-ranked every week. A
// query is re-ranked on the indexed copies in the corpus, not on Bleve:
// the model on them (liveIndex, index.ConjunctionScore) gives Bleve's
// scores bit for bit, and eval.sync.rerank "all" ranks every query on
// Bleve, compacted for real, as the reference
// (TestIncrementalRerankingIsExact).
//
// With hindsight under the searcher's semantics, deltaq trails SBR at
// small budgets (digitalgov-2023, trec-mq, τ = 0.2: −3.9 s.e. at B = 100,
// ahead 13 of 47 weeks; +3.4 and +8.2 s.e. at B = 200 and 400). The cause
// is the impact side of its estimate: the ΔQ_A the index records
// (§4.6.1: the single-term workload Q′, each term's histogram over all
// ranks) ranks what a change does to the searcher's Q only loosely, and
// with the whole archive a page's impact is the mean of about 40 such
// records, which outweigh the stake prior, so their bias is learned, not
// averaged away. Against the realised ΔQ of each of the 737 page changes
// of weeks 6, 12, …, 36 (Q of week w with that page alone refreshed,
// every other page at its week w − 1 copy; BenchmarkImpactCheck), the
// recorded ΔQ_A has Spearman correlation 0.61 and Pearson 0.23. The home
// page gains 8.2e-5 of realised ΔQ per unit of ΔQ_A, dated articles
// 1.0e-4, the paginated lists (657 of the changes) 4.9e-4: short pages
// holding many workload words, each ranked high alone, are worth less to
// queries of up to four words, which need all of them and carry 73 % of
// the realised ΔQ. The other suspects do not explain it: every changed
// page was in some query's first 200 results (the cut never decides),
// and words only RM3 added carry 0.3 % of the realised ΔQ. In a trial,
// ranking by the stake, μ(p) over the searcher's first 200 results,
// instead of the recorded ΔQ_A put deltaq ahead of SBR (+2.3 s.e. at
// B = 100, +6.7 at 200); by change rate alone it fell behind (−8.4,
// −9.0). Online, deltaq reached mean Q 0.996560 at B = 100 while it read
// the replay's sitemap dates; without them it reaches 0.988291, below
// LambdaCrawl's 0.989599 (RESULTS.md). Closing the gap needs a ΔQ_A
// measured on the workload's queries as the searcher answers them, which
// the index does not record.
//
// A run's randomness, the deltaq policy's Thompson draws, is a function
// of frontier.seed, the URL and the week, so results.csv is the same bytes
// at any eval.sync.workers (TestSweepIsReproducible). One seed's run is
// one sample of what the policy does, and on the real archives it moves
// with the seed by far more than the weeks' noise: tldr-en at B = 50,
// mean Q 0.997282, 0.997423 and 0.997820 on seeds 1–3, each margin over
// uniform −0.1, +2.9 and +12.7 paired weekly standard errors. So deltaq
// is run with eval.sync.seeds seeds at each budget; the tables show their
// mean, and its margin's standard error adds the seeds' spread to the
// weeks' (target.go: Margin).
//
// With eval.sync.splits (split.go) B is one budget for re-downloads and
// OD-WIN discovery (thesis ch. 3, §7.2's joint problem): each run gives a
// fixed share of B, or the adaptive share of frontier.split.adaptive, to
// discovery re-fetches chosen by discovery.Stats, fed by the run's own
// re-fetches; what they leave goes to first fetches of the new URLs found.
// Week 0's complete crawl counts as the site's full re-crawl, and none
// follows. The report pairs each split with the best fixed split of its
// policy and budget, week by week. A run with a discovery share crawls in
// rounds (crawler.RunOptions.Rounds): which new URLs a week's budget
// fetches, and which re-fetch each is credited to, would otherwise follow
// the order parallel fetches commit (tldr-en, B = 100, d = 0.25: the same
// fetch counts, Q different in 27 of 47 weeks). With rounds its
// results.csv is the same bytes at any eval.sync.crawl_parallel
// (TestSplitRunsAreReproducible).
//
// Run writes report.md, results.csv, fig. 4.4 (quality against budget),
// Q per week, fig. 4.3 (forecastability of δQ_A over the first half of
// the weeks against the second) and the workload's knee, as SVG and PNG;
// with eval.sync.refetches, refetches.csv, every page each run fetched by
// week and whether it had changed, and in the report a table of the
// fetches' shares by the page's week-0 stake, to compare what policies
// spend a budget on.
// Progress goes week by week through internal/progress; an interrupted
// sweep writes the runs that finished, its report marked partial
// (Summary.Missing) and listing only the plots those runs could draw, and
// returns an error naming the missing runs and the plots not drawn.
// The report adds, per policy, the share of fetches that found a change,
// deltaq's paired weekly margins over the best baseline, and the wall
// time by stage and the peak memory.
package synceval
