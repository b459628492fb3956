package sentineleval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/watch"
)

func TestSmallRunWritesReportAndGroupingPays(t *testing.T) {
	out := t.TempDir()
	cfg := Config{
		Archive: datasets.Path(t, "archives", "digitalgov-2023"), Sentinels: []int{300}, Dists: []string{"uniform", "zipf"},
		Groups: []string{"none", "10"}, ZipfAlpha: 1, Week: 20,
		AccuracyArchives: []string{datasets.Path(t, "archives", "tldr-en")}, AccuracyPages: 4,
		Queries: datasets.Path(t, "querylogs", "trec-mq.tsv"), Seed: 1, Repeats: 2,
	}
	var progress strings.Builder
	sum, err := Run(t.Context(), cfg, out, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for _, f := range []string{"report.md", "results.csv", "split.csv", "accuracy.csv", "throughput.svg", "throughput.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	for _, d := range cfg.Dists {
		if s := sum.Speedups["300/"+d+"/10"]; s <= 1 {
			t.Errorf("%s: grouping by 10 gave ×%.2f", d, s)
		}
	}
	// Uniform placement puts 10 sentinels on each page, so each page
	// found changed grouped is 10 checks finding it changed ungrouped.
	changed := map[string]int{}
	for _, r := range sum.rows {
		if r.Dist != "uniform" {
			continue
		}
		changed[r.Group] = r.ChangedChecks
		if r.Changed <= 0 || r.Changed >= 1 {
			t.Errorf("group %s: share of the pass on changed pages %.3f, want in (0, 1)", r.Group, r.Changed)
		}
		if r.Group == "10" && (r.SpeedupUnchanged <= 0 || r.SpeedupChanged <= 0) {
			t.Errorf("group 10: ×%.2f on unchanged pages, ×%.2f on changed ones: want both measured", r.SpeedupUnchanged, r.SpeedupChanged)
		}
	}
	if changed["10"] == 0 || changed["none"] != 10*changed["10"] {
		t.Errorf("checks finding a change: %d grouped, %d ungrouped; want some, and 10 ungrouped for each grouped", changed["10"], changed["none"])
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "Where a pass's time goes") {
		t.Error("report lacks the split of a pass's time")
	}
	for _, typ := range watch.Types {
		if !strings.Contains(string(md), "| tldr-en | "+string(typ)+" |") {
			t.Errorf("report lacks the accuracy row of %s", typ)
		}
	}
}

func TestAccuracyOfAnyChangeIsExact(t *testing.T) {
	s, err := serve(datasets.Path(t, "archives", "tldr-en"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	rows, err := runAccuracy(t.Context(), s, Config{AccuracyPages: 20, Seed: 3}, [][]string{{"command"}}, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Type != watch.Any {
			continue
		}
		if r.FP != 0 || r.FN != 0 || r.TP == 0 {
			t.Errorf("any change on tldr-en: %+v; the MD5 must find every body change and nothing else", r.counts)
		}
	}
}

func TestPlacementKeepsGroupSizes(t *testing.T) {
	p := placement(1000, 10, 5000, "uniform", 1, nil)
	count := map[int]int{}
	for _, x := range p {
		count[x]++
	}
	if len(count) != 100 {
		t.Errorf("uniform: %d pages, want 100", len(count))
	}
	for pg, n := range count {
		if n != 10 {
			t.Fatalf("uniform: page %d holds %d sentinels", pg, n)
		}
	}
}

// Every group size is measured right after the same sentinels checked
// ungrouped, its baseline; "none" alone keeps one ungrouped run.
func TestEachGroupSizeHasItsOwnUngroupedBaseline(t *testing.T) {
	got := throughputRuns([]string{"100", "none", "5", "10", "5"})
	want := []throughputRun{{5, true}, {5, false}, {10, true}, {10, false}, {100, true}, {100, false}}
	if !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
	if got := throughputRuns([]string{"10", "100"}); !slices.Equal(got, []throughputRun{{10, false}, {100, false}}) {
		t.Errorf("without none: %v", got)
	}
	if got := throughputRuns([]string{"none"}); !slices.Equal(got, []throughputRun{{10, true}}) {
		t.Errorf("none alone: %v", got)
	}
}

func TestValidateNamesKeys(t *testing.T) {
	err := Config{Sentinels: []int{0, 999999999999}, Dists: []string{"gauss"}, Groups: []string{"seven"}}.Validate()
	for _, want := range []string{`eval.sentinels.archive = "": required`, "sentinels = 0: must be in [1, 10000000]", "sentinels = 999999999999: must be in [1, 10000000]",
		`dists = "gauss"`, `groups = "seven"`, "zipf_alpha = 0", "repeats = 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want %q", err, want)
		}
	}
}

// TestValidateUpperBounds: each count a run loops over, allocates or
// indexes weeks with is refused past its bound, naming the key and the
// range, and accepted at the bound.
func TestValidateUpperBounds(t *testing.T) {
	valid := func() Config {
		return Config{Archive: "a", Sentinels: []int{5000}, Dists: []string{"uniform", "zipf"}, Groups: []string{"none", "10"},
			ZipfAlpha: 1, Week: 20, AccuracyArchives: []string{"a"}, AccuracyPages: 300, Queries: "q", Repeats: 7, Seed: 1}
	}
	boundstest.Check(t, "eval.sentinels.", valid, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "week", Hi: maxWeek, Limit: "must be in [0, 65535]", Set: func(c *Config, v int64) { c.Week = int(v) }},
		{Key: "accuracy_pages", Hi: maxAccuracyPages, Limit: "must be in [0, 1000000]", Set: func(c *Config, v int64) { c.AccuracyPages = int(v) }},
		{Key: "repeats", Hi: maxRepeats, Limit: "must be in [1, 1000]", Set: func(c *Config, v int64) { c.Repeats = int(v) }},
	})
	// A group is a list entry: its error quotes the value after the key
	// rather than reading "key = value".
	for _, v := range boundstest.Past(maxSentinels) {
		cfg := valid()
		cfg.Groups = []string{strconv.FormatInt(v, 10)}
		want := fmt.Sprintf(`eval.sentinels.groups = "%d": must be none or a number in [1, 10000000]`, v)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: %v, want %q", v, err, want)
		}
	}
	cfg := valid()
	cfg.Groups = []string{strconv.Itoa(maxSentinels)}
	if err := cfg.Validate(); err != nil {
		t.Errorf("%d (the bound): %v", maxSentinels, err)
	}
}

// TestMedianIgnoresAMinorityOfStalls: the speedup is the median of the
// per-repetition ratios, which stalls in fewer than half of them cannot
// move past the unstalled ones.
func TestMedianIgnoresAMinorityOfStalls(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{10, 9.5, 2, 10.5, 40}, 10},
		{[]float64{3, 1}, 2},
		{[]float64{7}, 7},
	} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// TestAWeekWithoutAWeekAfterItIsRefused: the checks run on the week after
// the one installed on; the archive's last week has none, and a week
// past it none either. Refused naming the key and the last week, where
// it used to divide by zero placing sentinels on no pages.
func TestAWeekWithoutAWeekAfterItIsRefused(t *testing.T) {
	dir := datasets.Path(t, "archives", "digitalgov-2023")
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := a.Weeks() - 2
	for _, week := range []int{last + 1, last + 10} {
		cfg := Config{Archive: dir, Sentinels: []int{10}, Dists: []string{"uniform"}, Groups: []string{"none"}, ZipfAlpha: 1, Week: week,
			AccuracyPages: 1, Seed: 1, Repeats: 1}
		_, err := Run(t.Context(), cfg, t.TempDir(), nil)
		want := fmt.Sprintf("eval.sentinels.week = %d: must be ≤ %d", week, last)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("week %d: %v, want %q", week, err, want)
		}
	}
}
