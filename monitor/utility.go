package monitor

// Utility returns g(prev, j)/W for one demand by the definition (WIC §3):
// Σ_{k=prev+1..j} urgency(j−k)·π_k·life(k, j), where since[i] is π at
// instant prev+1+i and j = prev+len(since). Every incremental form below is
// tested against it.
func Utility(l Life, u Urgency, since []float64) float64 {
	n := len(since)
	// Walk k from the newest instant back, carrying life(k, n) along: the
	// product of (1−π) for Overwrite, the distribution of the number of
	// changes in (k, n] for Change-window-Append; O(n·Z) in all.
	var dist []float64
	if l.Kind == ChangeWindowAppend {
		dist = make([]float64, l.Window)
		dist[0] = 1
	}
	survive := 1.0 // Overwrite's Π_{q=k+1..n}(1−π_q)
	g := 0.0
	for k := n; k >= 1; k-- {
		p := since[k-1]
		if w := u.At(n - k); w > 0 && p > 0 {
			var life float64
			switch l.Kind {
			case UnboundedAppend:
				life = 1
			case TimeWindowAppend:
				if n-k <= l.Window {
					life = 1
				}
			case Overwrite:
				life = survive
			case ChangeWindowAppend:
				for _, v := range dist {
					life += v
				}
			}
			g += w * p * life
		}
		survive *= 1 - p
		if dist != nil {
			addEvent(dist, p)
		}
	}
	return g
}

// form says how a demand's g is carried from one instant to the next.
type form int

const (
	// formDecay: uniform or exponential urgency with append or overwrite
	// life: g_j = r·(1−π_j if overwrite)·g_{j−1} + π_j, O(1), no history.
	formDecay form = iota
	// formDecayWindow: uniform or exponential urgency with a time window:
	// g_j = r·g_{j−1} + π_j − r^{W+1}·π_{j−W−1}, O(1) over W+1 π kept.
	formDecayWindow
	// formSliding: sliding-window(w) urgency with append life (or a time
	// window, the smaller window wins): g_j = g_{j−1} + π_j − π_{j−w−1}.
	formSliding
	// formLinear: linear urgency with append life, through the running sums
	// S0 = Σπ and S1 = Σt·π over the horizon: g = S0 − S1/L, O(1).
	formLinear
	// formDirect: every other pair (change-window life, overwrite under a
	// window or linear urgency): the definition over the π kept since the
	// last fetch, at most maxLookback of them.
	formDirect
)

// tracker carries one demand's g(prev, j) from instant to instant.
type tracker struct {
	life    Life
	urgency Urgency
	form    form
	r       float64 // decay per instant for formDecay*
	window  int     // w for formSliding/formDecayWindow, L for formLinear
	drop    float64 // r^{W+1} for formDecayWindow

	g      float64
	s0, s1 float64
	hist   ring // π since prev, the newest last; capacity fixed by form
}

func newTracker(l Life, u Urgency, maxLookback int) tracker {
	t := tracker{life: l, urgency: u, form: formDirect}
	decay := u.Kind == Uniform || u.Kind == Exponential
	if decay {
		t.r = 1
		if u.Kind == Exponential {
			t.r = u.R
		}
	}
	switch {
	case decay && (l.Kind == UnboundedAppend || l.Kind == Overwrite):
		t.form = formDecay
	case decay && l.Kind == TimeWindowAppend:
		t.form, t.window = formDecayWindow, l.Window
		t.drop = Urgency{Kind: Exponential, R: t.r}.At(l.Window + 1)
	case u.Kind == SlidingWindow && l.Kind == UnboundedAppend:
		t.form, t.window = formSliding, u.Window
	case u.Kind == SlidingWindow && l.Kind == TimeWindowAppend:
		t.form, t.window = formSliding, min(u.Window, l.Window)
	case u.Kind == Linear && l.Kind == UnboundedAppend:
		t.form, t.window = formLinear, u.Window
	}
	switch t.form {
	case formDecay:
	case formDecayWindow, formSliding:
		t.hist = newRing(t.window + 1)
	case formLinear:
		t.hist = newRing(t.window)
	default:
		t.hist = newRing(maxLookback)
	}
	return t
}

// add folds π_j of the new instant j into g.
func (t *tracker) add(pi float64) {
	switch t.form {
	case formDecay:
		f := t.r
		if t.life.Kind == Overwrite {
			f *= 1 - pi
		}
		t.g = f*t.g + pi
	case formDecayWindow:
		old, full := t.hist.push(pi)
		t.g = t.r*t.g + pi
		if full {
			t.g -= t.drop * old
		}
	case formSliding:
		old, full := t.hist.push(pi)
		t.g += pi
		if full {
			t.g -= old
		}
	case formLinear:
		// S1' = S1 + S0 − L·π_{j−L}, S0' = S0 + π_j − π_{j−L}.
		old, full := t.hist.push(pi)
		t.s1 += t.s0
		t.s0 += pi
		if full {
			t.s1 -= float64(t.window) * old
			t.s0 -= old
		}
		t.g = t.s0 - t.s1/float64(t.window)
	default:
		t.hist.push(pi)
		t.g = Utility(t.life, t.urgency, t.hist.slice())
	}
	if t.g < 0 { // subtraction round-off in the windowed forms
		t.g = 0
	}
}

// reset records a fetch: prev becomes the current instant.
func (t *tracker) reset() {
	t.g, t.s0, t.s1 = 0, 0, 0
	t.hist.clear()
}

// ring keeps the newest cap values pushed since the last clear.
type ring struct {
	buf   []float64
	start int
	n     int
}

func newRing(capacity int) ring { return ring{buf: make([]float64, max(capacity, 0))} }

// push appends v; when the ring was full it returns the value it dropped.
func (r *ring) push(v float64) (dropped float64, full bool) {
	if len(r.buf) == 0 {
		return v, true
	}
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = v
		r.n++
		return 0, false
	}
	dropped = r.buf[r.start]
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
	return dropped, true
}

func (r *ring) clear() { r.start, r.n = 0, 0 }

// slice returns the kept values, oldest first.
func (r *ring) slice() []float64 {
	out := make([]float64, r.n)
	for i := range r.n {
		out[i] = r.buf[(r.start+i)%len(r.buf)]
	}
	return out
}
