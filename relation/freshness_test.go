package relation

import (
	"math"
	"testing"
)

func TestTrackerMatchesFreshness(t *testing.T) {
	w := []float64{1, 3}
	k := NewTracker(w, 0)
	var p [2]Pending
	steps := []struct {
		sync bool
		i    int
		at   float64
	}{{false, 0, 1}, {false, 1, 2}, {false, 0, 2.5}, {true, 0, 3}, {false, 1, 4}}
	for _, s := range steps {
		if s.sync {
			if _, err := k.Sync(s.i, s.at); err != nil {
				t.Fatal(err)
			}
			p[s.i].Sync()
		} else {
			if err := k.Update(s.i, s.at); err != nil {
				t.Fatal(err)
			}
			p[s.i].Update(s.at)
		}
	}
	got, err := k.At(5)
	if err != nil {
		t.Fatal(err)
	}
	if want := Freshness(w, p[:], 5); math.Abs(got-want) > 1e-12 {
		t.Errorf("tracker F(L;5) = %v, Freshness = %v", got, want)
	}
	// ∫₀⁵ F: tuple 0 (w 1): ∫₁^2.5 (t−1) + ∫_{2.5}^3 (2t−3.5) = 1.125 + 1;
	// tuple 1 (w 3): ∫₂⁴ (t−2) + ∫₄⁵ (2t−6) = 2 + 3, times 3.
	area := (1.125 + 1 + 3*(2+3)) / 2
	if got := k.Mean(); math.Abs(got-area/5) > 1e-12 {
		t.Errorf("time average %v, want %v", got, area/5)
	}
	if err := k.Update(0, 4); err == nil {
		t.Error("an event before the last one was accepted")
	}
}
