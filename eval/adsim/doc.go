// Package adsim replays the thesis's ad-selection experiment (§6.7) and
// its extensions (§6.8): it decides nothing at serving time; it measures
// how much revenue each policy of package ads earns in a simulated market
// built from real data (`deltaq eval ads --log FILE --out DIR`).
//
// What is real and what is synthetic (report.md states it again):
//
//   - Query phrases and their frequencies come from a query log
//     (shared/data README §4) read by internal/querylog, normalized with
//     ads.NormalizePhrase. The default is querylogs/tldr-brew-installs.tsv:
//     1,900 phrases with 365-day counts, heavy-tailed like the Yahoo!
//     sample of §6.7.1, scaled to eval.ads.queries_per_day (default ≈ the
//     log's own daily rate, 97.2 M / 365). excite-1997-small.tsv is too
//     small (3,968 non-empty queries, 2,105 phrases) and trec-mq.tsv is
//     flat (59,674 distinct of 60,000: a phrase recurs about once, so no
//     per-phrase bandit can learn); both are accepted.
//   - True CTRs c_ij come from ads/obd-item-ctr.tsv (README §5), each item
//     smoothed with a Beta prior of the pooled mean 0.0046 and strength
//     eval.ads.ctr_prior_strength, and drawn from a random item's posterior
//     (CTRDistribution).
//   - Advertisers, which phrases they target, bids and budgets are
//     synthetic (newWorld): about 60 % of advertisers budgeted, as in the
//     thesis's data.
//
// The experiments: fig. 6.3 revenue per day over 10 days at C = 1 with
// estimates carried from day to day; fig. 6.4 total revenue against C and
// how many ads GREEDY needs to match BMIX-E; fig. 6.5 Beta priors of
// amount p and accuracy v (§6.8.1); fig. 6.6 ads with Poisson lifetimes,
// replaced when revoked (§6.8.3), 100 days, steady state; plus what n_j
// counts, GREEDY's tie rule, and a traffic × CTR sensitivity grid. Each
// point is averaged over eval.ads.repetitions random query orders.
//
// Every policy decision is ads.Select with the server's policies, and
// every charge is ads.Charge. Randomness comes from seeded PCG streams
// per purpose (world, query order per repetition and day, one click
// stream per ad, priors, lifetimes), so policies face the same queries
// and clicks, and the same Config gives the same report.md and
// results.csv byte for byte. Memory: the world (phrases, ads) and, per
// running simulation, one Candidate per ad and one day's query order.
//
//	cfg := adsim.Config{Log: log, CTRFile: ctr, Seed: 1, Days: 10, ...}
//	sum, err := adsim.Run(ctx, cfg, "/tmp/adsim-out", os.Stderr)
//	for _, t := range sum.Totals {
//		fmt.Println(t.Policy, t.Total.Mean, t.VsGreedy)
//	}
package adsim
