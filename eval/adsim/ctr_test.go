package adsim

import (
	"math"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

func TestRealCTRDistribution(t *testing.T) {
	items, err := ReadCTRItems(datasets.Path(t, "ads", "obd-item-ctr.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 80 {
		t.Fatalf("%d items, want 80", len(items))
	}
	d := NewCTRDistribution(items, 217)
	if math.Abs(d.Mean-0.0046) > 1e-9 {
		t.Fatalf("pooled CTR %v, want 0.0046 (92 clicks / 20,000 impressions)", d.Mean)
	}
	t.Run("smooths zero-click items above zero", func(t *testing.T) {
		for i, it := range items {
			if it.Clicks == 0 && !(d.PosteriorMean(i) > 0.001 && d.PosteriorMean(i) < d.Mean) {
				t.Fatalf("item %d smoothed to %v", i, d.PosteriorMean(i))
			}
		}
	})
	t.Run("draws CTRs with the pooled mean", func(t *testing.T) {
		rng := newRand(1, streamWorld)
		sum, n, zero := 0.0, 20000, 0
		for range n {
			c := d.Draw(rng)
			sum += c
			if c <= 0 || c >= 1 {
				zero++
			}
		}
		if m := sum / float64(n); math.Abs(m-d.Mean) > 0.1*d.Mean || zero > 0 {
			t.Fatalf("mean draw %v (want within 10 %% of %v), %d outside (0, 1)", m, d.Mean, zero)
		}
	})
	t.Run("finds no between-item variance beyond sampling noise", func(t *testing.T) {
		// Documented in report.md: the file cannot tell its items apart.
		if v := d.BetweenItemVariance(); v > 0 {
			t.Fatalf("between-item variance %v, the data give a negative estimate", v)
		}
	})
}

func TestParseCTRItemsRejectsBadFiles(t *testing.T) {
	for _, bad := range []string{
		"",
		"wrong header\n",
		"campaign\titem_id\timpressions\tclicks\tctr\nmen\t0\t10\t11\t1.1\n",
		"campaign\titem_id\timpressions\tclicks\tctr\nmen\t0\t0\t0\t0\n",
		"campaign\titem_id\timpressions\tclicks\tctr\nmen\t0\t10\n",
	} {
		if _, err := ParseCTRItems(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	long := "campaign\titem_id\timpressions\tclicks\tctr\nmen\t0\t10\t1\t0.1\n" + strings.Repeat("0", 1<<20)
	if _, err := ParseCTRItems(strings.NewReader(long)); err == nil || !strings.Contains(err.Error(), "line 3: longer than 65536 bytes") {
		t.Errorf("a 1 MiB line: %v, want it named with the limit", err)
	}
}

// TestParseCTRItemsRejectsInconsistentFiles: files whose lines each look
// right but that would make a wrong world: an item twice, a ctr column
// that is not clicks/impressions, impressions whose sum overflows into a
// negative pooled CTR, and no click at all (every true CTR 0).
func TestParseCTRItemsRejectsInconsistentFiles(t *testing.T) {
	const h = "campaign\titem_id\timpressions\tclicks\tctr\n"
	for _, tc := range []struct{ in, want string }{
		{h + "men\t0\t272\t4\t0.014706\nmen\t0\t272\t4\t0.014706\n", "line 3: campaign men item 0 again (first on line 2)"},
		{h + "men\t0\t272\t4\tNaN\n", `line 2: ctr "NaN": must be clicks/impressions = 0.014706`},
		{h + "men\t0\t272\t4\t0.9\n", `line 2: ctr "0.9"`},
		{h + "men\t0\t9223372036854775807\t1\t0.000000\nmen\t1\t9223372036854775807\t1\t0.000000\n", "line 2: impressions 9223372036854775807: must be at most 1099511627776"},
		{h + "men\t0\t272\t0\t0.000000\nmen\t1\t300\t0\t0\n", "2 items, no click in any"},
	} {
		if _, err := ParseCTRItems(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}
