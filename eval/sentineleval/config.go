package sentineleval

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Config holds the settings of the sentinel evaluation; the defaults live
// in configs/default.yaml under "eval.sentinels".
type Config struct {
	// Archive is the archive replayed for the throughput runs (--archive).
	Archive string `mapstructure:"archive"`
	// Sentinels are the numbers of sentinels installed (--sentinels).
	Sentinels []int `mapstructure:"sentinels"`
	// Dists are how sentinels spread over pages: uniform (every page holds
	// the group size) or zipf (page i holds ∝ 1/i^ZipfAlpha, same mean).
	Dists []string `mapstructure:"dists"`
	// Groups are the group sizes: "none" (each sentinel alone) or a number
	// of sentinels per page (WebCQ §7.3: none, 5, 10, 100).
	Groups []string `mapstructure:"groups"`
	// ZipfAlpha is α of the Zipf placement (WebCQ Fig. 13).
	ZipfAlpha float64 `mapstructure:"zipf_alpha"`
	// Week is the archive week sentinels are installed on; the checks run
	// on week+1.
	Week int `mapstructure:"week"`
	// AccuracyArchives are the archives whose every transition the
	// detection accuracy is measured on.
	AccuracyArchives []string `mapstructure:"accuracy_archives"`
	// AccuracyPages is how many week-0 pages of each archive get one
	// sentinel of each type.
	AccuracyPages int `mapstructure:"accuracy_pages"`
	// Queries is the query log keyword sentinels take their words from.
	Queries string `mapstructure:"queries"`
	// Repeats is how many times each check pass runs, each on a copy of
	// the installed repository, the ungrouped and grouped passes of a
	// placement alternating; the median ratio is reported, with the least
	// and the greatest (doc.go).
	Repeats int `mapstructure:"repeats"`
	// Seed seeds every choice (pages, placements, objects).
	Seed uint64 `mapstructure:"seed"`
}

// Upper bounds, far beyond the paper's settings (configs/default.yaml).
const (
	// maxSentinels bounds a run's sentinels: each is installed and held in
	// a repository and in memory (the paper's largest run is 1,000,000).
	maxSentinels = 10_000_000
	// maxWeek is the last week an archive can hold (eval/archive keeps
	// weeks in 16 bits); Run checks week against the archive's own.
	maxWeek = 1<<16 - 1
	// maxAccuracyPages bounds the pages given one sentinel of every type;
	// past week 0's pages it means all of them.
	maxAccuracyPages = 1_000_000
	// maxRepeats bounds the check passes, each on its own checkpoint of
	// the installed repository.
	maxRepeats = 1000
)

// Validate reports every problem, naming the key.
func (c Config) Validate() error {
	report := bounds.NewReport("eval.sentinels.")
	if c.Archive == "" && len(c.Sentinels) > 0 {
		report.Add("archive", `""`, "required")
	}
	for _, n := range c.Sentinels {
		report.Add("sentinels", n, bounds.Within(n, 1, maxSentinels))
	}
	for _, d := range c.Dists {
		if d != "uniform" && d != "zipf" {
			report.Add("dists", fmt.Sprintf("%q", d), "must be uniform or zipf")
		}
	}
	for _, g := range c.Groups {
		_, err := groupSize(g)
		report.Include(err)
	}
	bounds.Distinct(report, "sentinels", c.Sentinels)
	bounds.Distinct(report, "dists", c.Dists)
	bounds.Distinct(report, "accuracy_archives", c.AccuracyArchives)
	if !(c.ZipfAlpha > 0) {
		report.Add("zipf_alpha", c.ZipfAlpha, "must be > 0")
	}
	report.Add("repeats", c.Repeats, bounds.Within(c.Repeats, 1, maxRepeats))
	report.Add("week", c.Week, bounds.Within(c.Week, 0, maxWeek))
	report.Add("accuracy_pages", c.AccuracyPages, bounds.Within(c.AccuracyPages, 0, maxAccuracyPages))
	if c.AccuracyPages > 0 && len(c.AccuracyArchives) > 0 && c.Queries == "" {
		report.Add("queries", `""`, "required for keyword sentinels")
	}
	return report.Err()
}

// groupSize parses a group setting; 0 means none (ungrouped). A group
// holds at most maxSentinels, so that placement's page count, rounded up
// from sentinels / group, cannot overflow.
func groupSize(g string) (int, error) {
	if g == "none" {
		return 0, nil
	}
	n, err := strconv.Atoi(g)
	if err != nil || n <= 0 || n > maxSentinels {
		return 0, fmt.Errorf("eval.sentinels.groups = %q: must be none or a number in [1, %d]", g, maxSentinels)
	}
	return n, nil
}

// throughputRun is one throughput measurement: sentinels placed for a
// group size, checked grouped or ungrouped.
type throughputRun struct {
	placement int
	ungrouped bool
}

// throughputRuns orders the runs the group settings ask for by group
// size. With "none" among them, each group size's run follows an
// ungrouped run of the same sentinels, its baseline; "none" alone checks
// the group-10 placement ungrouped.
func throughputRuns(groups []string) []throughputRun {
	var sizes []int
	none := false
	for _, g := range groups {
		n, _ := groupSize(g)
		if n == 0 {
			none = true
		} else {
			sizes = append(sizes, n)
		}
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if none && len(sizes) == 0 {
		return []throughputRun{{placement: 10, ungrouped: true}}
	}
	var runs []throughputRun
	for _, n := range sizes {
		if none {
			runs = append(runs, throughputRun{placement: n, ungrouped: true})
		}
		runs = append(runs, throughputRun{placement: n})
	}
	return runs
}
