package adsim

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"

	"github.com/deltaq/deltaq/ads"
)

// runSpec is one simulation: a policy, C, and the experiment's knobs.
type runSpec struct {
	policy     ads.Policy
	perQuery   int     // C
	days       int     // horizon
	rep        int     // which random query order
	priorP     float64 // fraction of ads with a prior (§6.8.1); 0: none
	priorV     float64 // accuracy v of the priors
	lifetime   float64 // mean ad lifetime λ in days (§6.8.3); 0: ads live forever
	queryCount string  // what n_j counts
}

// runResult is what one simulation measured.
type runResult struct {
	daily     []float64 // revenue per day, currency units
	exhausted []float64 // fraction of budgeted advertisers out of budget at the end of each day
	shown     int64     // impressions
	clicks    int64
}

// simulate runs one simulation. Each day: budgets reset; the day's query
// instances arrive in a random order (the same for every policy, per
// repetition and day); for each query the policy — the server's own
// ads.Select — picks up to C ads among those whose advertisers have
// budget left; each shown ad is clicked with its true CTR (one random
// stream per ad, so policies that show an ad equally often see the same
// clicks); a click earns ads.Charge(bid, budget). CTR estimates carry over
// from day to day (§6.7.2).
func (w *world) simulate(ctx context.Context, seed uint64, spec runSpec) (runResult, error) {
	nPhrases := len(w.ads)
	cands := make([][]ads.Candidate, nPhrases)
	flat := make([]ads.Candidate, w.nAds)
	off := 0
	for j, list := range w.ads {
		cands[j] = flat[off : off+len(list) : off+len(list)]
		off += len(list)
		for i, a := range list {
			b := w.budget[a.adv]
			cands[j][i] = ads.Candidate{ID: a.id, Bid: float64(a.bid), Budgeted: b > 0, Budget: float64(b)}
		}
	}
	if spec.priorP > 0 {
		w.assignPriors(cands, newRand(seed, streamPriors, uint64(spec.rep), math.Float64bits(spec.priorP), math.Float64bits(spec.priorV)), spec.priorP, spec.priorV)
	}
	coins := make([]rand.PCG, w.nAds)
	for _, list := range w.ads {
		for _, a := range list {
			coins[a.id-1] = *rand.NewPCG(seed^mix64(streamClicks<<32|uint64(spec.rep)), a.id)
		}
	}
	var life *lifetimes
	if spec.lifetime > 0 {
		life = newLifetimes(w, newRand(seed, streamLifetimes, uint64(spec.rep), math.Float64bits(spec.lifetime)), spec.lifetime)
	}

	remaining := make([]ads.Money, len(w.budget))
	total := make([]int64, nPhrases)
	today := make([]int64, nPhrases)
	order := make([]int32, len(w.base))
	sel := make([]int, 0, spec.perQuery)
	res := runResult{daily: make([]float64, spec.days), exhausted: make([]float64, spec.days)}
	budgeted := w.budgeted()
	global := int64(0) // queries since the start, the clock of lifetimes
	for day := range spec.days {
		copy(remaining, w.budget)
		clear(today)
		copy(order, w.base)
		ord := newRand(seed, streamOrder, uint64(spec.rep), uint64(day))
		ord.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		var revenue ads.Money
		for q, j := range order {
			if q&4095 == 0 {
				if err := ctx.Err(); err != nil {
					return runResult{}, err
				}
			}
			if life != nil {
				life.expire(global, cands)
			}
			global++
			total[j]++
			today[j]++
			cs := cands[j]
			if len(cs) == 0 {
				continue
			}
			n := total[j]
			if spec.queryCount == ads.QueryCountDay {
				n = today[j]
			}
			list := w.ads[j]
			for i := range cs {
				if cs[i].Budgeted {
					cs[i].Remaining = float64(remaining[list[i].adv])
				}
			}
			sel = ads.Select(spec.policy, cs, n, spec.perQuery, sel[:0])
			for _, i := range sel {
				c := &cs[i]
				c.Shown++
				res.shown++
				a := &list[i]
				if coin(&coins[a.id-1]) >= a.ctr {
					continue
				}
				c.Clicks++
				res.clicks++
				charge := ads.Charge(a.bid, c.Budgeted, remaining[a.adv])
				if c.Budgeted {
					remaining[a.adv] -= charge
				}
				revenue += charge
			}
		}
		res.daily[day] = revenue.Units()
		out := 0
		for i, b := range w.budget {
			if b > 0 && remaining[i] <= 0 {
				out++
			}
		}
		if budgeted > 0 {
			res.exhausted[day] = float64(out) / float64(budgeted)
		}
	}
	return res, nil
}

// coin returns a uniform draw in [0, 1) from an ad's own stream.
func coin(p *rand.PCG) float64 { return float64(p.Uint64()>>11) * 0x1p-53 }

// assignPriors gives a fraction p of the ads a Beta prior of accuracy v
// (§6.8.1): from the true CTR c, draw the prior mean μ̂ from the Beta
// distribution with mean c and variance c(1 − v), then use the Beta
// distribution with mean μ̂ and variance μ̂(1 − v). Such a Beta exists only
// for a mean below v, so means are kept in [1e-9, v − 1e-6]; with v ≥ 0.9
// and CTRs around 0.5 % the bound is never near.
func (w *world) assignPriors(cands [][]ads.Candidate, rng *rand.Rand, p, v float64) {
	for j, list := range w.ads {
		for i, a := range list {
			if rng.Float64() >= p {
				continue
			}
			c := clampMean(a.ctr, v)
			al, be := betaFromMoments(c, c*(1-v))
			mu := clampMean(betaSample(rng, al, be), v)
			al, be = betaFromMoments(mu, mu*(1-v))
			cands[j][i].Prior = ads.Prior{Alpha: al, Beta: be}
		}
	}
}

func clampMean(m, v float64) float64 { return min(max(m, 1e-9), v-1e-6) }

// lifetimes revokes ads when their lifetime ends and submits an identical
// new one in their place (§6.8.3): same advertiser, bid and true CTR, but a
// new id and no history. §6.8.3 calls the lifetime "a Poisson random
// variable with the mean set to λ"; it is read here as revocations arriving
// as a Poisson process, i.e. exponential lifetimes with mean λ days.
// Integer Poisson(λ) days would give many ads a lifetime of zero for
// λ = 1 and, for large λ, lifetimes so concentrated around λ that the ads
// submitted together at the start would be revoked together in waves, with
// no steady state to measure. Time advances one query at a time, each day
// being one day's query instances.
type lifetimes struct {
	rng    *rand.Rand
	mean   float64 // mean lifetime in queries
	events expiryHeap
	nextID uint64
}

func newLifetimes(w *world, rng *rand.Rand, lambdaDays float64) *lifetimes {
	l := &lifetimes{rng: rng, mean: lambdaDays * float64(len(w.base)), nextID: uint64(w.nAds) + 1}
	for j, list := range w.ads {
		for i := range list {
			l.events = append(l.events, expiry{at: l.draw(0), phrase: int32(j), idx: int32(i)})
		}
	}
	heap.Init(&l.events)
	return l
}

// draw returns the query index at which an ad submitted at query now
// expires: at least one query later.
func (l *lifetimes) draw(now int64) int64 {
	return now + max(1, int64(math.Round(l.rng.ExpFloat64()*l.mean)))
}

// expire replaces every ad whose lifetime ended by query now.
func (l *lifetimes) expire(now int64, cands [][]ads.Candidate) {
	for len(l.events) > 0 && l.events[0].at <= now {
		e := &l.events[0]
		c := &cands[e.phrase][e.idx]
		c.ID, c.Shown, c.Clicks = l.nextID, 0, 0
		l.nextID++
		e.at = l.draw(now)
		heap.Fix(&l.events, 0)
	}
}

type expiry struct {
	at          int64
	phrase, idx int32
}

type expiryHeap []expiry

func (h expiryHeap) Len() int { return len(h) }
func (h expiryHeap) Less(a, b int) bool {
	if h[a].at != h[b].at {
		return h[a].at < h[b].at
	}
	if h[a].phrase != h[b].phrase {
		return h[a].phrase < h[b].phrase
	}
	return h[a].idx < h[b].idx
}
func (h expiryHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *expiryHeap) Push(x any)   { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
