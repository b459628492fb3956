package relationeval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/bounds/boundstest"
	"github.com/deltaq/deltaq/relation"
)

// A scaled-down Fig. 2: the full run is `deltaq eval relation --synth`.
func smallSynth() SynthConfig {
	return SynthConfig{Papers: 200, Groups: 40, MaxGroup: 10, QueriesPerUnit: 4, Units: 120, Seeds: 2, Seed: 7, Attachment: 0.25, Naive2MaxRate: 1}
}

func TestSynthGreedyBeatsNaives(t *testing.T) {
	r, err := runSynth(t.Context(), smallSynth(), 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.curves[0]) != 120 {
		t.Fatalf("%d curve points, want one per unit (120)", len(r.curves[0]))
	}
	// Same requests per unit; a group query refreshes ~5 papers, an ID
	// fetch one; Naive 2 leaves the λ ≥ 1 papers to grow as ½λt².
	if !(r.means[2] < r.means[0] && r.means[0] < r.means[1]) {
		t.Errorf("time-averaged F: greedy %v, naive1 %v, naive2 %v; want greedy < naive1 < naive2", r.means[2], r.means[0], r.means[1])
	}
	seen := map[int]bool{}
	for _, p := range r.plan.Probes {
		if len(p.Tuples) == 0 || len(p.Tuples) > 10 {
			t.Errorf("probe %s covers %d papers, want 1..10 (one group)", p.Query(), len(p.Tuples))
		}
		for _, i := range p.Tuples {
			if seen[i] {
				t.Errorf("paper %d is in two groups", i)
			}
			seen[i] = true
		}
	}
	if len(seen) != 200 {
		t.Errorf("greedy plan covers %d papers, want all 200", len(seen))
	}
}

func TestSynthSameSeedSameReport(t *testing.T) {
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if _, err := RunSynth(t.Context(), smallSynth(), d, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"report.md", "results.csv"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between two runs of the same seed", f)
		}
	}
	for _, f := range []string{"fig2-freshness.svg", "fig2-freshness.png"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Error(err)
		}
	}
}

func TestSynthConfigErrorsNameTheKey(t *testing.T) {
	c := smallSynth()
	c.Groups, c.MaxGroup = 10, 10
	_, err := RunSynth(t.Context(), c, t.TempDir(), nil)
	if err == nil || !contains(err.Error(), "eval.relation.synth.groups × max_group = 100") {
		t.Errorf("error %v does not name groups × max_group", err)
	}
	// Sizes a run allocates or loops over are bounded: 2^62 groups of 4
	// papers made groups × max_group overflow to 0.
	c = smallSynth()
	c.Groups, c.MaxGroup, c.Units = 1<<62, 4, 1<<40
	_, err = RunSynth(t.Context(), c, t.TempDir(), nil)
	for _, want := range []string{"eval.relation.synth.groups = 4611686018427387904: must be in [1, 10000000]", "eval.relation.synth.units = 1099511627776: must be in [1, 1000000]"} {
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	if err != nil && contains(err.Error(), "× max_group") {
		t.Errorf("error %v: an overflowed product was checked", err)
	}
}

// The rates a run draws from are bounded: an attachment of 1e300 drew
// updates a 1e-300th of a unit apart, and the run never ended.
func TestConfigBoundsTheRates(t *testing.T) {
	fresh := func() Config { return Config{Synth: smallSynth(), Archive: tldrLike(t)} }
	boundstest.Check(t, "eval.relation.", fresh, (*Config).Validate, []boundstest.Setting[Config]{
		{Key: "synth.attachment", Hi: 1000, Limit: "must be in (0, 1000]", Float: true, Set: func(c *Config, v int64) { c.Synth.Attachment = float64(v) }},
		{Key: "archive.rate_prior", Hi: relation.MaxRatePrior, Limit: "must be in [0, 1e+06]", Float: true, Set: func(c *Config, v int64) { c.Archive.RatePrior = float64(v) }},
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
