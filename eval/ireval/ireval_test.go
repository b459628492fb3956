package ireval

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/trec"
	"github.com/deltaq/deltaq/ranking"
)

func TestMeanTopicsOverUsers(t *testing.T) {
	// Ten users who agree on 0.1 (whose running sum rounds) and disagree
	// on topic b.
	var users []map[string]trec.Measures
	for u := range 10 {
		users = append(users, map[string]trec.Measures{
			"a": {NDCG10: 0.1, MAP: 0.3},
			"b": {NDCG10: float64(u) / 10},
		})
	}
	got := meanTopics(users)
	if a := got["a"]; a != (trec.Measures{NDCG10: 0.1, MAP: 0.3}) {
		t.Errorf("topic a = %+v: users who agree must give their value exactly", a)
	}
	if b := got["b"].NDCG10; math.Abs(b-0.45) > 1e-12 {
		t.Errorf("topic b's nDCG@10 = %v, want the mean 0.45", b)
	}
}

// byQuery answers each query with its listed pages, best first.
type byQuery map[string][]string

func (b byQuery) Retrieve(_ context.Context, q string, limit int) ([]ranking.Candidate, int, error) {
	var out []ranking.Candidate
	for i, u := range b[q] {
		out = append(out, ranking.Candidate{URL: u, Title: u, Relevance: float64(len(b[q]) - i)})
	}
	return out[:min(limit, len(out))], len(out), nil
}

type noStats struct{}

func (noStats) Lookup(_ context.Context, urls []string) ([]ranking.PageStats, error) {
	return make([]ranking.PageStats, len(urls)), nil
}

// TestUnansweredTopicsAreNamed: a topic answered with no page has no line
// in the run file, so trec_eval without -c would leave it out of its means
// where the report counts it as 0; the report names it.
func TestUnansweredTopicsAreNamed(t *testing.T) {
	cfg := ranking.Config{
		Order: ranking.OrderBlend, Popularity: ranking.SourcePageRank,
		Promotion:         ranking.PromotionConfig{Rule: ranking.RuleNone, K: 2, R: 0.05},
		MonitoredFraction: 1,
		PageRank:          ranking.PageRankConfig{Damping: 0.85, Tolerance: 1e-12, MaxIterations: 1000, Interval: time.Hour},
		Candidates:        1000,
	}
	out := t.TempDir()
	sum, err := Run(t.Context(), Options{
		Retriever: byQuery{"apple": {"http://x.test/a", "http://x.test/b"}}, Stats: noStats{}, Ranking: cfg,
		Secret: make([]byte, 32), Topics: []trec.Topic{{ID: "1", Query: "apple"}, {ID: "2", Query: "durian"}},
		Qrels: trec.Qrels{"1": {"http://x.test/a": 1}, "2": {"http://x.test/a": 1}}, Depth: 100, Users: 1,
	}, out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range sum.Variants {
		if fmt.Sprint(v.Unanswered) != "[2]" || v.Mean.MRR != 0.5 {
			t.Errorf("%s: unanswered %v, MRR %v; want [2] and 0.5 (topic 2 counted as 0)", v.Name, v.Unanswered, v.Mean.MRR)
		}
	}
	rep, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(rep), "Answered with no page (scored 0; the run files have no line for them, so trec_eval counts them only with -c): relevance [2], blend [2], served [2].") {
		t.Errorf("report.md does not name the unanswered topic: %v\n%s", err, rep)
	}
	run, err := os.ReadFile(filepath.Join(out, "run.txt"))
	if err != nil || strings.Contains(string(run), "\n2 ") || strings.HasPrefix(string(run), "2 ") {
		t.Errorf("run.txt = %q, %v; want no line for topic 2", run, err)
	}
}
