package monitoreval

import (
	"regexp"
	"strings"
	"testing"

	tracker "github.com/deltaq/deltaq/internal/progress"
)

// TestRunShowsEverySettingsRunsAndInstantsWithAnETA: each setting is a
// stage of the shared progress, its runs and instants counted with an
// ETA, the weekly setting's instants named weeks.
func TestRunShowsEverySettingsRunsAndInstantsWithAnETA(t *testing.T) {
	cfg := testConfig(t)
	cfg.R, cfg.WeeklyC, cfg.SynthC, cfg.FigureC = []float64{0, 1}, []int{5}, []int{4}, 4
	cfg.SynthLives, cfg.BidsSweep = []string{"append"}, []float64{8}
	cfg.Auction.Pages, cfg.Auction.Instants = 300, 120
	var out strings.Builder
	if _, err := Run(t.Context(), cfg, tracker.New(&out, nil, 0)); err != nil { // a line at every step
		t.Fatal(err)
	}
	for _, want := range []string{
		`(?m)^monitor \(real weekly: digitalgov-2023\): 2 runs of 47 weeks$`,
		`(?m)^monitor \(real weekly: digitalgov-2023\): 0/2 runs done, week 1/94 \(1\.1%\), \d+s, ETA \d+`,
		// Two runs of exact π and r = 0 and 1 at C = 4.
		`(?m)^monitor \(SYNTHETIC auction web, Unbounded-Append\): 4 runs of 120 instants$`,
		`(?m)^monitor \(SYNTHETIC auction web, Unbounded-Append\): 1/4 runs done, instant 121/480 \(25\.2%\), \d+s, ETA \d+`,
		`(?m)^monitor \(bids sweep\): 2 runs of 120 instants$`,
		`(?m)^monitor \(bids sweep\): 2/2 runs done, instant 240/240 \(100\.0%\)`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("progress lacks %s:\n%.3000s", want, out.String())
		}
	}
}
