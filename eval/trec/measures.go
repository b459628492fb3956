package trec

import (
	"fmt"
	"math"
	"sort"
)

// Measures are the retrieval measures of one topic, or their means.
type Measures struct {
	NDCG10 float64 // ndcg_cut.10
	MAP    float64 // map (average precision for one topic)
	MRR    float64 // recip_rank
	P10    float64 // P_10
	R100   float64 // recall_100
	// Judged10 is the share of the first 10 places holding a judged
	// document (judged@10: P_10 at relevance level 0, trec_eval -l0; a
	// negative qrels value is not a judgement there). An
	// unjudged document counts as not relevant, so a run that retrieves
	// what the judgements' pool did not is scored low by that alone.
	Judged10 float64
}

// String is m as one line, each measure to four places, as the evaluation
// commands print it.
func (m Measures) String() string {
	return fmt.Sprintf("nDCG@10 %.4f  MAP %.4f  MRR %.4f  P@10 %.4f  R@100 %.4f  judged@10 %.4f",
		m.NDCG10, m.MAP, m.MRR, m.P10, m.R100, m.Judged10)
}

// Result holds per-topic measures and their means.
type Result struct {
	Topics map[string]Measures
	Mean   Measures
	// Evaluated counts the judged topics the means are over: every topic
	// of the qrels. Missing lists those the run does not hold (a refused
	// query); each scores 0 in the means, as under trec_eval -c, so a
	// searcher cannot improve its means by refusing a topic.
	Evaluated int
	Missing   []string
}

// Evaluate computes the measures of run against qrels.
func Evaluate(run Run, qrels Qrels) Result {
	res := Result{Topics: map[string]Measures{}}
	for t, judged := range qrels {
		hits, ok := run[t]
		if !ok {
			res.Missing = append(res.Missing, t)
		}
		m := topicMeasures(ordered(hits), judged)
		res.Topics[t] = m
		res.Evaluated++
		res.Mean.NDCG10 += m.NDCG10
		res.Mean.MAP += m.MAP
		res.Mean.MRR += m.MRR
		res.Mean.P10 += m.P10
		res.Mean.R100 += m.R100
		res.Mean.Judged10 += m.Judged10
	}
	sort.Strings(res.Missing)
	if n := float64(res.Evaluated); n > 0 {
		res.Mean.NDCG10 /= n
		res.Mean.MAP /= n
		res.Mean.MRR /= n
		res.Mean.P10 /= n
		res.Mean.R100 /= n
		res.Mean.Judged10 /= n
	}
	return res
}

func topicMeasures(hits []Hit, judged map[string]int) Measures {
	var m Measures
	judged10 := 0
	for _, h := range hits[:min(10, len(hits))] {
		// A negative value is trec_eval's "pooled but not judged", which
		// -l0 does not count.
		if rel, ok := judged[h.Doc]; ok && rel >= 0 {
			judged10++
		}
	}
	m.Judged10 = float64(judged10) / 10
	numRel := 0
	var gains []int // relevance values ≥ 1, for the ideal ranking
	for _, rel := range judged {
		if rel >= 1 {
			numRel++
			gains = append(gains, rel)
		}
	}
	relRet, relRet10, relRet100 := 0, 0, 0
	sumPrec, dcg := 0.0, 0.0
	for i, h := range hits {
		rel := judged[h.Doc]
		if rel >= 1 {
			relRet++
			sumPrec += float64(relRet) / float64(i+1)
			if m.MRR == 0 {
				m.MRR = 1 / float64(i+1)
			}
			if i < 10 {
				relRet10++
			}
			if i < 100 {
				relRet100++
			}
		}
		if i < 10 && rel > 0 {
			dcg += float64(rel) / discount(i)
		}
	}
	if numRel == 0 {
		return Measures{Judged10: m.Judged10}
	}
	m.MAP = sumPrec / float64(numRel)
	m.P10 = float64(relRet10) / 10
	m.R100 = float64(relRet100) / float64(numRel)
	sort.Sort(sort.Reverse(sort.IntSlice(gains)))
	ideal := 0.0
	for i, g := range gains {
		if i >= 10 {
			break
		}
		ideal += float64(g) / discount(i)
	}
	if ideal > 0 {
		m.NDCG10 = dcg / ideal
	}
	return m
}

// discount is trec_eval 9's nDCG discount for the 0-based rank i:
// log2(rank+1) with rank = i+1, so rank 1 is undiscounted and rank 2 is
// discounted by log2(3).
func discount(i int) float64 {
	return math.Log2(float64(i + 2))
}
