package ranksim

import (
	"fmt"
	"math"
)

// daysPerYear converts the thesis's lifetimes in years to simulated days.
const daysPerYear = 365

// Community is a Web community (thesis §5.1.2, §5.4, table 5.1): the pages
// of one topic and the users interested in it.
type Community struct {
	Pages        int     // n = |P|
	Users        int     // u = |U|
	Monitored    int     // m = |U_m|, the users popularity is measured over
	VisitsPerDay float64 // v_u, visits by all users per day
	LifetimeDays float64 // l = 1/λ, expected page lifetime
	// QualityMax is the quality of the best page (0.4 in §5.7.1).
	QualityMax float64
	// QualityExponent is γ of the power-law density of quality,
	// Pr(Q = x) ∝ x^(−γ); §5.7.1 takes the PageRank distribution reported
	// by Cho and Roy, whose exponent is 2.1.
	QualityExponent float64
}

// DefaultCommunity is the default community of thesis §5.7.1: n = 10,000
// pages, u = 1,000 users making v_u = 1,000 visits a day, m = 100 of them
// monitored, pages living 1.5 years on average, quality a power law with
// maximum 0.4.
func DefaultCommunity() Community {
	return Community{
		Pages: 10000, Users: 1000, Monitored: 100, VisitsPerDay: 1000,
		LifetimeDays: 1.5 * daysPerYear, QualityMax: 0.4, QualityExponent: 2.1,
	}
}

// MonitoredVisits is v = v_u·m/u, the monitored users' visits per day
// (§5.4.1).
func (c Community) MonitoredVisits() float64 {
	return c.VisitsPerDay * float64(c.Monitored) / float64(c.Users)
}

// Lambda is the retirement rate λ = 1/l per day (§5.6.1).
func (c Community) Lambda() float64 { return 1 / c.LifetimeDays }

func (c Community) validate() error {
	switch {
	case c.Pages < 2:
		return fmt.Errorf("ranksim: community of %d pages: need at least 2", c.Pages)
	case c.Users < 1 || c.Monitored < 1 || c.Monitored > c.Users:
		return fmt.Errorf("ranksim: %d monitored of %d users: need 1 <= m <= u", c.Monitored, c.Users)
	case !(c.VisitsPerDay > 0) || !(c.LifetimeDays > 0):
		return fmt.Errorf("ranksim: visits %v/day, lifetime %v days: both must be > 0", c.VisitsPerDay, c.LifetimeDays)
	case !(c.QualityMax > 0 && c.QualityMax <= 1) || !(c.QualityExponent > 1):
		return fmt.Errorf("ranksim: quality max %v, exponent %v: need max in (0, 1] and exponent > 1", c.QualityMax, c.QualityExponent)
	}
	return nil
}

// Qualities returns Q of the n pages, best first:
//
//	Q_i = QualityMax · i^(−1/(γ−1)),  i = 1..n
//
// the expected order statistics of n draws from the power law
// Pr(Q = x) ∝ x^(−γ), scaled so the best page has QualityMax. Using the
// quantiles rather than random draws keeps the quality distribution the
// same in every run, so runs differ only in the dynamics. Page index i−1
// keeps quality Q_i for the whole run: a retired page is replaced by a new
// page of equal quality (§5.6.1).
func (c Community) Qualities() []float64 {
	q := make([]float64, c.Pages)
	e := 1 / (c.QualityExponent - 1)
	for i := range q {
		q[i] = c.QualityMax * math.Pow(float64(i+1), -e)
	}
	return q
}

// rankWeights returns F2 of eq. 5.5 normalized to a distribution:
// w_i = i^(−3/2) / Σ_j j^(−3/2), the share of visits to rank i = 1..n.
func rankWeights(n int) []float64 {
	w := make([]float64, n)
	sum := 0.0
	for i := range w {
		w[i] = math.Pow(float64(i+1), -1.5)
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// IdealQPC is the QPC of ranking pages by quality (§5.4.3), the upper
// bound QPC is normalized by (§5.7.3): Σ_i w_i·Q_i.
func IdealQPC(c Community) float64 {
	w := rankWeights(c.Pages)
	q := c.Qualities()
	s := 0.0
	for i := range w {
		s += w[i] * q[i]
	}
	return s
}
