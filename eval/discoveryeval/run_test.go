package discoveryeval

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/internal/bounds/boundstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// week is one snapshot of a fixture site: each page and the hrefs it
// links to. A value starting with "refresh:" makes the page a redirect
// stub (meta refresh plus canonical link), as the archives' alias pages.
type week map[string][]string

func body(links []string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\">")
	var anchors []string
	for _, l := range links {
		if to, ok := strings.CutPrefix(l, "refresh:"); ok {
			fmt.Fprintf(&b, `<meta http-equiv="refresh" content="0; url=%s"><link rel="canonical" href="%s">`, to, to)
			continue
		}
		anchors = append(anchors, l)
	}
	b.WriteString("</head><body><main>")
	for _, a := range anchors {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, a, a)
	}
	b.WriteString(`<a href="https://elsewhere.example/">away</a></main></body></html>` + "\n")
	return b.String()
}

// fixture turns weekly snapshots into archive intervals, merging weeks in
// which a page has the same body.
func fixture(name string, weeks []week) archivetest.Fixture {
	f := archivetest.Fixture{Name: name, Weeks: len(weeks)}
	var urls []string
	for _, w := range weeks {
		for u := range w {
			if !slices.Contains(urls, u) {
				urls = append(urls, u)
			}
		}
	}
	slices.Sort(urls)
	for _, u := range urls {
		var cur *archivetest.Interval
		for t, w := range weeks {
			links, ok := w[u]
			if !ok {
				cur = nil
				continue
			}
			b := body(links)
			if cur != nil && cur.Body == b {
				cur.Last = t
				continue
			}
			f.Intervals = append(f.Intervals, archivetest.Interval{URL: u, First: t, Last: t, Body: b})
			cur = &f.Intervals[len(f.Intervals)-1]
		}
	}
	return f
}

// tinySite is a site of two sections over six weeks with each case of
// §3.2 and §3.5.1: new pages behind an index (/a/), a chain of new pages
// (a5 → a6), a page reached only through a redirect stub's refresh (b4),
// an orphan (/lost.html), a page that disappears and comes back (a2: created
// again, but old), and relative links.
func tinySite() []week {
	idx := func(sec string, pages ...string) []string {
		out := []string{"/"}
		for _, p := range pages {
			out = append(out, "/"+sec+"/"+p+".html")
		}
		return out
	}
	home := []string{"/a/", "/b/"}
	return []week{
		{"/": home, "/a/": idx("a", "a1", "a2"), "/a/a1.html": {"a2.html"}, "/a/a2.html": {"/a/"},
			"/b/": idx("b", "b1"), "/b/b1.html": {"/b/"}},
		{"/": home, "/a/": idx("a", "a1", "a2", "a3"), "/a/a1.html": {"a2.html"}, "/a/a2.html": {"/a/"}, "/a/a3.html": nil,
			"/b/": idx("b", "b1"), "/b/b1.html": {"/b/"}, "/alias/": {"refresh:/b/b1.html"}},
		{"/": home, "/a/": idx("a", "a1", "a3", "a4"), "/a/a1.html": nil, "/a/a3.html": nil, "/a/a4.html": nil,
			"/b/": idx("b", "b1", "b2"), "/b/b1.html": {"/b/"}, "/b/b2.html": nil, "/alias/": {"refresh:/b/b1.html"}},
		{"/": home, "/a/": idx("a", "a1", "a2", "a3", "a4", "a5"), "/a/a1.html": nil, "/a/a2.html": nil, "/a/a3.html": nil,
			"/a/a4.html": nil, "/a/a5.html": {"a6.html"}, "/a/a6.html": nil,
			"/b/": idx("b", "b1", "b2"), "/b/b1.html": {"/b/"}, "/b/b2.html": nil, "/alias/": {"refresh:/b/b4.html"},
			"/b/b4.html": nil, "/lost.html": nil},
		{"/": home, "/a/": idx("a", "a1", "a2", "a3", "a4", "a5", "a7"), "/a/a1.html": {"/b/b3.html"}, "/a/a2.html": nil,
			"/a/a3.html": nil, "/a/a4.html": nil, "/a/a5.html": {"a6.html"}, "/a/a6.html": nil, "/a/a7.html": nil,
			"/b/": idx("b", "b1", "b2", "b3"), "/b/b1.html": {"/b/"}, "/b/b2.html": nil, "/b/b3.html": nil,
			"/alias/": {"refresh:/b/b4.html"}, "/b/b4.html": nil, "/lost.html": nil},
		{"/": home, "/a/": idx("a", "a1", "a2", "a3", "a4", "a5", "a7", "a8"), "/a/a1.html": nil, "/a/a2.html": nil,
			"/a/a3.html": nil, "/a/a4.html": nil, "/a/a5.html": {"a6.html"}, "/a/a6.html": nil, "/a/a7.html": nil,
			"/a/a8.html": nil, "/b/": idx("b", "b1", "b2", "b3", "b5"), "/b/b1.html": {"/b/"}, "/b/b2.html": nil,
			"/b/b3.html": nil, "/b/b5.html": nil, "/alias/": {"refresh:/b/b4.html"}, "/b/b4.html": nil, "/lost.html": nil},
	}
}

func tinyConfig() Config {
	cfg := testConfig()
	cfg.Budgets = []int{1, 2, 10}
	cfg.CurveBudgets = []int{1, 2, 3}
	cfg.TableRecrawlEvery = []int{2, 3}
	cfg.FigureRecrawlEvery = []int{1, 2}
	cfg.UpperBoundRecrawlEvery = []int{1, 2}
	cfg.CoverFractions = []float64{0.5, 1}
	return cfg
}

func TestRunOnAFixtureArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archivetest.Write(t, dir, fixture("tiny", tinySite()))
	out := t.TempDir()
	var progress bytes.Buffer
	sum, err := Run(t.Context(), tinyConfig(), []string{dir}, out, &progress)
	if err != nil {
		t.Fatal(err)
	}

	a := sum.Archives[0]
	t.Run("counts new pages, orphans and created pages as defined", func(t *testing.T) {
		// New by week: a3 /alias/ (1); a4 b2 (2); a5 a6 b4 lost (3);
		// a7 b3 (4); a8 b5 (5): 12. Nothing links to /alias/ or
		// /lost.html: 2 orphans. a2 is gone in week 2 and back in week 3:
		// created again but old, so 13 created.
		if a.NewPages != 12 || a.Orphans != 2 || a.Created != 13 || a.Coverable != 10 {
			t.Errorf("new %d, orphans %d, created %d, coverable %d; want 12, 2, 13, 10", a.NewPages, a.Orphans, a.Created, a.Coverable)
		}
	})
	t.Run("no cover is worse than nothing or better than everything", func(t *testing.T) {
		for _, r := range a.Rows {
			if r.CoveragePct < 0 || r.CoveragePct > 100 {
				t.Errorf("%+v", r)
			}
		}
	})
	t.Run("writes the report, the CSV and both kinds of plot", func(t *testing.T) {
		for _, f := range []string{"report.md", "results.csv", "coverage-tiny-delta1.svg", "coverage-tiny-delta2.png", "greedy-tiny.svg", "greedy-tiny.png"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
		if !strings.Contains(progress.String(), "tiny:") {
			t.Errorf("progress: %q", progress.String())
		}
	})
	t.Run("the report and CSV match the golden files", func(t *testing.T) {
		for _, f := range []string{"report.md", "results.csv"} {
			got, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "tiny-"+f)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (run go test -update after checking the change):\n%s", f, golden, firstDiff(string(got), string(want)))
			}
		}
	})
	t.Run("the same input gives the same report", func(t *testing.T) {
		out2 := t.TempDir()
		if _, err := Run(t.Context(), tinyConfig(), []string{dir}, out2, nil); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"report.md", "results.csv"} {
			a, _ := os.ReadFile(filepath.Join(out, f))
			b, _ := os.ReadFile(filepath.Join(out2, f))
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs between two runs", f)
			}
		}
	})
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, gl, wl)
		}
	}
	return ""
}

func TestRunRejectsBadInput(t *testing.T) {
	cfg := tinyConfig()
	cfg.Workers = 0
	if _, err := Run(t.Context(), cfg, []string{t.TempDir()}, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "eval.discovery.workers = 0") {
		t.Errorf("Run with workers 0: %v", err)
	}
	if _, err := Run(t.Context(), tinyConfig(), nil, t.TempDir(), nil); err == nil {
		t.Error("Run without archives succeeded")
	}
	if _, err := Run(t.Context(), tinyConfig(), []string{filepath.Join(t.TempDir(), "missing")}, t.TempDir(), nil); err == nil {
		t.Error("Run on a missing archive succeeded")
	}
}

func TestConfigValidate(t *testing.T) {
	if err := testConfig().Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	bad := testConfig()
	bad.Alpha = 1.5
	bad.EpsilonB = -1
	bad.TrackedPerSite = 0
	bad.Budgets = nil
	bad.CurveBudgets = []int{1, 0}
	bad.CoverFractions = []float64{0}
	bad.Extract.MaxLinks = 0
	err := bad.Validate()
	for _, want := range []string{
		"discovery.alpha = 1.5: must be in [0, 1]",
		"discovery.epsilon_b = -1: must be in [0, 1)",
		"eval.discovery.tracked_per_site = 0: must be in [1, 1000000]",
		"eval.discovery.budgets = []: must list at least one value",
		"eval.discovery.curve_budgets = [1 0]: every value must be >= 1",
		"eval.discovery.cover_fractions = [0]: every value must be in (0, 1]",
		"eval.discovery.extract.max_links = 0: must be > 0",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v\nmissing %q", err, want)
		}
	}
}

// TestConfigValidateUpperBounds: tracked_per_site and workers are refused
// past their bounds, naming the key and the range, and accepted at them.
func TestConfigValidateUpperBounds(t *testing.T) {
	boundstest.Check(t, "eval.discovery.", testConfig, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "tracked_per_site", Hi: discovery.MaxTrackedPerSite, Limit: "must be in [1, 1000000]", Set: func(c *Config, v int64) { c.TrackedPerSite = int(v) }},
		{Key: "workers", Hi: maxWorkers, Limit: "must be in [1, 256]", Set: func(c *Config, v int64) { c.Workers = int(v) }},
	})
	// The re-crawl intervals are discovery's Δ, bounded as it is: refused
	// when the configuration is checked, not when a run reaches them.
	for _, hi := range []int{discovery.MaxFullRecrawlEvery + 1, discovery.MaxFullRecrawlEvery} {
		c := testConfig()
		c.TableRecrawlEvery, c.FigureRecrawlEvery, c.UpperBoundRecrawlEvery = []int{2, hi}, []int{hi}, []int{hi, 1}
		err := c.Validate()
		for _, want := range []string{
			fmt.Sprintf("eval.discovery.table_recrawl_every = [2 %d]: every value must be in [1, 100000]", hi),
			fmt.Sprintf("eval.discovery.figure_recrawl_every = [%d]: every value must be in [1, 100000]", hi),
			fmt.Sprintf("eval.discovery.upper_bound_recrawl_every = [%d 1]: every value must be in [1, 100000]", hi),
		} {
			if refused := err != nil && strings.Contains(err.Error(), want); refused != (hi > discovery.MaxFullRecrawlEvery) {
				t.Errorf("intervals up to %d: Validate() = %v; want %q only past the bound", hi, err, want)
			}
		}
	}
}

func TestPaginated(t *testing.T) {
	for path, want := range map[string]bool{
		"/news/page/2/": true, "/topics/ai/page/13/": true, "/news/": false, "/page/": false,
		"/news/page/two/": false, "/2023/01/02/page/": false,
	} {
		if got := paginated(path); got != want {
			t.Errorf("paginated(%q) = %v, want %v", path, got, want)
		}
	}
	if got := section("/topics/ai/"); got != "/topics/" {
		t.Errorf("section = %q", got)
	}
	if got := section("/lost.html"); got != "/lost.html" {
		t.Errorf("section = %q", got)
	}
}

// TestRunRejectsTwoArchivesOfOneName: two copies of an archive in two
// directories would share their rows' label and plot files.
func TestRunRejectsTwoArchivesOfOneName(t *testing.T) {
	var dirs []string
	for _, d := range []string{"a", "b"} {
		dir := filepath.Join(t.TempDir(), d)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		archivetest.Write(t, dir, fixture("tiny", tinySite()))
		dirs = append(dirs, dir)
	}
	_, err := Run(t.Context(), tinyConfig(), dirs, t.TempDir(), nil)
	if want := `are both named "tiny"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run = %v, want %q", err, want)
	}
}
