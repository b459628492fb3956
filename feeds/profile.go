package feeds

import (
	"math"
	"time"
)

// Period is the period of the posting profile: one week, so the profile
// carries both the daily and the weekly rhythm (Sia & Cho §3: periodic
// inhomogeneous Poisson, λ(t) = λ(t − nT)).
const Period = 7 * 24 * time.Hour

// Bins is the number of hourly bins in a Period; bin 0 is Monday 00:00 UTC.
const Bins = 7 * 24

// Shape is λ(t)/λ̄ per hourly bin of the week: non-negative, mean 1.
type Shape [Bins]float64

// BinOf returns the bin of t: weekday (Monday 0) × 24 + UTC hour.
func BinOf(t time.Time) int {
	t = t.UTC()
	day := (int(t.Weekday()) + 6) % 7
	return day*24 + t.Hour()
}

// Daily is a share of postings per UTC hour of the day (sums to 1): the
// 24-dimensional vector the paper clusters.
type Daily [24]float64

// Model is what is learned about one feed: its mean posting rate λ̄ in
// postings per second, the shape of λ(t) over the week, how many postings
// it was learned from, and the daily pattern (cluster) it leaned on.
type Model struct {
	Rate     float64
	Shape    Shape
	Postings int
	Cluster  int
}

// RateAt returns λ(t) in postings per second.
func (m Model) RateAt(t time.Time) float64 { return m.Rate * m.Shape[BinOf(t)] }

// Counts are one feed's postings in a learning window, binned.
type Counts struct {
	Hour    [24]float64 // per UTC hour of day
	Weekday [7]float64  // per weekday, Monday 0
	N       int
	Window  time.Duration
}

// Count bins the posting times in [from, to).
func Count(times []time.Time, from, to time.Time) Counts {
	bins, _ := weekBins(times, from, to)
	return countsOf(&bins, to.Sub(from))
}

// countsOf sums a window's counts by bin of the week into Counts.
func countsOf(bins *[Bins]float64, window time.Duration) Counts {
	c := Counts{Window: window}
	for b, v := range bins {
		c.Hour[b%24] += v
		c.Weekday[b/24] += v
		c.N += int(v)
	}
	return c
}

// DailyShare returns the counts' hour-of-day shares, or nil without postings.
func (c Counts) DailyShare() *Daily {
	if c.N == 0 {
		return nil
	}
	var d Daily
	for h, v := range c.Hour {
		d[h] = v / float64(c.N)
	}
	return &d
}

// Prior is what a feed's own counts are shrunk towards: the daily pattern
// of its cluster and the weekly pattern of all feeds, each worth Weight
// postings; Floor is the share of uniform mixed into every shape so that no
// hour has λ = 0 (a posting can come at any time, and the placement rule
// divides by λ).
type Prior struct {
	Daily   Daily
	Weekday [7]float64 // shares, sum 1
	Weight  float64
	Floor   float64
	// RateCount is the pseudo-count of postings added to a feed's count for
	// its rate, so a feed silent in the window keeps a small positive λ̄.
	RateCount float64
}

// Learn builds a feed's model from its counts: λ̄ = (N + RateCount)/window;
// the shape is daily(h)·weekly(d), each the feed's shares shrunk towards the
// prior's, mixed with Floor of uniform. The daily × weekly product needs far
// fewer postings than 168 free bins; the weekly factor carries the weekend.
func Learn(c Counts, p Prior, cluster int) Model {
	m := Model{Postings: c.N, Cluster: cluster}
	if c.Window > 0 {
		m.Rate = (float64(c.N) + p.RateCount) / c.Window.Seconds()
	}
	n := float64(c.N)
	if n+p.Weight == 0 {
		n = 1 // no postings and no prior: the counts are all zero, the shape flat
	}
	var daily [24]float64
	for h := range daily {
		daily[h] = 24 * (c.Hour[h] + p.Weight*p.Daily[h]) / (n + p.Weight)
	}
	var weekly [7]float64
	for d := range weekly {
		weekly[d] = 7 * (c.Weekday[d] + p.Weight*p.Weekday[d]) / (n + p.Weight)
	}
	sum := 0.0
	for b := range m.Shape {
		m.Shape[b] = daily[b%24] * weekly[b/24]
		sum += m.Shape[b]
	}
	for b := range m.Shape {
		v := 1.0
		if sum > 0 {
			v = m.Shape[b] * Bins / sum
		}
		m.Shape[b] = (1-p.Floor)*v + p.Floor
	}
	return m
}

// Uniform is the flat daily pattern.
func Uniform() Daily {
	var d Daily
	for h := range d {
		d[h] = 1.0 / 24
	}
	return d
}

// logLikelihood of hour counts under a daily pattern.
func logLikelihood(hours [24]float64, d Daily) float64 {
	ll := 0.0
	for h, v := range hours {
		if v > 0 {
			ll += v * math.Log(max(d[h], 1e-12))
		}
	}
	return ll
}
