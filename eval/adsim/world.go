package adsim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/deltaq/deltaq/ads"
)

// world is the fixed part of the simulation, drawn once from the seed:
// phrases and their daily frequencies, advertisers and budgets, and the
// ads with their bids and true CTRs (§6.7.1). Only query orders, clicks,
// priors and lifetimes vary between runs.
type world struct {
	phrases []string
	freq    []int   // f_j: queries of phrase j per day
	base    []int32 // one day's query instances, phrase j repeated f_j times
	budget  []ads.Money
	ads     [][]adSpec // per phrase, ascending id
	nAds    int
	ctr     *CTRDistribution
	fair    []float64 // per advertiser: fair-share spend per day at C = 1
}

// adSpec is one ad a_ij.
type adSpec struct {
	id  uint64 // 1..nAds; index id-1 into per-ad arrays
	adv int32
	bid ads.Money
	ctr float64 // the true c_ij
}

// Random streams, one per purpose, so that changing one experiment does not
// shift the numbers of another and policies see the same query orders,
// priors, lifetimes and per-ad click coins (common random numbers).
const (
	streamWorld uint64 = iota + 1
	streamOrder
	streamClicks
	streamPriors
	streamLifetimes
)

func newRand(seed, stream uint64, parts ...uint64) *rand.Rand {
	h := stream
	for _, p := range parts {
		h = mix64(h ^ mix64(p+0x9e3779b97f4a7c15))
	}
	return rand.New(rand.NewPCG(seed, h))
}

// mix64 is the SplitMix64 finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// dailyFrequencies scales the log's counts to queriesPerDay instances a
// day (0: the counts as they are), rounding to the nearest integer with
// every phrase queried at least once.
func dailyFrequencies(l *QueryLog, queriesPerDay int) []int {
	var total float64
	for _, p := range l.Phrases {
		total += float64(p.Count)
	}
	f := make([]int, len(l.Phrases))
	for j, p := range l.Phrases {
		if queriesPerDay == 0 {
			f[j] = int(p.Count)
		} else {
			f[j] = int(math.Round(float64(p.Count) * float64(queriesPerDay) / total))
		}
		f[j] = max(1, f[j])
	}
	return f
}

// newWorld draws advertisers, ads, bids, budgets and true CTRs.
//
//   - Advertisers: round(P·ads_per_phrase / phrases_per_advertiser) of them
//     for P phrases. Each targets 1 + Poisson(phrases_per_advertiser − 1)
//     distinct phrases, picking phrase j with weight f_j^γ.
//   - Bids b_ij: log-normal with median bid_median and σ bid_sigma,
//     rounded to micros, at least 0.01. Bids and CTRs are independent.
//   - True CTRs c_ij: drawn from the smoothed OBD distribution.
//   - Budgets: a budgeted_fraction of advertisers gets a daily budget
//     d_i = F_i · Σ_j f_j·b_ij·μ / A_j, the advertiser's fair share of its
//     phrases' expected clicks at C = 1 (A_j ads on phrase j, μ the mean
//     CTR) times F_i, log-uniform in [budget_factor_min, budget_factor_max].
//     An advertiser with F_i < 1 runs out even when shown only its fair
//     share; one with a large F_i only when the policy favors it. A budget
//     covers at least one click at the advertiser's highest bid.
//
// ctrScale multiplies every true CTR (capped at 1); the main experiments
// use 1.
func newWorld(cfg Config, l *QueryLog, dist *CTRDistribution, ctrScale float64) (*world, error) {
	if len(l.Phrases) == 0 {
		return nil, fmt.Errorf("adsim: the query log has no phrases")
	}
	rng := newRand(cfg.Seed, streamWorld)
	w := &world{freq: dailyFrequencies(l, cfg.QueriesPerDay), ctr: dist}
	P := len(l.Phrases)
	for j, p := range l.Phrases {
		w.phrases = append(w.phrases, p.Text)
		for range w.freq[j] {
			w.base = append(w.base, int32(j))
		}
	}
	// Cumulative phrase weights f_j^γ for inverse-CDF sampling.
	cum := make([]float64, P)
	acc := 0.0
	for j, f := range w.freq {
		acc += math.Pow(float64(f), cfg.PopularityExponent)
		cum[j] = acc
	}
	M := max(1, int(math.Round(float64(P)*cfg.AdsPerPhrase/cfg.PhrasesPerAdvertiser)))
	w.ads = make([][]adSpec, P)
	type pair struct {
		adv    int32
		phrase int32
	}
	var pairs []pair
	chosen := map[int32]bool{}
	for i := range M {
		k := min(P, 1+poisson(rng, cfg.PhrasesPerAdvertiser-1))
		clear(chosen)
		for tries := 0; len(chosen) < k; tries++ {
			var j int32
			if tries < 50*k {
				u := rng.Float64() * acc
				j = int32(min(P-1, sortSearch(cum, u)))
			} else {
				j = int32(rng.IntN(P)) // a tiny log: fill up uniformly
			}
			chosen[j] = true
		}
		js := make([]int32, 0, k)
		for j := range chosen {
			js = append(js, j)
		}
		slices.Sort(js)
		for _, j := range js {
			pairs = append(pairs, pair{adv: int32(i), phrase: j})
		}
	}
	// Ids in phrase order, so a phrase's ads are sorted by id.
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(a.phrase, b.phrase) })
	for n, p := range pairs {
		// Held in [0.01, ads.MaxMoneyUnits]: σ's far tail must not
		// overflow the sums of a day's charges.
		bid := ads.MoneyFromUnits(min(cfg.BidMedian*math.Exp(cfg.BidSigma*rng.NormFloat64()), ads.MaxMoneyUnits))
		bid = max(bid, ads.MoneyFromUnits(0.01))
		ctr := min(1, ctrScale*dist.Draw(rng))
		w.ads[p.phrase] = append(w.ads[p.phrase], adSpec{id: uint64(n + 1), adv: p.adv, bid: bid, ctr: ctr})
	}
	w.nAds = len(pairs)
	w.fair = make([]float64, M)
	maxBid := make([]ads.Money, M)
	for j, list := range w.ads {
		for _, a := range list {
			w.fair[a.adv] += float64(w.freq[j]) * a.bid.Units() * min(1, ctrScale*dist.Mean) / float64(len(list))
			maxBid[a.adv] = max(maxBid[a.adv], a.bid)
		}
	}
	w.budget = make([]ads.Money, M)
	lo, hi := math.Log(cfg.BudgetFactorMin), math.Log(cfg.BudgetFactorMax)
	for i := range M {
		budgeted := rng.Float64() < cfg.BudgetedFraction
		factor := math.Exp(lo + (hi-lo)*rng.Float64())
		if budgeted {
			w.budget[i] = max(ads.Micro, maxBid[i], ads.MoneyFromUnits(min(factor*w.fair[i], ads.MaxMoneyUnits)))
		}
	}
	return w, nil
}

// budgeted counts the advertisers with a daily budget.
func (w *world) budgeted() int {
	n := 0
	for _, b := range w.budget {
		if b > 0 {
			n++
		}
	}
	return n
}

// sortSearch returns the first index i with cum[i] > u.
func sortSearch(cum []float64, u float64) int {
	return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
}

// poisson draws from Poisson(mean), exactly, by summing pieces of mean at
// most 30 (Knuth's method on each).
func poisson(rng *rand.Rand, mean float64) int {
	n := 0
	for mean > 0 {
		m := min(mean, 30)
		mean -= m
		limit := math.Exp(-m)
		p := rng.Float64()
		for p > limit {
			n++
			p *= rng.Float64()
		}
	}
	return n
}
