package ads

import (
	"fmt"
	"math"
	"strings"
)

// Prior is a Beta(α, β) prior on an ad's click-through rate (§6.8.1). The
// zero value means no prior.
type Prior struct {
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// Known reports whether p is a prior (both parameters positive).
func (p Prior) Known() bool { return p.Alpha > 0 && p.Beta > 0 }

// Candidate is one ad a_ij targeting the queried phrase Q_j, as the
// policies see it: a snapshot taken when the query arrives. Policies are
// pure functions of candidates, so the server and the simulation rank with
// the same code.
type Candidate struct {
	// ID identifies the ad; equal priorities go to the higher bid, then to
	// the lower ID (the older ad).
	ID uint64
	// Bid is b_ij, in any unit shared by all candidates (micros in the
	// server).
	Bid float64
	// Shown is n_ij, how often the ad has been displayed for this phrase.
	Shown int64
	// Clicks is s_ij, how often it has been clicked when displayed for this
	// phrase.
	Clicks int64
	// Prior is the Beta prior on c_ij, if any (§6.8.1).
	Prior Prior
	// Budgeted says the advertiser has a daily budget d_i = Budget; then
	// Remaining is d′_i, what is left of it today. An advertiser with
	// Remaining <= 0 is out of budget and its ads are not eligible.
	Budgeted  bool
	Budget    float64
	Remaining float64
}

// CTR returns ĉ_ij, the estimated click-through rate, and whether there is
// an estimate at all. With a prior it is the posterior mean
// (α + s)/(α + β + n) (§6.8.1), defined from the first query on; without
// one it is s/n, the observed rate (§6.5), undefined while n = 0.
func (c *Candidate) CTR() (float64, bool) {
	if c.Prior.Known() {
		return (c.Prior.Alpha + float64(c.Clicks)) / (c.Prior.Alpha + c.Prior.Beta + float64(c.Shown)), true
	}
	if c.Shown <= 0 {
		return 0, false
	}
	return float64(c.Clicks) / float64(c.Shown), true
}

// evidence is the number of observations behind ĉ_ij used in the
// exploration terms: n_ij, plus α + β with a prior, whose parameters count
// as pseudo-observations. The thesis leaves this open; counting the prior
// is what keeps a policy from treating a never-shown ad with a prior as
// infinitely uncertain, and with the small α + β of §6.8.1 it fades after a
// few dozen displays ("our policies only use the prior distributions to
// start with").
func (c *Candidate) evidence() float64 {
	n := float64(c.Shown)
	if c.Prior.Known() {
		n += c.Prior.Alpha + c.Prior.Beta
	}
	return n
}

// Eligible reports whether the advertiser still has budget today; only
// eligible ads are shown, under every policy (BPOL step 1, §6.6.1).
func (c *Candidate) Eligible() bool { return !c.Budgeted || c.Remaining > 0 }

// Policy computes the priority P_ij of a candidate; Select shows the C
// eligible candidates of highest priority.
type Policy interface {
	// Name is the policy's configuration name, e.g. "bmix-e".
	Name() string
	// Priority returns P_ij for query q. +Inf marks an ad that must be
	// shown before any other is explored further.
	Priority(c *Candidate, q Query) float64
}

// Query is what the policies need to know about the query being answered:
// n_j, the number of queries of its phrase counting this one, and ln n_j,
// computed once per query rather than once per candidate.
type Query struct {
	N   int64
	LnN float64
}

// QueryOf returns the Query of the n-th query of a phrase. ln n_j is taken
// as 0 for n_j <= 1: no exploration bonus before the phrase has history.
func QueryOf(n int64) Query {
	if n <= 1 {
		return Query{N: n}
	}
	return Query{N: n, LnN: math.Log(float64(n))}
}

// PolicyByName returns the policy configured under name.
func PolicyByName(name string) (Policy, error) {
	for _, p := range Policies() {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("ads: unknown policy %q (want one of %s)", name, policyNames())
}

// Policies returns every policy, in the order the thesis introduces them.
func Policies() []Policy {
	return []Policy{Greedy{}, MIX{}, BMIX{}, BMIXE{}, BMIXT{}, BMIXET{}}
}

// policyNames lists the accepted names, for error messages.
func policyNames() string {
	var names []string
	for _, p := range Policies() {
		names = append(names, p.Name())
	}
	return strings.Join(names, ", ")
}

// Select appends to dst the indexes into cands of the (at most) k eligible
// candidates of highest priority under p, best first, and returns dst.
// Ties go to the higher bid, then to the lower ID, so the result is a
// function of its inputs. n is n_j, the phrase's query count including the
// current query. Select reads cands and does not keep them; it allocates
// nothing when dst has room for k indexes.
func Select(p Policy, cands []Candidate, n int64, k int, dst []int) []int {
	if k <= 0 {
		return dst
	}
	base := len(dst)
	// prio[i] is the priority of dst[base+i]; k is small (at most
	// MaxPerQuery in the server), so an insertion-sorted array beats a
	// heap.
	var prioBuf [MaxPerQuery]float64
	prio := prioBuf[:0]
	if k > MaxPerQuery {
		prio = make([]float64, 0, k)
	}
	q := QueryOf(n)
	for i := range cands {
		c := &cands[i]
		if !c.Eligible() {
			continue
		}
		pr := p.Priority(c, q)
		if math.IsNaN(pr) {
			pr = math.Inf(-1)
		}
		m := len(prio)
		if m == k && !better(pr, c, prio[m-1], &cands[dst[base+m-1]]) {
			continue
		}
		if m < k {
			prio = append(prio, 0)
			dst = append(dst, 0)
			m++
		}
		// Shift worse entries right and insert.
		j := m - 1
		for j > 0 && better(pr, c, prio[j-1], &cands[dst[base+j-1]]) {
			prio[j] = prio[j-1]
			dst[base+j] = dst[base+j-1]
			j--
		}
		prio[j] = pr
		dst[base+j] = i
	}
	return dst
}

// better reports whether candidate a with priority pa ranks before b.
func better(pa float64, a *Candidate, pb float64, b *Candidate) bool {
	if pa != pb {
		return pa > pb
	}
	if a.Bid != b.Bid {
		return a.Bid > b.Bid
	}
	return a.ID < b.ID
}
