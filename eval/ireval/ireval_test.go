package ireval

import (
	"math"
	"testing"

	"github.com/deltaq/deltaq/eval/trec"
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
