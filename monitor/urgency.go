package monitor

import (
	"fmt"
	"math"
)

// UrgencyKind names how a captured change's value falls with its delay
// (WIC §2.3, urgency_i(t), urgency(0) = 1).
type UrgencyKind int

const (
	// Uniform: delay does not matter; urgency = 1.
	Uniform UrgencyKind = iota
	// Exponential: urgency = R^t, R ∈ [0, 1].
	Exponential
	// SlidingWindow: urgency = 1 iff t ≤ Window.
	SlidingWindow
	// Linear: urgency = max(0, 1 − t/Window). Not in the paper's menu;
	// maximising it is minimising total delay up to a horizon of Window
	// instants, the feed aggregator's metric (Sia & Cho, Def. 2).
	Linear
)

// Urgency is one urgency function. R is the decay of Exponential; Window is
// the window of SlidingWindow and the horizon of Linear, in instants.
type Urgency struct {
	Kind   UrgencyKind
	R      float64
	Window int
}

func (u Urgency) String() string {
	switch u.Kind {
	case Uniform:
		return "uniform"
	case Exponential:
		return fmt.Sprintf("exp:%g", u.R)
	case SlidingWindow:
		return fmt.Sprintf("window:%d", u.Window)
	case Linear:
		return fmt.Sprintf("linear:%d", u.Window)
	}
	return fmt.Sprintf("urgency(%d)", int(u.Kind))
}

func (u Urgency) validate() error {
	switch u.Kind {
	case Uniform:
		return nil
	case Exponential:
		if !(u.R >= 0 && u.R <= 1) {
			return fmt.Errorf("monitor: urgency %s: r = %g: must be in [0, 1]", u, u.R)
		}
		return nil
	case SlidingWindow:
		if u.Window < 0 {
			return fmt.Errorf("monitor: urgency %s: window = %d: must be ≥ 0", u, u.Window)
		}
		return nil
	case Linear:
		if u.Window < 1 {
			return fmt.Errorf("monitor: urgency %s: horizon = %d: must be ≥ 1", u, u.Window)
		}
		return nil
	}
	return fmt.Errorf("monitor: urgency kind = %d: must be uniform, exp, window or linear", int(u.Kind))
}

// At returns urgency(t) for a delay of t ≥ 0 instants.
func (u Urgency) At(t int) float64 {
	switch u.Kind {
	case Uniform:
		return 1
	case Exponential:
		if t == 0 {
			return 1
		}
		return math.Pow(u.R, float64(t))
	case SlidingWindow:
		if t <= u.Window {
			return 1
		}
		return 0
	case Linear:
		return max(0, 1-float64(t)/float64(u.Window))
	}
	return 0
}

// A returns a = max_t urgency(t+1)/urgency(t) over the t where urgency(t) > 0
// (WIC §3.3): the greedy schedule is within a factor 1+a of the optimum.
func (u Urgency) A() float64 {
	switch u.Kind {
	case Uniform:
		return 1
	case Exponential:
		return u.R
	case SlidingWindow:
		if u.Window == 0 {
			return 0
		}
		return 1
	case Linear:
		// (1−(t+1)/L)/(1−t/L) = 1 − 1/(L−t) is largest at t = 0.
		return 1 - 1/float64(u.Window)
	}
	return 1
}
