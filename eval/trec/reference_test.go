package trec

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// referenceScore is an independent trec_eval-style scorer, written from
// trec_eval 9's measure definitions and sharing no code with Evaluate: it
// reads the run and qrels as text, orders each topic's lines by score
// descending and docno descending (trec_eval's qsort comparison), and
// averages over every qrels topic (-c). Measures: ndcg_cut.10, map,
// recip_rank, P_10, recall_100, in that order.
func referenceScore(t *testing.T, runText, qrelsText string) [5]float64 {
	t.Helper()
	rel := map[string]map[string]int{}
	for _, line := range strings.Split(qrelsText, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		g, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatal(err)
		}
		if rel[f[0]] == nil {
			rel[f[0]] = map[string]int{}
		}
		rel[f[0]][f[2]] = g
	}
	type line struct {
		doc   string
		score float64
	}
	run := map[string][]line{}
	for _, l := range strings.Split(runText, "\n") {
		f := strings.Fields(l)
		if len(f) != 6 {
			continue
		}
		s, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		run[f[0]] = append(run[f[0]], line{f[2], s})
	}
	var sum [5]float64
	for topic, judged := range rel {
		ls := run[topic]
		sort.Slice(ls, func(i, j int) bool {
			if ls[i].score != ls[j].score {
				return ls[i].score > ls[j].score
			}
			return strings.Compare(ls[i].doc, ls[j].doc) > 0
		})
		var ideal []int
		for _, g := range judged {
			if g > 0 {
				ideal = append(ideal, g)
			}
		}
		if len(ideal) == 0 {
			continue
		}
		sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
		var dcg, idcg, ap, rr float64
		found, in10, in100 := 0, 0, 0
		for rank := 1; rank <= len(ls); rank++ {
			g := judged[ls[rank-1].doc]
			if rank <= 10 {
				dcg += float64(g) / math.Log2(float64(rank)+1)
			}
			if g <= 0 {
				continue
			}
			found++
			ap += float64(found) / float64(rank)
			if rr == 0 {
				rr = 1 / float64(rank)
			}
			if rank <= 10 {
				in10++
			}
			if rank <= 100 {
				in100++
			}
		}
		for rank := 1; rank <= 10 && rank <= len(ideal); rank++ {
			idcg += float64(ideal[rank-1]) / math.Log2(float64(rank)+1)
		}
		sum[0] += dcg / idcg
		sum[1] += ap / float64(len(ideal))
		sum[2] += rr
		sum[3] += float64(in10) / 10
		sum[4] += float64(in100) / float64(len(ideal))
	}
	for i := range sum {
		sum[i] /= float64(len(rel))
	}
	return sum
}

func measuresOf(m Measures) [5]float64 { return [5]float64{m.NDCG10, m.MAP, m.MRR, m.P10, m.R100} }

func assertEqualsReference(t *testing.T, runText, qrelsText string) Result {
	t.Helper()
	run, err := ReadRun(strings.NewReader(runText))
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := ReadQrels(strings.NewReader(qrelsText))
	if err != nil {
		t.Fatal(err)
	}
	res := Evaluate(run, qrels)
	got, want := measuresOf(res.Mean), referenceScore(t, runText, qrelsText)
	names := [5]string{"nDCG@10", "MAP", "MRR", "P@10", "R@100"}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-4 {
			t.Errorf("%s = %.6f, reference scorer %.6f", names[i], got[i], want[i])
		}
	}
	return res
}

func TestEvaluateEqualsReferenceScorerOnFixture(t *testing.T) {
	// The fixture has score ties (q1's three 9.5s and two 7.0s, q2's three
	// 1.0s) ordered against the rank column, unjudged documents (d07, d99,
	// d08 ...), judged non-relevant ones, graded relevance, a topic with no
	// relevant document (q3), a judged topic absent from the run (q5) and a
	// run topic without judgements (q6).
	runText, err := os.ReadFile("testdata/fixture.run")
	if err != nil {
		t.Fatal(err)
	}
	qrelsText, err := os.ReadFile("testdata/fixture.qrels")
	if err != nil {
		t.Fatal(err)
	}
	res := assertEqualsReference(t, string(runText), string(qrelsText))
	if res.Evaluated != 5 || fmt.Sprint(res.Missing) != "[q5]" {
		t.Fatalf("evaluated %d topics, missing %v; want 5 and [q5]", res.Evaluated, res.Missing)
	}
	if res.Mean.NDCG10 <= 0 || res.Mean.NDCG10 >= 1 {
		t.Fatalf("mean nDCG@10 = %v: the fixture should give a value strictly inside (0, 1)", res.Mean.NDCG10)
	}
}

func TestEvaluateEqualsReferenceScorerOnRandomRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 20 {
		var qrels, run bytes.Buffer
		for topic := range 8 {
			for d := range 40 {
				if rng.IntN(3) == 0 { // two thirds of the documents unjudged
					fmt.Fprintf(&qrels, "t%d 0 doc%03d %d\n", topic, d, rng.IntN(4))
				}
			}
			if rng.IntN(5) == 0 {
				continue // a refused topic
			}
			for d := range 30 + rng.IntN(120) {
				// Scores from a small set, so ties are frequent.
				fmt.Fprintf(&run, "t%d Q0 doc%03d %d %d x\n", topic, rng.IntN(200), d+1, rng.IntN(12))
			}
		}
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			assertEqualsReference(t, dedupeRun(run.String()), qrels.String())
		})
	}
}

// dedupeRun drops repeated (topic, docno) lines, which a run may not have.
func dedupeRun(s string) string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) != 6 || seen[f[0]+" "+f[2]] {
			continue
		}
		seen[f[0]+" "+f[2]] = true
		b.WriteString(l + "\n")
	}
	return b.String()
}
