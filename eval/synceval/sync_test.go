package synceval_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/datasets"
)

func defaults(t testing.TB) synceval.Config {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Eval.Sync
	c.Workers = 2
	return c
}

// checkRuns asserts what holds for every run: week 0 is fully
// synchronized, no week spends more than B, and the run re-downloading
// every page keeps Q = 1.
func checkRuns(t *testing.T, sum *synceval.Summary) {
	t.Helper()
	if len(sum.Runs) == 0 {
		t.Fatal("no runs")
	}
	for _, r := range sum.Runs {
		if math.Abs(r.Q[0]-1) > 1e-9 {
			t.Errorf("%s B=%d: Q at week 0 = %v, want 1", r.Policy, r.Budget, r.Q[0])
		}
		for w := 1; w < len(r.Q); w++ {
			if r.Fetched[w] > r.Budget {
				t.Errorf("%s B=%d: week %d fetched %d", r.Policy, r.Budget, w, r.Fetched[w])
			}
			if r.Q[w] < 0 || r.Q[w] > 1+1e-9 {
				t.Errorf("%s B=%d: week %d Q = %v, outside [0, 1]", r.Policy, r.Budget, w, r.Q[w])
			}
			if r.All && math.Abs(r.Q[w]-1) > 1e-9 {
				t.Errorf("every page re-downloaded every week: week %d Q = %.12f, want 1", w, r.Q[w])
			}
		}
	}
}

// TestSweepIsReproducible runs a small sweep of every policy twice over a
// hand-made archive whose pages change, vanish and appear, under both
// scoring models and both histories, once on one worker and once on
// two: the results are the same bytes.
func TestSweepIsReproducible(t *testing.T) {
	for _, history := range []string{"own", "whole"} {
		t.Run("searcher/"+history, func(t *testing.T) {
			testSweepIsReproducible(t, synceval.SemanticsSearcher, index.ScoringBM25, history)
		})
		for _, s := range []index.Scoring{index.ScoringBM25, index.ScoringTFIDF} {
			t.Run("thesis/"+string(s)+"/"+history, func(t *testing.T) {
				testSweepIsReproducible(t, synceval.SemanticsThesis, s, history)
			})
		}
	}
}

// page is a fixture page: a title, a paragraph of words and links.
func page(title, words string, links ...string) string {
	b := "<html><head><title>" + title + "</title></head><body><p>" + words + "</p>"
	for _, l := range links {
		b += `<a href="` + l + `">` + l + `</a>`
	}
	return b + "</body></html>\n"
}

// writeArchive writes fx into a new directory named after it.
func writeArchive(t *testing.T, fx archivetest.Fixture) string {
	t.Helper()
	arch := filepath.Join(t.TempDir(), fx.Name)
	if err := os.Mkdir(arch, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, arch, fx)
	return arch
}

func testSweepIsReproducible(t *testing.T, semantics string, scoring index.Scoring, history string) {
	arch := writeArchive(t, archivetest.Fixture{Name: "fx", Weeks: 5, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 4, Body: page("home", "garden tools and seeds", "/a", "/b", "/c", "/d")},
		{URL: "/a", First: 0, Last: 1, Body: page("apple", "apple tree care and apple harvest")},
		{URL: "/a", First: 2, Last: 4, Body: page("apple", "apple pie recipes with pear")},
		{URL: "/b", First: 0, Last: 2, Body: page("pear", "pear tree pruning")},
		{URL: "/b", First: 3, Last: 4, Body: page("pear", "pear and apple cider")},
		{URL: "/c", First: 0, Last: 4, Body: page("seeds", "seeds of apple and pear trees")},
		{URL: "/d", First: 0, Last: 0, Body: page("tools", "garden tools for apple orchards")},
		{URL: "/d", First: 1, Last: 3, Body: page("tools", "garden tools on sale")},
		{URL: "/e", First: 2, Last: 4, Body: page("new", "a new page about pear jam")},
	}})
	log := filepath.Join(t.TempDir(), "log.tsv")
	if err := os.WriteFile(log, []byte("apple\t30\npear\t20\napple tree\t5\ngarden tools\t3\nseeds\t2\nunknown words\t9\n"+
		// More words than index.retrieval.short_query_terms: under the
		// searcher's semantics any of them qualifies a page and RM3
		// expands the query; no page holds them all (the thesis's AND).
		"pear tree pruning and apple cider with garden seeds\t4\n"+
		// A word no page has: the searcher answers with the other one.
		"apple zzyzx\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := defaults(t)
	cfg.Archive, cfg.Log = arch, log
	cfg.Budgets = []int{1, 2}
	cfg.Taus = []float64{0.5, 1}
	cfg.Filter, cfg.Pages = "none", "all"
	cfg.Index.Scoring = scoring
	cfg.Semantics = semantics
	cfg.History = history
	cfg.Refetches = true

	runTwice(t, cfg, func(i int, sum *synceval.Summary, out string) {
		checkRefetches(t, sum, out)
		// uniform and LambdaCrawl once per budget, deltaq once per seed
		// where it draws at random, SBR and EBR at each τ, the all-pages
		// run.
		deltaqRuns := cfg.Seeds
		if history == "whole" {
			deltaqRuns = 1
		}
		if got, want := len(sum.Runs), (2+deltaqRuns)*2+2*2*2+1; got != want {
			t.Errorf("run %d: %d runs, want %d", i, got, want)
		}
		seeds := map[uint64]int{}
		for _, r := range sum.Runs {
			if r.Policy == "deltaq" && r.Seeded {
				seeds[r.Seed]++
			}
		}
		if history == "own" && (len(seeds) != cfg.Seeds || seeds[cfg.Frontier.Seed] != 2 || seeds[cfg.Frontier.Seed+uint64(cfg.Seeds)-1] != 2) {
			t.Errorf("run %d: deltaq's runs by seed %v, want seeds %d to %d at both budgets", i, seeds, cfg.Frontier.Seed, cfg.Frontier.Seed+uint64(cfg.Seeds)-1)
		}
		if len(sum.Margins) != 2 {
			t.Errorf("run %d: %d margins, want one per budget", i, len(sum.Margins))
		}
		for _, m := range sum.Margins {
			if m.Seeds != deltaqRuns {
				t.Errorf("run %d: B=%d margin over %d seeds, want %d", i, m.Budget, m.Seeds, deltaqRuns)
			}
		}
		stale := false
		for _, r := range sum.Runs {
			stale = stale || r.MeanQ < 1-1e-6
		}
		if !stale {
			t.Error("every run kept Q = 1: the fixture's changes do not reach the workload")
		}
		kept, unknown := 5, 2
		if semantics == synceval.SemanticsSearcher {
			kept, unknown = 7, 1
		}
		if sum.Workload.Kept != kept || sum.Workload.UnknownTerm != unknown {
			t.Errorf("workload: %d kept, %d with an unknown term; want %d and %d", sum.Workload.Kept, sum.Workload.UnknownTerm, kept, unknown)
		}
		for _, f := range []string{"report.md", "quality-vs-budget.svg", "quality-vs-budget.png", "workload-knee.svg"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Error(err)
			}
		}
	})
}

// runTwice runs cfg on one worker and on two, checks every run (checkRuns
// and check, given the run's index, summary and output directory), and
// asserts that both wrote the same results.csv.
func runTwice(t *testing.T, cfg synceval.Config, check func(i int, sum *synceval.Summary, out string)) {
	t.Helper()
	var csvs [][]byte
	for i := range 2 {
		cfg.Workers = 1 + i
		out := filepath.Join(t.TempDir(), "out")
		sum, err := synceval.Run(context.Background(), cfg, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkRuns(t, sum)
		check(i, sum, out)
		csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, csv)
	}
	if !bytes.Equal(csvs[0], csvs[1]) {
		t.Errorf("two runs of the same configuration differ:\n%s\n---\n%s", csvs[0], csvs[1])
	}
}

// checkRefetches checks refetches.csv against the runs' weekly counts of
// fetches and of changes found, and, in the run re-fetching every page
// every week, that the fixture's page /a is found changed in week 2,
// when its content changes, and not in week 3.
func checkRefetches(t *testing.T, sum *synceval.Summary, out string) {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "refetches.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type runWeek struct{ policy, tau, seed, budget, week string }
	fetched, changed := map[runWeek]int{}, map[runWeek]int{}
	aChanged := map[string]string{}
	for _, r := range rows[1:] {
		k := runWeek{r[1], r[2], r[4], r[5], r[6]}
		fetched[k]++
		if r[8] == "true" {
			changed[k]++
		}
		if r[1] == "all" && strings.HasSuffix(r[7], "/a") {
			aChanged[r[6]] = r[8]
		}
	}
	for _, r := range sum.Runs {
		pol, tau, seed := r.Policy, "", ""
		if r.All {
			pol = "all"
		}
		if r.Policy == "sbr" || r.Policy == "ebr" {
			tau = strconv.FormatFloat(r.Tau, 'f', 1, 64)
		}
		if r.Seeded {
			seed = strconv.FormatUint(r.Seed, 10)
		}
		for w := 1; w < len(r.Q); w++ {
			k := runWeek{pol, tau, seed, strconv.Itoa(r.Budget), strconv.Itoa(w)}
			if fetched[k] != r.Fetched[w] || changed[k] != r.Changed[w] {
				t.Errorf("%+v: refetches.csv has %d fetches, %d changed; results %d and %d", k, fetched[k], changed[k], r.Fetched[w], r.Changed[w])
			}
		}
	}
	if aChanged["2"] != "true" || aChanged["3"] != "false" {
		t.Errorf("the all-pages run's fetches of /a: changed %q in week 2 and %q in week 3, want true and false", aChanged["2"], aChanged["3"])
	}

	// The report's table of fetches by stake covers the fetches of every
	// page live in week 0: all but /e, which appears in week 2, and the
	// sitemap.
	type policyBudget struct{ policy, budget string }
	all, week0 := map[policyBudget]float64{}, map[policyBudget]float64{}
	for _, r := range rows[1:] {
		k := policyBudget{r[1], r[5]}
		all[k]++
		switch strings.TrimPrefix(r[7], "http://fx.test") {
		case "/", "/a", "/b", "/c", "/d":
			week0[k]++
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(md), "| policy | B | no stake | tenth 1 |")
	if !ok {
		t.Fatal("report.md has no table of fetches by stake")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	tableRows := 0
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		k := policyBudget{cells[0], cells[1]}
		if k.policy == "sbr" || k.policy == "ebr" {
			continue // its best τ's run, which refetches.csv does not mark
		}
		var sum float64
		for _, c := range cells[2:] {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatalf("row %q: %v", line, err)
			}
			sum += v
		}
		if want := week0[k] / all[k]; math.Abs(sum-want) > 0.006 {
			t.Errorf("%+v: shares by stake sum to %.3f, want %.3f, the share of fetches of pages live in week 0", k, sum, want)
		}
		tableRows++
	}
	if tableRows == 0 {
		t.Error("the table of fetches by stake has no rows to check")
	}
}

// TestEveryPageEveryWeekKeepsQualityOne replays the whole tldr-en archive
// (new and deleted pages included) re-downloading every page every week.
func TestEveryPageEveryWeekKeepsQualityOne(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 48 weeks of tldr-en")
	}
	cfg := defaults(t)
	cfg.Archive = datasets.Path(t, "archives", "tldr-en")
	cfg.Log = datasets.Path(t, "querylogs", "tldr-brew-installs.tsv")
	cfg.Pages, cfg.History = "all", "own"
	cfg.Policies, cfg.Budgets = []string{"uniform"}, []int{1}
	sum, err := synceval.Run(context.Background(), cfg, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRuns(t, sum)
	if last := sum.Runs[len(sum.Runs)-1]; !last.All || len(last.Q) != 48 {
		t.Fatalf("last run: all=%v over %d weeks, want the all-pages run over 48", last.All, len(last.Q))
	}
}

// TestIncrementalRerankingIsExact replays an archive where one page grows
// from two words to three hundred, none of them a query word: no batch
// touches "apple", but the mean length moves enough that BM25 swaps its
// two pages (the short page with one "apple" leads at week 0, the long
// one with three from week 2). Re-ranking only what must be gives the
// same results as re-ranking every query every week. Under the
// searcher's semantics the incremental answers come from the corpus and
// the reference's from Bleve (index.Ranker.Match); with one result seen
// (ranking.candidates = 1) the swap decides which page counts.
func TestIncrementalRerankingIsExact(t *testing.T) {
	for _, semantics := range []string{synceval.SemanticsThesis, synceval.SemanticsSearcher} {
		t.Run(semantics, func(t *testing.T) { testIncrementalRerankingIsExact(t, semantics, 0) })
	}
	t.Run("searcher/one-result-seen", func(t *testing.T) { testIncrementalRerankingIsExact(t, synceval.SemanticsSearcher, 1) })
}

// testIncrementalRerankingIsExact runs the fixture under semantics with
// ranking.candidates = candidates (0: the configured default).
func testIncrementalRerankingIsExact(t *testing.T, semantics string, candidates int) {
	page := func(words string, links ...string) string {
		b := "<html><head><title>page</title></head><body><p>" + words + "</p>"
		for _, l := range links {
			b += `<a href="` + l + `">` + l + `</a>`
		}
		return b + "</body></html>\n"
	}
	filler := strings.Repeat("zeta ", 300)
	arch := filepath.Join(t.TempDir(), "fx")
	if err := os.Mkdir(arch, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, arch, archivetest.Fixture{Name: "fx", Weeks: 5, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 4, Body: page("garden", "/a", "/b", "/c")},
		{URL: "/a", First: 0, Last: 4, Body: page("apple")},
		{URL: "/b", First: 0, Last: 4, Body: page("apple apple apple eta eta eta eta eta eta eta eta")},
		{URL: "/c", First: 0, Last: 1, Body: page("pear")},
		{URL: "/c", First: 2, Last: 4, Body: page("pear " + filler)},
	}})
	log := filepath.Join(t.TempDir(), "log.tsv")
	// The last query has more than index.retrieval.short_query_terms
	// words: under the searcher's semantics RM3 expands it.
	if err := os.WriteFile(log, []byte("apple\t10\npear\t5\napple eta pear garden zeta\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := defaults(t)
	cfg.Archive, cfg.Log = arch, log
	cfg.Policies, cfg.Budgets = []string{"uniform", "deltaq"}, []int{1, 8}
	cfg.Filter, cfg.Pages = "none", "all"
	cfg.Semantics = semantics
	if candidates > 0 {
		cfg.Candidates = candidates
	}
	var csvs [][]byte
	for _, rerank := range []string{"incremental", "all"} {
		cfg.Rerank = rerank
		out := filepath.Join(t.TempDir(), rerank)
		sum, err := synceval.Run(context.Background(), cfg, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkRuns(t, sum) // the every-page run keeps Q = 1 only if apple's order follows the mean
		kept := 0
		for _, r := range sum.Runs {
			kept += r.Kept
		}
		if rerank == "incremental" && kept == 0 {
			t.Error("incremental: no answer was reused; the test exercises nothing")
		}
		if rerank == "all" && kept != 0 {
			t.Errorf("all: %d answers reused, want none", kept)
		}
		csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, csv)
	}
	if !bytes.Equal(csvs[0], csvs[1]) {
		t.Errorf("incremental and full re-ranking differ:\n%s\n---\n%s", csvs[0], csvs[1])
	}
}
