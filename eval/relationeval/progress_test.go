package relationeval

import (
	"regexp"
	"strings"
	"testing"

	tracker "github.com/deltaq/deltaq/internal/progress"
)

// TestRunsShowTheirUnitsWithAnETA: both runs report through the shared
// progress: the synthetic run its seeds and time units, the archive run
// its week-0 probe plans and its weeks, each with an ETA.
func TestRunsShowTheirUnitsWithAnETA(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, p *tracker.Tracker) error
		want []string
	}{
		{"synthetic", func(t *testing.T, p *tracker.Tracker) error {
			_, err := RunSynth(t.Context(), smallSynth(), t.TempDir(), p)
			return err
		}, []string{
			`(?m)^relation synth: 2 runs of 120 time units$`,
			`(?m)^relation synth: 0/2 runs done, time unit 1/240 \(0\.4%\), \d+s, ETA \d+`,
			`(?m)^relation synth: 2/2 runs done, time unit 240/240 \(100\.0%\)`,
		}},
		{"archive", func(t *testing.T, p *tracker.Tracker) error {
			_, err := RunArchive(t.Context(), tldrLike(t), t.TempDir(), p)
			return err
		}, []string{
			`(?m)^relation archive, week 0: 4 probe plans$`,
			`(?m)^relation archive, week 0: probe plan 1/4 \(25\.0%\), \d+s, ETA \d+`,
			`(?m)^relation archive, 3 runs: 5 weeks$`,
			`(?m)^relation archive, 3 runs: week 1/5 \(20\.0%\), \d+s, ETA \d+`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			if err := c.run(t, tracker.New(&out, nil, 0)); err != nil { // a line at every step
				t.Fatal(err)
			}
			for _, want := range c.want {
				if !regexp.MustCompile(want).MatchString(out.String()) {
					t.Errorf("progress lacks %s:\n%s", want, out.String())
				}
			}
		})
	}
}
