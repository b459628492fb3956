package relation

// Tuple is what the planning algorithms know of one local record: its
// keywords, its weight w(r), its update rate λ and when it was last
// synchronised. Times are in the relation's time unit (the evaluations use
// the paper's abstract unit or a week; the user relations a day).
type Tuple struct {
	ID       string
	Keywords []string // distinct, normalised as the search interface matches them
	Weight   float64  // w(r), §3.1
	Rate     float64  // λ, updates per time unit, §4.2
	LastSync float64  // t_s, the time of the last synchronisation
}

// ExpectedStaleness is E[F(e;t)] = ½·λ·t² for a tuple last synchronised t
// time units ago under Poisson(λ) updates (§4.2).
func ExpectedStaleness(rate, age float64) float64 {
	if age <= 0 || rate <= 0 {
		return 0
	}
	return 0.5 * rate * age * age
}

// Priority is the tuple's weighted expected staleness w(r)·F(r;t), the
// numerator term of Eq. 2.
func (t *Tuple) Priority(now float64) float64 {
	return t.Weight * ExpectedStaleness(t.Rate, now-t.LastSync)
}

// Pending is one tuple's realised F(e;t) of §4.2: the sum over the server
// updates since the last synchronisation of their ages. It keeps the count
// and the sum of update times, so F(e;t) = n·t − Σt_i costs O(1).
type Pending struct {
	n   int
	sum float64
}

// Update records a server update at time at.
func (p *Pending) Update(at float64) { p.n++; p.sum += at }

// Updates records n updates at the same instant (a week of the archive).
func (p *Pending) Updates(at float64, n int) { p.n += n; p.sum += float64(n) * at }

// Sync marks the local copy up to date.
func (p *Pending) Sync() { *p = Pending{} }

// Count is the number of updates not yet synchronised.
func (p *Pending) Count() int { return p.n }

// At returns F(e;t): 0 when up to date, else Σ_{t_i∈U}(t − t_i).
func (p *Pending) At(t float64) float64 { return float64(p.n)*t - p.sum }

// Freshness is Eq. 1 and Eq. 3: F(L;t) = (1/|L|) Σ w(e)·F(e;t). Lower is
// fresher; 0 means in sync. weights and pending are indexed alike.
func Freshness(weights []float64, pending []Pending, t float64) float64 {
	if len(pending) == 0 {
		return 0
	}
	total := 0.0
	for i := range pending {
		if pending[i].n > 0 {
			total += weights[i] * pending[i].At(t)
		}
	}
	return total / float64(len(pending))
}
