// Package trec reads and writes TREC run and qrels files and computes the
// retrieval measures of `deltaq eval ir` exactly as trec_eval defines them:
// nDCG@10 (ndcg_cut.10), MAP (map), MRR (recip_rank), P@10 (P_10) and R@100
// (recall_100), and how much of each run the judgements cover: judged@10,
// P_10 with every judged document counted (trec_eval -l0).
//
// trec_eval's conventions, kept here: a run's documents are ordered by
// score, descending, ties broken by docno in descending byte order (the
// rank column is ignored); a document is relevant when its qrels value is
// at least 1; nDCG's gain is the qrels value and rank i (1-based) is
// discounted by log2(i+1) (trec_eval 9's ndcg_cut, Burges et al.'s form);
// the measures of a topic with no relevant document are 0. Means are over
// every judged topic of the qrels: a topic absent from the run (a query
// the searcher refused) scores 0 and is listed in Result.Missing, as
// trec_eval -c counts topics absent from a run file.
//
//	qrels, err := trec.ReadQrels(f)
//	run := trec.Run{"301": {{Doc: "d1", Score: 2.5}, ...}}
//	err = run.Write(w, "deltaq")
//	m := trec.Evaluate(run, qrels) // per topic and mean
package trec
