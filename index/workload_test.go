package index

import (
	"testing"

	"github.com/deltaq/deltaq/internal/querylog"
)

func TestWorkloadSplitsWithTheIndexAnalyzer(t *testing.T) {
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{})
	qs := []querylog.Query{
		{Text: "Running Shoes", Count: 3},
		{Text: "the shoe store", Count: 2},
		{Text: "shoes shoes SHOES", Count: 1}, // one query: counted once per term
		{Text: "of the and", Count: 50},       // only stop words: contributes nothing
		{Text: "agency's budget", Count: 4},   // possessive stripped
		{Text: "ignored", Count: 0},
	}
	w := NewWorkload(qs, ix.Analyzer(), 100)
	want := map[string]float64{"run": 3, "shoe": 6, "store": 2, "agenc": 4, "budget": 4}
	if w.Len() != len(want) {
		t.Fatalf("Q′ = %v, want the %d terms of %v", w.Terms(), len(want), want)
	}
	for term, f := range want {
		if got, ok := w.Freq(term); !ok || got != f {
			t.Errorf("f(%q) = %v (in Q′: %v), want %v", term, got, ok, f)
		}
	}
	for _, stop := range []string{"the", "of", "and", "running", "shoes"} {
		if _, ok := w.Freq(stop); ok {
			t.Errorf("%q is in Q′; the analyzer should have removed or stemmed it", stop)
		}
	}
	if w.Total() != 3+2+1+50+4 {
		t.Errorf("total = %v", w.Total())
	}
}

func TestWorkloadKeepsTheMostFrequentTerms(t *testing.T) {
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{})
	qs := []querylog.Query{{Text: "alpha", Count: 5}, {Text: "beta", Count: 9}, {Text: "gamma", Count: 1}, {Text: "delta", Count: 9}}
	w := NewWorkload(qs, ix.Analyzer(), 2)
	if got := w.Terms(); len(got) != 2 || got[0] != "beta" || got[1] != "delta" {
		t.Fatalf("Q′ = %v, want [beta delta]", got)
	}
}

func TestWorkloadFingerprint(t *testing.T) {
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{})
	a := NewWorkload([]querylog.Query{{Text: "budget report", Count: 1}}, ix.Analyzer(), 100)
	b := NewWorkload([]querylog.Query{{Text: "reports budgets", Count: 7}}, ix.Analyzer(), 100)
	c := NewWorkload([]querylog.Query{{Text: "budget", Count: 1}}, ix.Analyzer(), 100)
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("the same term set has different fingerprints")
	}
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("different term sets share a fingerprint")
	}
	var none *Workload
	if none.Len() != 0 || none.Fingerprint() != 0 {
		t.Error("nil workload is not empty")
	}
}

func TestSetWorkloadSwapsWhileRunning(t *testing.T) {
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), openRepo(t, t.TempDir()), Options{
		Workload: []querylog.Query{{Text: "budget", Count: 1}}})
	old := ix.Workload()
	ix.SetWorkload([]querylog.Query{{Text: "accessibility guide", Count: 2}})
	if _, ok := ix.Workload().Freq("budget"); ok {
		t.Fatal("old workload still in use")
	}
	if _, ok := old.Freq("budget"); !ok {
		t.Fatal("a workload must not change after it is built")
	}
}
