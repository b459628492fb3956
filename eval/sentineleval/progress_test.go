package sentineleval

import (
	"regexp"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
	tracker "github.com/deltaq/deltaq/internal/progress"
)

// TestRunShowsInstallsChecksAndWeeksWithAnETA: the installs, the check
// passes and the accuracy replay's weeks are stages of the shared
// progress, each counted with an ETA.
func TestRunShowsInstallsChecksAndWeeksWithAnETA(t *testing.T) {
	cfg := Config{
		Archive: datasets.Path(t, "archives", "digitalgov-2023"), Sentinels: []int{40}, Dists: []string{"uniform"},
		Groups: []string{"none", "10"}, ZipfAlpha: 1, Week: 20,
		AccuracyArchives: []string{datasets.Path(t, "archives", "tldr-en")}, AccuracyPages: 2,
		Queries: datasets.Path(t, "querylogs", "trec-mq.tsv"), Seed: 1, Repeats: 1,
	}
	var out strings.Builder
	if _, err := Run(t.Context(), cfg, t.TempDir(), tracker.New(&out, nil, 0)); err != nil { // a line at every step
		t.Fatal(err)
	}
	for _, want := range []string{
		`(?m)^sentinels: install N=40 uniform, group none: 40 sentinels$`,
		`(?m)^sentinels: install N=40 uniform, group none: sentinel 1/40 \(2\.5%\), \d+s, ETA \d+`,
		`(?m)^sentinels: install N=40 uniform, group 10: sentinel 40/40 \(100\.0%\)`,
		// 40 checks ungrouped, 4 grouped.
		`(?m)^sentinels: check N=40 uniform placed for group 10: 44 checks$`,
		`(?m)^sentinels: check N=40 uniform placed for group 10: check 1/44 \(2\.3%\), \d+s, ETA \d+`,
		`(?m)^sentinels: accuracy tldr-en, install: page 1/2 \(50\.0%\), \d+s, ETA \d+`,
		`(?m)^sentinels: accuracy tldr-en: week 1/47 \(2\.1%\), \d+s, ETA \d+`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("progress lacks %s:\n%.4000s", want, out.String())
		}
	}
}
