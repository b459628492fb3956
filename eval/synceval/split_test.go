package synceval_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

// TestSplitSweep replays an archive whose site grows (new pages linked
// from old ones from week 2) at three splits of B: re-crawl only, half
// for discovery, and the adaptive rule. Only the runs with a discovery
// share fetch new pages; the adaptive share stays within its floors; the
// report pairs each split with the best fixed one; two runs of the
// configuration, on one worker and on two, give the same bytes.
func TestSplitSweep(t *testing.T) {
	arch := writeArchive(t, archivetest.Fixture{Name: "grow", Weeks: 6, Intervals: []archivetest.Interval{
		{URL: "/", First: 0, Last: 1, Body: page("home", "garden tools and seeds", "/a", "/b", "/c")},
		{URL: "/", First: 2, Last: 5, Body: page("home", "garden tools and seeds", "/a", "/b", "/c", "/n1")},
		{URL: "/a", First: 0, Last: 2, Body: page("apple", "apple tree care and apple harvest")},
		{URL: "/a", First: 3, Last: 5, Body: page("apple", "apple pie recipes with pear", "/n2")},
		{URL: "/b", First: 0, Last: 5, Body: page("pear", "pear tree pruning")},
		{URL: "/c", First: 0, Last: 3, Body: page("seeds", "seeds of apple and pear trees")},
		{URL: "/c", First: 4, Last: 5, Body: page("seeds", "seeds of pear trees only", "/n3")},
		{URL: "/n1", First: 2, Last: 5, Body: page("jam", "pear jam and apple jam", "/n4")},
		{URL: "/n2", First: 3, Last: 5, Body: page("cider", "apple cider and pear cider")},
		{URL: "/n3", First: 4, Last: 5, Body: page("orchard", "apple orchard tools")},
		{URL: "/n4", First: 2, Last: 5, Body: page("more jam", "apple jam recipes")},
	}})
	log := filepath.Join(t.TempDir(), "log.tsv")
	if err := os.WriteFile(log, []byte("apple\t30\npear\t20\njam\t8\ncider\t5\ngarden tools\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := defaults(t)
	cfg.Archive, cfg.Log = arch, log
	cfg.Policies = []string{"deltaq"}
	cfg.Budgets = []int{2, 4}
	cfg.Filter, cfg.Pages = "none", "all"
	cfg.Forecast = false
	cfg.Splits = []string{"0", "0.5", "adaptive"}
	cfg.Frontier.Split.Floor, cfg.Frontier.Split.Step = 0.25, 0.25

	runTwice(t, cfg, func(_ int, sum *synceval.Summary, out string) {
		if len(sum.Runs) != 2*3*cfg.Seeds {
			t.Fatalf("%d runs, want 2 budgets × 3 splits × %d seeds", len(sum.Runs), cfg.Seeds)
		}
		// Summed over a split's seeds: in six weeks at B = 2 a seed's
		// draws may re-fetch the page that reveals the new ones too late
		// for a discovery re-fetch to follow.
		type key struct {
			split  string
			budget int
		}
		first, disc := map[key]int{}, map[key]int{}
		for _, r := range sum.Runs {
			k := key{r.Split, r.Budget}
			for w := 1; w < len(r.Q); w++ {
				first[k] += r.NewFetched[w]
				disc[k] += r.DiscFetched[w]
				if r.Split == "adaptive" && (r.Shares[w] < 0.25-1e-9 || r.Shares[w] > 0.75+1e-9) {
					t.Errorf("%s: week %d share %v outside [0.25, 0.75]", synceval.Label(r), w, r.Shares[w])
				}
			}
		}
		for k := range first {
			switch k.split {
			case "0":
				if first[k] != 0 || disc[k] != 0 {
					t.Errorf("split %s B=%d: %d first fetches, %d discovery re-fetches; want none without a discovery share", k.split, k.budget, first[k], disc[k])
				}
			default:
				if first[k] == 0 || disc[k] == 0 {
					t.Errorf("split %s B=%d: %d first fetches, %d discovery re-fetches over the seeds; want both", k.split, k.budget, first[k], disc[k])
				}
			}
		}
		if len(first) != 2*3 {
			t.Fatalf("%d split × budget pairs, want 6", len(first))
		}
		if len(sum.SplitMargins) != 2*3 {
			t.Fatalf("%d split margins, want 6", len(sum.SplitMargins))
		}
		for _, m := range sum.SplitMargins {
			if m.BestFixed == "" || m.Split != "adaptive" && m.BestFixed != "d="+m.Split && m.Margin.Diff > 0 {
				t.Errorf("%+v: a fixed split ahead of the best fixed split", m)
			}
		}
		report, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(report), "Re-crawl vs discovery") {
			t.Error("report.md has no split table")
		}
	})
}

// A split sweep over the persistent pages, where discovery has nothing to
// find, and a malformed split are refused, naming the key.
func TestSplitsValidate(t *testing.T) {
	cfg := defaults(t)
	cfg.Splits = []string{"0", "0.1"}
	if err := cfg.ValidateOwn(); err == nil || !strings.Contains(err.Error(), "eval.sync.splits") {
		t.Errorf("splits with pages persistent: %v", err)
	}
	cfg.Pages = "all"
	cfg.Splits = []string{"0", "1.5", "sometimes"}
	err := cfg.ValidateOwn()
	if err == nil || !strings.Contains(err.Error(), `"1.5"`) || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("bad splits: %v", err)
	}
	cfg.Splits = []string{"0", "0.25", "adaptive"}
	if err := cfg.ValidateOwn(); err != nil {
		t.Errorf("good splits refused: %v", err)
	}
}

// TestSplitRunsAreReproducible replays a site that grows faster than B
// can follow: from week 2 every old page links new pages, several old
// pages link the same ones, and new pages link further new pages, each
// with a word of its own that the workload asks for. Which new pages a
// week fetches, and which old page each is credited to, decides Q and
// OD-WIN's next picks. Runs at a fixed discovery share and at the
// adaptive split give the same results.csv with one fetch in flight and,
// twice, with eight.
func TestSplitRunsAreReproducible(t *testing.T) {
	words := []string{"amber", "birch", "cedar", "daisy", "ember", "fern", "ginger", "hazel", "iris", "juniper",
		"kelp", "lilac", "maple", "nettle", "olive", "poppy", "quince", "rowan", "sage", "tulip", "umber",
		"violet", "willow", "yarrow"}
	const old = 8
	var home []string
	var ivs []archivetest.Interval
	var log strings.Builder
	for i := range old {
		o := fmt.Sprintf("/o%d", i)
		home = append(home, o)
		ivs = append(ivs, archivetest.Interval{URL: o, First: 0, Last: 1, Body: page("old "+words[i], "garden notes on "+words[i])})
		// Week 2 on: two new pages of its own and one it shares with the
		// next old page.
		own1, own2, shared := fmt.Sprintf("/n%da", i), fmt.Sprintf("/n%db", i), fmt.Sprintf("/s%d", i/2)
		ivs = append(ivs, archivetest.Interval{URL: o, First: 2, Last: 5, Body: page("old "+words[i], "garden notes on "+words[i], own1, own2, shared)})
		w1, w2 := words[(i+8)%len(words)], words[(i+16)%len(words)]
		ivs = append(ivs,
			archivetest.Interval{URL: own1, First: 2, Last: 5, Body: page("new "+w1, w1+" "+w1+" garden", fmt.Sprintf("/m%d", i))},
			archivetest.Interval{URL: own2, First: 2, Last: 5, Body: page("new "+w2, w2+" garden")},
			archivetest.Interval{URL: fmt.Sprintf("/m%d", i), First: 2, Last: 5, Body: page("deep "+w1, w1+" "+w2+" deep garden")})
		if i%2 == 0 {
			ivs = append(ivs, archivetest.Interval{URL: shared, First: 2, Last: 5, Body: page("shared "+w2, w1+" "+w2+" shared")})
		}
		fmt.Fprintf(&log, "%s\t%d\n%s\t%d\n%s\t%d\n", words[i], 3+i, w1, 10+i, w2, 20-i)
	}
	ivs = append(ivs, archivetest.Interval{URL: "/", First: 0, Last: 5, Body: page("home", "garden index", home...)})
	// The manifest lists URLs in order, each URL's intervals by week.
	slices.SortStableFunc(ivs, func(a, b archivetest.Interval) int { return strings.Compare(a.URL, b.URL) })
	arch := writeArchive(t, archivetest.Fixture{Name: "sprawl", Weeks: 6, Intervals: ivs})
	logPath := filepath.Join(t.TempDir(), "log.tsv")
	if err := os.WriteFile(logPath, []byte(log.String()+"garden\t5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := defaults(t)
	cfg.Archive, cfg.Log = arch, logPath
	cfg.Policies = []string{"deltaq", "uniform"}
	cfg.Budgets = []int{4, 8}
	cfg.Filter, cfg.Pages = "none", "all"
	cfg.Forecast = false
	cfg.Splits = []string{"0.5", "adaptive"}
	cfg.Frontier.Split.Floor, cfg.Frontier.Split.Step = 0.25, 0.25

	var csvs [][]byte
	for _, parallel := range []int{1, 8, 8} {
		cfg.CrawlParallel = parallel
		out := filepath.Join(t.TempDir(), "out")
		sum, err := synceval.Run(context.Background(), cfg, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkRuns(t, sum)
		for _, r := range sum.Runs {
			first, found := 0, false
			for w := 2; w < len(r.Q); w++ {
				first += r.NewFetched[w]
				found = found || r.Q[w] < 1-1e-9
			}
			if first == 0 || !found {
				t.Errorf("crawl_parallel %d, %s B=%d: %d first fetches, Q below 1: %v; want the budget to fall short of the new pages",
					parallel, synceval.Label(r), r.Budget, first, found)
			}
		}
		csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, csv)
	}
	for i, csv := range csvs[1:] {
		if !bytes.Equal(csvs[0], csv) {
			t.Errorf("crawl_parallel 1 and 8 (run %d) differ:\n%s\n---\n%s", i+1, csvs[0], csv)
		}
	}
}

// TestWorkersAreBounded: each worker holds a run's repository, index and
// replay, so --workers 100000 ran out of memory; it is refused naming
// the bound.
func TestWorkersAreBounded(t *testing.T) {
	cfg := defaults(t)
	cfg.Workers = 100000
	if err := cfg.ValidateOwn(); err == nil || !strings.Contains(err.Error(), "workers = 100000: must be in [0, 256] (0: GOMAXPROCS)") {
		t.Errorf("workers 100000: %v, want it refused naming the bound", err)
	}
	cfg.Workers = 256
	if err := cfg.ValidateOwn(); err != nil {
		t.Errorf("workers 256: %v", err)
	}
}

// TestSettingsAreBounded: budgets (frontier.budget.fetches' bound),
// crawl_parallel (crawler.politeness.global's: a fetch worker each) and
// max_queries are refused past their bounds, naming the key and the
// range, and accepted at them.
func TestSettingsAreBounded(t *testing.T) {
	type C = synceval.Config
	// ValidateOwn is what must refuse a value past the bound, and the whole
	// Validate what must accept the bound.
	validate := func(c *C) error {
		if err := c.ValidateOwn(); err != nil {
			return err
		}
		return c.Validate()
	}
	fresh := func() C { return defaults(t) }
	boundstest.Check(t, "eval.sync.", fresh, validate, []boundstest.Setting[C]{
		{Key: "budgets", Hi: 1_000_000_000, Limit: "every budget must be in [1, 1000000000] fetches per week", Set: func(c *C, v int64) { c.Budgets = []int{int(v)} }},
		{Key: "crawl_parallel", Lo: 1, Hi: 4096, Set: func(c *C, v int64) { c.CrawlParallel = int(v) }},
		{Key: "max_queries", Hi: 10_000_000, Limit: "must be in [0, 10000000] (0: no cap)", Set: func(c *C, v int64) { c.MaxQueries = int(v) }},
	})
}

// TestValidateRefusesRepeatedBudgets: a budget listed twice would be
// swept twice, its rows in results.csv and the report doubled.
func TestValidateRefusesRepeatedBudgets(t *testing.T) {
	cfg := defaults(t)
	cfg.Budgets = []int{25, 25}
	want := "eval.sync.budgets[1] = 25: given twice (also budgets[0])"
	if err := cfg.ValidateOwn(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ValidateOwn() = %v, want %q", err, want)
	}
}

// TestValidateRefusesRepeatedSplits: a repeated split is refused, and
// reported once.
func TestValidateRefusesRepeatedSplits(t *testing.T) {
	cfg := defaults(t)
	cfg.Pages = "all"
	cfg.Splits = []string{"0.5", "0.5", "adaptive"}
	err := cfg.ValidateOwn()
	want := "eval.sync.splits[1] = 0.5: given twice (also splits[0])"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ValidateOwn() = %v, want %q", err, want)
	}
	if n := strings.Count(err.Error(), "twice"); n != 1 {
		t.Errorf("ValidateOwn() = %v: the repeat reported %d times, want once", err, n)
	}
}
