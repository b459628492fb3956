package monitor

import "fmt"

// LifeKind names how long information added by a change stays on a page
// (WIC §2.3, life_i(k, j)).
type LifeKind int

const (
	// UnboundedAppend: information is never removed; life = 1.
	UnboundedAppend LifeKind = iota
	// TimeWindowAppend: information is removed Window instants after it
	// was added; life = 1 iff j−k ≤ Window.
	TimeWindowAppend
	// ChangeWindowAppend: information is removed once Window later changes
	// have happened (a list page showing its newest Window items).
	ChangeWindowAppend
	// Overwrite: every change replaces the page; life = Π_{q=k+1..j}(1−π_q).
	Overwrite
)

// Life is one of the paper's life functions. Window is W instants for
// TimeWindowAppend and Z changes for ChangeWindowAppend; other kinds ignore it.
type Life struct {
	Kind   LifeKind
	Window int
}

func (l Life) String() string {
	switch l.Kind {
	case UnboundedAppend:
		return "append"
	case TimeWindowAppend:
		return fmt.Sprintf("window:%d", l.Window)
	case ChangeWindowAppend:
		return fmt.Sprintf("changes:%d", l.Window)
	case Overwrite:
		return "overwrite"
	}
	return fmt.Sprintf("life(%d)", int(l.Kind))
}

func (l Life) validate() error {
	switch l.Kind {
	case UnboundedAppend, Overwrite:
		return nil
	case TimeWindowAppend:
		if l.Window < 0 {
			return fmt.Errorf("monitor: life %s: window = %d: must be ≥ 0", l, l.Window)
		}
		return nil
	case ChangeWindowAppend:
		if l.Window < 1 {
			return fmt.Errorf("monitor: life %s: window = %d changes: must be ≥ 1", l, l.Window)
		}
		return nil
	}
	return fmt.Errorf("monitor: life kind = %d: must be append, window, changes or overwrite", int(l.Kind))
}

// At returns life(k, j) given after = π_{k+1..j}, the change probabilities
// of the instants since the change at T_k.
//
// ChangeWindowAppend is the probability that fewer than Z changes happen in
// (k, j]. The paper prints Σ_{q<Z} C(j−k, q) π^q (1−π)^{N−1−q} for a
// constant π; that is not a probability, and the exponent must be j−k−q. The
// general form here is the Poisson-binomial tail over the instants' own π,
// which equals the corrected formula when π is constant.
func (l Life) At(after []float64) float64 {
	switch l.Kind {
	case UnboundedAppend:
		return 1
	case TimeWindowAppend:
		if len(after) <= l.Window {
			return 1
		}
		return 0
	case Overwrite:
		p := 1.0
		for _, q := range after {
			p *= 1 - q
		}
		return p
	case ChangeWindowAppend:
		dist := make([]float64, l.Window)
		dist[0] = 1
		for _, q := range after {
			addEvent(dist, q)
		}
		s := 0.0
		for _, v := range dist {
			s += v
		}
		return s
	}
	return 0
}

// addEvent folds one more independent event of probability p into dist,
// the distribution of the number of events so far truncated below len(dist)
// (the Poisson-binomial recurrence).
func addEvent(dist []float64, p float64) {
	for c := len(dist) - 1; c >= 0; c-- {
		v := dist[c] * (1 - p)
		if c > 0 {
			v += dist[c-1] * p
		}
		dist[c] = v
	}
}
