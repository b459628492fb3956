package main

import (
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
)

// TestEvalIRScoresTheIndexAgainstQrels crawls a three-page archive and
// scores two topics whose answers are known by hand: "cherry" matches only
// its one relevant page; "durian" matches nothing.
func TestEvalIRScoresTheIndexAgainstQrels(t *testing.T) {
	page := func(body string) string { return "<html><title>t</title><body>" + body + "</body></html>" }
	fx := archivetest.Fixture{Name: "fruit", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: page(`apple <a href="/a">a</a> <a href="/c">c</a>`)},
		{URL: "/a", First: 0, Last: 0, Body: page("apple banana")},
		{URL: "/c", First: 0, Last: 0, Body: page("cherry orchard")},
	}}
	dir := t.TempDir()
	_, rs := replaytest.Fixture(t, fx, replay.Options{})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	data := filepath.Join(dir, "data")
	cfgFile := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  politeness:\n    overrides:\n      - {host: fruit.test, min_delay: 0s, per_host: 2}\n"), 0o644)
	if _, _, err := run(t, "crawl", "--config", cfgFile, "--data", data, "--allow-private",
		"--resolve", "fruit.test=127.0.0.1:"+port, "--seeds", "http://fruit.test/"); err != nil {
		t.Fatal(err)
	}
	topics := filepath.Join(dir, "topics.tsv")
	os.WriteFile(topics, []byte("1\tcherry\n2\tdurian\n"), 0o644)
	qrels := filepath.Join(dir, "qrels.txt")
	os.WriteFile(qrels, []byte("1 0 http://fruit.test/c 1\n1 0 http://fruit.test/a 0\n2 0 http://fruit.test/a 1\n"), 0o644)
	out := filepath.Join(dir, "out")
	stdout, _, err := run(t, "eval", "ir", "--data", data, "--topics", topics, "--qrels", qrels, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	// Topic 1: perfect (nDCG 1, AP 1, RR 1, P@10 0.1, R@100 1); topic 2:
	// nothing retrieved, all 0. Means over the 2 topics.
	if !strings.Contains(stdout, "2 topics: nDCG@10 0.5000  MAP 0.5000  MRR 0.5000  P@10 0.0500  R@100 0.5000") {
		t.Fatalf("eval ir printed:\n%s", stdout)
	}
	runFile, err := os.ReadFile(filepath.Join(out, "run.txt"))
	if err != nil || !strings.HasPrefix(string(runFile), "1 Q0 http://fruit.test/c 1 ") {
		t.Fatalf("run.txt = %q, %v", runFile, err)
	}
	for _, f := range []string{"report.md", "results.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
