package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
)

// fruit is a three-page archive: a home page about apples linking to /a
// (apple banana) and /c (cherry orchard).
func fruit() archivetest.Fixture {
	page := func(body string) string { return "<html><title>t</title><body>" + body + "</body></html>" }
	return archivetest.Fixture{Name: "fruit", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: page(`apple <a href="/a">a</a> <a href="/c">c</a>`)},
		{URL: "/a", First: 0, Last: 0, Body: page("apple banana")},
		{URL: "/c", First: 0, Last: 0, Body: page("cherry orchard")},
	}}
}

// crawlFruit serves the fruit archive on loopback and crawls it into
// dir/data, returning the data directory and the fixture.
func crawlFruit(t *testing.T, dir string) (string, archivetest.Fixture) {
	t.Helper()
	fx := fruit()
	_, rs := replaytest.Fixture(t, fx, replay.Options{})
	srv := httptest.NewServer(rs)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	data := filepath.Join(dir, "data")
	cfgFile := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  sitemaps: false\n  politeness:\n    overrides:\n      - {host: fruit.test, min_delay: 0s, per_host: 2}\n"), 0o644)
	if _, _, err := run(t, "crawl", "--config", cfgFile, "--data", data, "--allow-private",
		"--resolve", "fruit.test=127.0.0.1:"+port, "--seeds", "http://fruit.test/"); err != nil {
		t.Fatal(err)
	}
	return data, fx
}

// TestEvalIRScoresTheIndexAgainstQrels crawls a three-page archive and
// scores two topics whose answers are known by hand: "cherry" matches only
// its one relevant page; "durian" matches nothing.
func TestEvalIRScoresTheIndexAgainstQrels(t *testing.T) {
	dir := t.TempDir()
	data, _ := crawlFruit(t, dir)
	topics := filepath.Join(dir, "topics.tsv")
	os.WriteFile(topics, []byte("1\tcherry\n2\tdurian\n3\t-cherry\n"), 0o644)
	qrels := filepath.Join(dir, "qrels.txt")
	os.WriteFile(qrels, []byte("1 0 http://fruit.test/c 1\n1 0 http://fruit.test/a 0\n2 0 http://fruit.test/a 1\n3 0 http://fruit.test/a 1\n"), 0o644)
	out := filepath.Join(dir, "out")
	stdout, _, err := run(t, "eval", "ir", "--data", data, "--topics", topics, "--qrels", qrels, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	// Topic 1: perfect (nDCG 1, AP 1, RR 1, P@10 0.1, R@100 1, its one
	// page judged: judged@10 0.1); topic 2: nothing retrieved, all 0;
	// topic 3 ("-cherry", nothing to search for) is refused: 0, and
	// listed. Means over the 3 judged topics.
	for _, variant := range []string{"relevance", "blend", "served"} {
		if !strings.Contains(stdout, variant+": 3 topics: nDCG@10 0.3333  MAP 0.3333  MRR 0.3333  P@10 0.0333  R@100 0.3333  judged@10 0.0333  refused 1") {
			t.Fatalf("eval ir printed:\n%s", stdout)
		}
	}
	rep, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(rep), "Refused: [3]") {
		t.Fatalf("report.md does not list the refused topic: %v\n%s", err, rep)
	}
	// The three variants answer every topic alike here: paired over the
	// 3 judged topics, no difference (p = 1), and no topic either side
	// wins.
	for _, row := range []string{
		"| blend − relevance | nDCG@10 | +0.0000 | 0.0000 | +0.0 | 1.0000 | 0 | 0 | 3 |",
		"| served − blend | MAP | +0.0000 | 0.0000 | +0.0 | 1.0000 | 0 | 0 | 3 |",
	} {
		if !strings.Contains(string(rep), row) {
			t.Errorf("report.md lacks the paired row %q:\n%s", row, rep)
		}
	}
	if topics, err := os.ReadFile(filepath.Join(out, "topics.csv")); err != nil ||
		!strings.Contains(string(topics), "1,relevance,1,1,1,0.1,1,0.1\n") || strings.Count(string(topics), "\n") != 1+3*3 {
		t.Errorf("topics.csv: want a header and 3 topics × 3 variants, topic 1 perfect: %v\n%s", err, topics)
	}
	// Qrels that judge none of the topics asked would give a report of
	// zeros: refused, naming both sides.
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("9 0 http://fruit.test/a 1\n"), 0o644)
	if _, _, err := run(t, "eval", "ir", "--data", data, "--topics", topics, "--qrels", other, "--out", filepath.Join(dir, "out2")); err == nil ||
		!strings.Contains(err.Error(), `none of the 3 topics (ids such as "1") has a judgment in the qrels (topics such as ["9"])`) {
		t.Fatalf("qrels judging no topic asked: %v", err)
	}
	// A judged topic the topics file does not ask scores 0 in every mean:
	// the report names it.
	two := filepath.Join(dir, "two.tsv")
	os.WriteFile(two, []byte("1\tcherry\n2\tdurian\n"), 0o644)
	if _, _, err := run(t, "eval", "ir", "--data", data, "--topics", two, "--qrels", qrels, "--out", filepath.Join(dir, "out3")); err != nil {
		t.Fatal(err)
	}
	if rep, err := os.ReadFile(filepath.Join(dir, "out3", "report.md")); err != nil || !strings.Contains(string(rep), "2 topics asked, 3 judged") ||
		!strings.Contains(string(rep), "Judged but not asked (scored 0): [3].") {
		t.Errorf("report.md does not name the judged topic not asked: %v\n%s", err, rep)
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

	// Interrupted as the topics start: the report is written, marked
	// partial, and the error says what is missing.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	partial := filepath.Join(dir, "partial")
	root := newRootCmd(io.Discard, &cancelAfter{marker: "ir relevance: 3 topics", cancel: cancel})
	root.SetArgs([]string{"eval", "ir", "--data", data, "--topics", topics, "--qrels", qrels, "--out", partial})
	err = root.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "0 of 3 topics searched (variant relevance), partial report in "+partial) {
		t.Errorf("interrupted eval ir: err = %v", err)
	}
	report, err := os.ReadFile(filepath.Join(partial, "report.md"))
	if err != nil || !strings.Contains(string(report), "**Partial: interrupted after 0 of 3 topics of variant relevance") ||
		strings.Contains(string(report), "Paired differences") {
		t.Errorf("partial report.md, which pairs nothing: %v\n%s", err, report)
	}
}

// TestEvalIRWithArchiveCrawlsIntoANewDataDirectory: with --archive, eval
// ir makes the repository it crawls into; only without it must --data
// hold one already.
func TestEvalIRWithArchiveCrawlsIntoANewDataDirectory(t *testing.T) {
	dir := t.TempDir()
	ar := filepath.Join(dir, "fruit")
	if err := os.Mkdir(ar, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, ar, fruit())
	topics := filepath.Join(dir, "topics.tsv")
	os.WriteFile(topics, []byte("1\tcherry\n"), 0o644)
	qrels := filepath.Join(dir, "qrels.txt")
	os.WriteFile(qrels, []byte("1 0 http://fruit.test/c 1\n"), 0o644)
	data := filepath.Join(dir, "new")
	stdout, _, err := run(t, "eval", "ir", "--archive", ar, "--data", data, "--topics", topics, "--qrels", qrels, "--out", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "relevance: 1 topics: nDCG@10 1.0000") {
		t.Errorf("eval ir printed:\n%s", stdout)
	}
	// Again on the same data: the archive's pages are there, and read.
	stdout, stderr, err := run(t, "eval", "ir", "--archive", ar, "--data", data, "--topics", topics, "--qrels", qrels, "--out", filepath.Join(dir, "out2"))
	if err != nil || !strings.Contains(stdout, "nDCG@10 1.0000") || !strings.Contains(stderr, "already holds the archive's pages") {
		t.Errorf("eval ir again: %v\n%s%s", err, stdout, stderr)
	}
	// Another archive on the same data would judge pages its qrels do
	// not name: refused.
	veg := filepath.Join(dir, "veg")
	if err := os.Mkdir(veg, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, veg, archivetest.Fixture{Name: "veg", Weeks: 1, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: "<html><title>veg</title><body>kale</body></html>"},
	}})
	_, _, err = run(t, "eval", "ir", "--archive", veg, "--data", data, "--topics", topics, "--qrels", qrels, "--out", filepath.Join(dir, "out3"))
	if want := "but not --archive " + veg + "'s front page http://veg.test/"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("eval ir of another archive on the same data: %v, want %q", err, want)
	}
}

// syncFixture writes a five-week archive whose pages change, and a query
// log over it, and returns a config file running eval sync on them.
func syncFixture(t *testing.T, extra string) string {
	t.Helper()
	page := func(title, words string, links ...string) string {
		b := "<html><head><title>" + title + "</title></head><body><p>" + words + "</p>"
		for _, l := range links {
			b += `<a href="` + l + `">` + l + `</a>`
		}
		return b + "</body></html>\n"
	}
	dir := t.TempDir()
	arch := filepath.Join(dir, "fx")
	if err := os.Mkdir(arch, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, arch, archivetest.Fixture{Name: "fx", Weeks: 5, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 4, Body: page("home", "garden tools and seeds", "/a", "/b", "/c")},
		{URL: "/a", First: 0, Last: 1, Body: page("apple", "apple tree care")},
		{URL: "/a", First: 2, Last: 4, Body: page("apple", "apple pie with pear")},
		{URL: "/b", First: 0, Last: 2, Body: page("pear", "pear tree pruning")},
		{URL: "/b", First: 3, Last: 4, Body: page("pear", "pear and apple cider")},
		{URL: "/c", First: 0, Last: 4, Body: page("seeds", "seeds of apple and pear trees")},
	}})
	log := filepath.Join(dir, "log.tsv")
	os.WriteFile(log, []byte("apple\t30\npear\t20\nseeds\t2\n"), 0o644)
	cfg := filepath.Join(dir, "sync.yaml")
	os.WriteFile(cfg, []byte("eval:\n  sync:\n    archive: "+arch+"\n    log: "+log+
		// One seed: a run per policy and budget, which the progress
		// tests count.
		"\n    filter: none\n    pages: all\n    policies: [uniform, deltaq]\n    budgets: [1, 2]\n    seeds: 1\n"+extra), 0o644)
	return cfg
}

func TestEvalSyncShowsRunsAndWeeksOfEveryStage(t *testing.T) {
	cfg := syncFixture(t, "")
	_, stderr, err := run(t, "eval", "sync", "--config", cfg, "--out", filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Under history own the every-page run is one of the sweep's runs.
		"fx: sweep: 5 runs of 4 weeks",
		"uniform B=all(",
		"fx: sweep: 5/5 runs done, week 20/20 (100.0%)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
}

// cancelAfter is a progress writer that cancels the evaluation once a line
// containing marker was written: an interrupt at a known point.
type cancelAfter struct {
	mu     sync.Mutex
	buf    strings.Builder
	marker string
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(string(p), c.marker) {
		c.cancel()
	}
	return len(p), nil
}

func TestInterruptedEvalSyncWritesTheFinishedRunsMarkedPartial(t *testing.T) {
	cfg := syncFixture(t, "    workers: 1\n")
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	progress := &cancelAfter{marker: "[2/5]", cancel: cancel}
	var stdout strings.Builder
	root := newRootCmd(&stdout, progress)
	root.SetArgs([]string{"eval", "sync", "--config", cfg, "--out", out})
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption", err)
	}
	for _, want := range []string{"2 of 5 runs finished", "partial report in " + out, "missing: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatalf("no report after the interruption: %v", err)
	}
	if !strings.Contains(string(report), "**Partial: the evaluation was interrupted.") || !strings.Contains(string(report), "3 did not:") {
		t.Errorf("report.md is not marked partial:\n%.600s", report)
	}
	csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The two finished runs (the all-pages run, first, among them), one
	// mean row each.
	if n := strings.Count(string(csv), ",mean,"); n != 2 {
		t.Errorf("results.csv has %d runs, want the 2 finished:\n%s", n, csv)
	}
}

// TestEvalDiscoveryRefusesAnArchiveGivenTwice: one archive named twice,
// the same way or another, is refused naming the flag and the value,
// where it used to be evaluated twice, its rows doubled.
func TestEvalDiscoveryRefusesAnArchiveGivenTwice(t *testing.T) {
	// A site of three weeks with a page new in each of the last two.
	page := func(body string) string { return "<html><title>t</title><body>" + body + "</body></html>" }
	fx := archivetest.Fixture{Name: "fruit", Weeks: 3, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 0, Body: page(`<a href="/a">a</a>`)},
		{URL: "/", First: 1, Last: 1, Body: page(`<a href="/a">a</a> <a href="/d">d</a>`)},
		{URL: "/", First: 2, Last: 2, Body: page(`<a href="/a">a</a> <a href="/d">d</a> <a href="/e">e</a>`)},
		{URL: "/a", First: 0, Last: 2, Body: page("apple")},
		{URL: "/d", First: 1, Last: 2, Body: page("date")},
		{URL: "/e", First: 2, Last: 2, Body: page("elderberry")},
	}}
	dir := filepath.Join(t.TempDir(), "fruit")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, dir, fx)
	if _, _, err := run(t, "eval", "discovery", "--archive", dir, "--out", t.TempDir()); err != nil {
		t.Fatalf("the archive once: %v", err)
	}
	for _, again := range []string{dir, dir + "/.", dir + "/../fruit"} {
		out := filepath.Join(t.TempDir(), "out")
		_, _, err := run(t, "eval", "discovery", "--archive", dir, "--archive", again, "--out", out)
		if want := "--archive = " + again + ": given twice"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--archive %s --archive %s: %v, want %q", dir, again, err, want)
		}
		if _, err := os.Stat(filepath.Join(out, "report.md")); err == nil {
			t.Errorf("--archive %s --archive %s: a report written", dir, again)
		}
	}
}

// TestEvalIRWithArchiveResumesAnInterruptedCrawl: a crawl of the archive
// into --data cut short (here by --max-pages, as by Ctrl-C or kill -9)
// leaves the front page stored and the rest queued; eval ir again on that
// --data finishes the crawl before judging, instead of scoring the part
// crawled as the whole archive.
func TestEvalIRWithArchiveResumesAnInterruptedCrawl(t *testing.T) {
	dir := t.TempDir()
	ar := filepath.Join(dir, "fruit")
	if err := os.Mkdir(ar, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, ar, fruit())
	_, rs := replaytest.Fixture(t, fruit(), replay.Options{})
	srv := httptest.NewServer(rs)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	data := filepath.Join(dir, "data")
	cfgFile := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  sitemaps: false\n  politeness:\n    overrides:\n      - {host: fruit.test, min_delay: 0s, per_host: 2}\n"), 0o644)
	if _, _, err := run(t, "crawl", "--config", cfgFile, "--data", data, "--allow-private", "--max-pages", "1",
		"--resolve", "fruit.test=127.0.0.1:"+port, "--seeds", "http://fruit.test/"); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	topics := filepath.Join(dir, "topics.tsv")
	os.WriteFile(topics, []byte("1\tcherry\n"), 0o644)
	qrels := filepath.Join(dir, "qrels.txt")
	os.WriteFile(qrels, []byte("1 0 http://fruit.test/c 1\n"), 0o644)
	stdout, stderr, err := run(t, "eval", "ir", "--archive", ar, "--data", data, "--topics", topics, "--qrels", qrels, "--out", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "relevance: 1 topics: nDCG@10 1.0000") {
		t.Errorf("eval ir over a crawl cut short judged it part-done:\n%s%s", stdout, stderr)
	}
}
