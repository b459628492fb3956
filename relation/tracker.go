package relation

import "fmt"

// Tracker keeps F(L;t) of a relation as updates arrive and syncs happen,
// in O(1) per event: F(L;t) = (1/|L|)(t·Σ w_i·n_i − Σ w_i·Σt_ij) over the
// pending updates. Events must come in time order; between events F(L;t)
// is linear in t, so the tracker also integrates it exactly, for the time
// average the paper's single-instant measure (§4.3) leaves out.
type Tracker struct {
	weights []float64
	pending []Pending
	wn, ws  float64 // Σ w·n, Σ w·Σt
	start   float64
	now     float64
	area    float64 // ∫ F(L;t) dt from start to now
}

// NewTracker starts a tracker at time start with every tuple in sync.
func NewTracker(weights []float64, start float64) *Tracker {
	return &Tracker{weights: weights, pending: make([]Pending, len(weights)), start: start, now: start}
}

// advance integrates F up to t.
func (k *Tracker) advance(t float64) error {
	if t < k.now {
		return fmt.Errorf("relation: tracker event at %v is before the last at %v", t, k.now)
	}
	if len(k.pending) > 0 {
		k.area += (k.wn*(t*t-k.now*k.now)/2 - k.ws*(t-k.now)) / float64(len(k.pending))
	}
	k.now = t
	return nil
}

// Update records a server update of tuple i at time at.
func (k *Tracker) Update(i int, at float64) error { return k.Updates(i, at, 1) }

// Updates records n server updates of tuple i at time at.
func (k *Tracker) Updates(i int, at float64, n int) error {
	if err := k.advance(at); err != nil {
		return err
	}
	k.pending[i].Updates(at, n)
	k.wn += k.weights[i] * float64(n)
	k.ws += k.weights[i] * float64(n) * at
	return nil
}

// Sync marks tuple i synchronised at time at and returns how many updates
// it had pending.
func (k *Tracker) Sync(i int, at float64) (int, error) {
	if err := k.advance(at); err != nil {
		return 0, err
	}
	p := k.pending[i]
	k.wn -= k.weights[i] * float64(p.n)
	k.ws -= k.weights[i] * p.sum
	k.pending[i].Sync()
	return p.n, nil
}

// Pending returns tuple i's pending updates.
func (k *Tracker) Pending(i int) Pending { return k.pending[i] }

// At returns F(L;t) at t ≥ the last event, and integrates up to it.
func (k *Tracker) At(t float64) (float64, error) {
	if err := k.advance(t); err != nil {
		return 0, err
	}
	if len(k.pending) == 0 {
		return 0, nil
	}
	return (k.wn*t - k.ws) / float64(len(k.pending)), nil
}

// Area returns ∫ F(L;t) dt from the start to the last event or reading.
func (k *Tracker) Area() float64 { return k.area }

// Mean returns the time average of F(L;t) from the start to the last
// event or reading.
func (k *Tracker) Mean() float64 {
	if k.now == k.start {
		return 0
	}
	return k.area / (k.now - k.start)
}
