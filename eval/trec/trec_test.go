package trec

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const qrelsText = `
1 0 a 1
1 0 b 0
1 0 c 2
1 0 d 1
2 0 x 0
2 0 y 0
3 0 z 1
`

func TestMeasuresMatchHandComputedValues(t *testing.T) {
	qrels, err := ReadQrels(strings.NewReader(qrelsText))
	if err != nil {
		t.Fatal(err)
	}
	run := Run{
		// Topic 1: scores tie between b and c; trec_eval breaks the tie by
		// docno descending, so c (2) ranks above b (0). Order: a, c, b, e, d.
		"1": {{"a", 3}, {"b", 2}, {"c", 2}, {"e", 1}, {"d", 0.5}},
		// Topic 2: no relevant document at all.
		"2": {{"x", 1}, {"y", 0.5}},
		// Topic 4 is not judged and is ignored.
		"4": {{"q", 1}},
	}
	res := Evaluate(run, qrels)
	if res.Evaluated != 3 || len(res.Missing) != 1 || res.Missing[0] != "3" {
		t.Fatalf("evaluated %d, missing %v; want 3 and [3]", res.Evaluated, res.Missing)
	}
	m := res.Topics["1"]
	// Relevant: a (1), c (2), d (1); R = 3. Ranks: a=1, c=2, d=5.
	wantAP := (1.0/1 + 2.0/2 + 3.0/5) / 3
	// DCG: a at 1 → 1/log2(2) = 1; c at 2 → 2/log2(3); d at 5 → 1/log2(6).
	dcg := 1 + 2/math.Log2(3) + 1/math.Log2(6)
	// Ideal: 2, 1, 1 → 2/log2(2) + 1/log2(3) + 1/log2(4).
	idcg := 2 + 1/math.Log2(3) + 1/math.Log2(4)
	// Judged: a, b, c, d of the five; e is not.
	want := Measures{NDCG10: dcg / idcg, MAP: wantAP, MRR: 1, P10: 0.3, R100: 1, Judged10: 0.4}
	if !near(m, want) {
		t.Fatalf("topic 1 = %+v\nwant      %+v", m, want)
	}
	// Its two documents are judged all the same.
	if z := res.Topics["2"]; z != (Measures{Judged10: 0.2}) {
		t.Fatalf("topic without relevant documents = %+v, want zeros but judged@10 0.2", z)
	}
	// Topic 3 is judged but not in the run (refused): it scores 0 and
	// counts in the means.
	if z := res.Topics["3"]; z != (Measures{}) {
		t.Fatalf("refused topic = %+v, want zeros", z)
	}
	mean := Measures{NDCG10: want.NDCG10 / 3, MAP: want.MAP / 3, MRR: 1.0 / 3, P10: 0.1, R100: 1.0 / 3, Judged10: 0.2}
	if !near(res.Mean, mean) {
		t.Fatalf("mean = %+v, want %+v", res.Mean, mean)
	}
}

func TestFirstRelevantRankAndCutoffs(t *testing.T) {
	qrels := Qrels{"t": {"r": 1}}
	var hits []Hit
	for i := range 150 {
		hits = append(hits, Hit{Doc: "n" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Score: float64(200 - i)})
	}
	hits = append(hits, Hit{Doc: "r", Score: 200 - 11.5}) // twelve documents score higher: rank 13
	m := Evaluate(Run{"t": hits}, qrels).Topics["t"]
	if math.Abs(m.MRR-1.0/13) > 1e-12 || m.P10 != 0 || m.R100 != 1 || m.NDCG10 != 0 {
		t.Fatalf("measures = %+v; want MRR 1/13 (rank 13), P@10 0, R@100 1, nDCG@10 0", m)
	}
}

func TestRunRoundTripAndOrdering(t *testing.T) {
	run := Run{"2": {{"b", 1}, {"c", 1}, {"a", 5}}, "1": {{"z", 0}}}
	var buf bytes.Buffer
	if err := run.Write(&buf, "deltaq"); err != nil {
		t.Fatal(err)
	}
	want := "1 Q0 z 1 0 deltaq\n2 Q0 a 1 5 deltaq\n2 Q0 c 2 1 deltaq\n2 Q0 b 3 1 deltaq\n"
	if buf.String() != want {
		t.Fatalf("run file:\n%s\nwant\n%s", buf.String(), want)
	}
	back, err := ReadRun(&buf)
	if err != nil || len(back["2"]) != 3 {
		t.Fatalf("ReadRun = %v, %v", back, err)
	}
	if err := (Run{"1": {{"bad doc", 1}}}).Write(&buf, "x"); err == nil {
		t.Fatal("a docno with a space was written")
	}
	if err := (Run{"1": {{"d", 2}, {"d", 1}}}).Write(&buf, "x"); err == nil || !strings.Contains(err.Error(), "docno d retrieved twice") {
		t.Fatalf("a docno retrieved twice was written (err %v): trec_eval refuses the file", err)
	}
}

// TestNegativeJudgementIsNotJudged: trec_eval reads a negative qrels
// value as a pooled document left unjudged, so P_10 at -l0, judged@10,
// does not count it.
func TestNegativeJudgementIsNotJudged(t *testing.T) {
	qrels := Qrels{"t": {"a": 1, "u": -1, "n": 0}}
	m := Evaluate(Run{"t": {{"a", 3}, {"u", 2}, {"n", 1}}}, qrels).Topics["t"]
	if m.Judged10 != 0.2 || m.P10 != 0.1 {
		t.Fatalf("judged@10 = %v, P@10 = %v; want 0.2 (a and n) and 0.1", m.Judged10, m.P10)
	}
}

// TestWrittenRunScoresAsEvaluated: scores apart by less than the sixth
// decimal are written apart, so that trec_eval, which orders the file by
// the scores it reads (ties by docno descending), scores the list Evaluate
// scored: here a above b, not b above a.
func TestWrittenRunScoresAsEvaluated(t *testing.T) {
	run := Run{"t": {{"b", 0.1234561}, {"a", 0.1234564}}}
	qrels := Qrels{"t": {"a": 1}}
	var buf bytes.Buffer
	if err := run.Write(&buf, "x"); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRun(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Evaluate(back, qrels).Topics["t"], Evaluate(run, qrels).Topics["t"]; got != want {
		t.Fatalf("the written run scores %+v, the run %+v; file:\n%s", got, want, buf.String())
	}
}

func TestBadFilesGiveLineNumbers(t *testing.T) {
	for _, c := range []struct {
		in, want string
		read     func(string) error
	}{
		{"1 0 a\n", "qrels line 1: want 4 fields", func(s string) error { _, err := ReadQrels(strings.NewReader(s)); return err }},
		{"1 0 a 1\n1 0 a 0\n", "qrels line 2: document a judged twice", func(s string) error { _, err := ReadQrels(strings.NewReader(s)); return err }},
		{"1 0 a x\n", `qrels line 1: relevance "x"`, func(s string) error { _, err := ReadQrels(strings.NewReader(s)); return err }},
		{"1 Q0 a 1 nan? t\n", "run line 1: score", func(s string) error { _, err := ReadRun(strings.NewReader(s)); return err }},
		{"1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", "run line 3: document a retrieved twice for topic 1 (first on line 1)", func(s string) error { _, err := ReadRun(strings.NewReader(s)); return err }},
		{"no tab here\n", "topics line 1", func(s string) error { _, err := ReadTopics(strings.NewReader(s)); return err }},
		{"1\ttar\n2\tzip\n\n1\ttar again\n", "topics line 4: topic 1 again (first on line 1)", func(s string) error { _, err := ReadTopics(strings.NewReader(s)); return err }},
		{"1\ttar\n" + strings.Repeat("x", maxLine+1) + "\n", "topics line 2: longer than the 1048576-byte limit", func(s string) error { _, err := ReadTopics(strings.NewReader(s)); return err }},
		{"\n  \n", "qrels: no judgments", func(s string) error { _, err := ReadQrels(strings.NewReader(s)); return err }},
	} {
		if err := c.read(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
	}
}

func near(a, b Measures) bool {
	const eps = 1e-12
	return math.Abs(a.NDCG10-b.NDCG10) < eps && math.Abs(a.MAP-b.MAP) < eps && math.Abs(a.MRR-b.MRR) < eps &&
		math.Abs(a.P10-b.P10) < eps && math.Abs(a.R100-b.R100) < eps && math.Abs(a.Judged10-b.Judged10) < eps
}

// TestReadTopicsDropsAByteOrderMark: a topics file saved with a UTF-8
// byte order mark gives its first topic the id the qrels know, not one
// with the mark, which no judgment matches.
func TestReadTopicsDropsAByteOrderMark(t *testing.T) {
	topics, err := ReadTopics(strings.NewReader("\ufeff40\tada accessible\n389\tpeace corps website\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(topics) != 2 || topics[0].ID != "40" {
		t.Errorf("topics = %q, want the first id 40", topics)
	}
}
