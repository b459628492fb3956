package monitor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Demand is one reason to watch a URL: how its changes persist on the page
// (Life), how their value falls with delay (Urgency), and its importance
// Weight (W_i). Several demands on one URL add their utilities and share
// each fetch.
type Demand struct {
	URL     string
	Life    Life
	Urgency Urgency
	Weight  float64
}

// DemandID names a registered demand.
type DemandID uint64

// ErrUnknownDemand is returned for a DemandID that is not registered.
var ErrUnknownDemand = errors.New("monitor: unknown demand")

// Validate names the field, its value and the limit it breaks.
func (d Demand) Validate() error {
	var errs []error
	if d.URL == "" {
		errs = append(errs, errors.New("monitor: demand url is empty"))
	}
	if !(d.Weight > 0) || math.IsInf(d.Weight, 0) {
		errs = append(errs, fmt.Errorf("monitor: demand %s: weight = %g: must be > 0 and finite", d.URL, d.Weight))
	}
	if err := d.Life.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := d.Urgency.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Choice is one URL the scheduler picked at an instant, with the utility
// g(prev, j) summed over its demands, and prev, the instant of its last fetch
// (0 if never).
type Choice struct {
	URL     string
	Utility float64
	Prev    int
}

// Scheduler is WIC (Algorithm 1, §3.2): at each instant j it folds the
// change probabilities π_{·,j} into every demand's g(prev, j) and picks the C
// URLs with the largest summed utility. It is not safe for concurrent use.
type Scheduler struct {
	maxLookback int
	instant     int
	nextID      DemandID
	demands     map[DemandID]*demand
	sources     map[string]*source
	a           float64 // max over demands of urgency's a, for the (1+a) bound
}

type demand struct {
	Demand
	tr tracker
}

type source struct {
	url     string
	demands []*demand
	prev    int
}

// NewScheduler returns an empty scheduler. maxLookback bounds how many past
// instants a demand without an O(1) form (change-window life, overwrite
// under window or linear urgency) keeps to compute g; older π are dropped.
func NewScheduler(maxLookback int) (*Scheduler, error) {
	if maxLookback < 1 {
		return nil, fmt.Errorf("monitor: max lookback = %d instants: must be ≥ 1", maxLookback)
	}
	return &Scheduler{
		maxLookback: maxLookback,
		demands:     map[DemandID]*demand{},
		sources:     map[string]*source{},
	}, nil
}

// Add registers d from the next instant on and returns its id.
func (s *Scheduler) Add(d Demand) (DemandID, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	s.nextID++
	dm := &demand{Demand: d, tr: newTracker(d.Life, d.Urgency, s.maxLookback)}
	s.demands[s.nextID] = dm
	src := s.sources[d.URL]
	if src == nil {
		src = &source{url: d.URL, prev: s.instant}
		s.sources[d.URL] = src
	}
	src.demands = append(src.demands, dm)
	s.a = max(s.a, d.Urgency.A())
	return s.nextID, nil
}

// Remove unregisters a demand; a URL left without demands is forgotten.
func (s *Scheduler) Remove(id DemandID) error {
	dm, ok := s.demands[id]
	if !ok {
		return fmt.Errorf("%w: %d", ErrUnknownDemand, id)
	}
	delete(s.demands, id)
	src := s.sources[dm.URL]
	src.demands = slices.DeleteFunc(src.demands, func(d *demand) bool { return d == dm })
	if len(src.demands) == 0 {
		delete(s.sources, dm.URL)
	}
	return nil
}

// Instant is the current instant j (0 before the first Advance).
func (s *Scheduler) Instant() int { return s.instant }

// Len is the number of URLs watched.
func (s *Scheduler) Len() int { return len(s.sources) }

// Bound returns 1+a, the factor within which the greedy schedule is of the
// optimum for the demands registered (WIC Theorem 1).
func (s *Scheduler) Bound() float64 { return 1 + s.a }

// Advance moves to the next instant j and folds π_{u,j} = pi(u) into every
// demand on every URL u. pi must return a probability in [0, 1] (or, for
// the append forms, an expected count of changes ≥ 0).
func (s *Scheduler) Advance(pi func(url string) float64) {
	s.instant++
	for _, src := range s.sources {
		p := pi(src.url)
		if !(p > 0) { // NaN and negatives count as no change
			p = 0
		}
		for _, d := range src.demands {
			d.tr.add(p)
		}
	}
}

// Utility returns g(prev, j) summed over the demands on url: the utility
// of fetching it at the current instant.
func (s *Scheduler) Utility(url string) float64 {
	src := s.sources[url]
	if src == nil {
		return 0
	}
	return src.utility()
}

func (src *source) utility() float64 {
	u := 0.0
	for _, d := range src.demands {
		u += d.Weight * d.tr.g
	}
	return u
}

// Pick chooses up to c URLs with the largest positive utility at the
// current instant, skipping those ready rejects (a host not yet allowed by
// politeness: the next candidate takes its place), and records them as
// fetched now. ready may be nil. Ties break by URL, so runs are
// reproducible.
func (s *Scheduler) Pick(c int, ready func(url string) bool) []Choice {
	if c <= 0 {
		return nil
	}
	if ready == nil {
		return s.pickTop(c)
	}
	cands := make([]Choice, 0, len(s.sources))
	for _, src := range s.sources {
		if u := src.utility(); u > 0 {
			cands = append(cands, Choice{URL: src.url, Utility: u, Prev: src.prev})
		}
	}
	slices.SortFunc(cands, better)
	out := cands[:0]
	for _, ch := range cands {
		if len(out) == c {
			break
		}
		if !ready(ch.URL) {
			continue
		}
		out = append(out, ch)
		s.Fetched(ch.URL)
	}
	return out
}

// better orders choices by utility, highest first, then by URL.
func better(a, b Choice) int {
	if c := cmp.Compare(b.Utility, a.Utility); c != 0 {
		return c
	}
	return cmp.Compare(a.URL, b.URL)
}

// pickTop is Pick without a readiness filter: a bounded min-heap keeps the
// best c in one pass, O(n log c) instead of sorting every candidate.
func (s *Scheduler) pickTop(c int) []Choice {
	h := make([]Choice, 0, c) // h[0] is the worst kept
	worse := func(i, j int) bool { return better(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && worse(l, m) {
				m = l
			}
			if r := l + 1; r < len(h) && worse(r, m) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, src := range s.sources {
		u := src.utility()
		if u <= 0 {
			continue
		}
		ch := Choice{URL: src.url, Utility: u, Prev: src.prev}
		if len(h) < c {
			h = append(h, ch)
			for i := len(h) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
			continue
		}
		if better(ch, h[0]) < 0 {
			h[0] = ch
			down(0)
		}
	}
	slices.SortFunc(h, better)
	for _, ch := range h {
		s.Fetched(ch.URL)
	}
	return h
}

// Fetched records that url was fetched at the current instant, whoever
// fetched it: every demand on it starts over from here (prev = j).
func (s *Scheduler) Fetched(url string) {
	src := s.sources[url]
	if src == nil {
		return
	}
	src.prev = s.instant
	for _, d := range src.demands {
		d.tr.reset()
	}
}
