// Package feedseval is `deltaq eval feeds`: Sia & Cho's feed-polling
// experiments (§5, "effectiveness of retrieval policies", "comparison with
// prior work") on real posting times, trace-driven.
//
// It learns every feed's rate and weekly profile (package feeds) on the
// first eval.feeds.learn_weeks of the trace's year, as the live planner
// learns them (feeds.LearnRecent at the end of those weeks), plans each
// policy at each budget (polls per feed per day) as one weekly plan, and
// delays every posting of the rest of the year until its feed's next
// poll. Policies:
// uniform; placement-only (Thm. 3); allocation-only (Thm. 1); combined
// (both, feeds.Combined); Cho & Garcia-Molina's age- and freshness-optimal
// allocations (cgm.go), evenly spaced like their fixed-order refresh; and
// WIC (package monitor) with append life and linear urgency at each
// eval.feeds.wic_horizons, on 5-minute instants. Every policy gets the same
// polls per week, the same per-feed bounds and the same models (WIC, which
// plans poll by poll, keeps the bounds as the live poller does: a feed at
// its max interval is polled at once, one within its min interval is not
// picked). With eval.feeds.relearn a second pass re-learns each Monday from
// what each policy's own polls had retrieved by then: profiles over the
// window, bin-level refinement and prior weight that best predicted the
// weeks before (feeds.ChooseProfiling, a rolling origin), rates weighted by age
// (feeds.rate_half_lives) and shrunk towards the pooled rate
// (feeds.rate_priors), each feed's known only up to its last poll. With
// eval.feeds.hindsight every policy also plans the year on models fitted to
// the evaluation weeks themselves: look-ahead no scheduler has, so not a
// protocol but a bound, which says how much of the gap to the paper's ratio
// is the learning's and how much the stationary model's own.
//
// Every run is repeated with eval.feeds.seeds seeds, eval.feeds.workers at
// once: the k-means starts of the learning and the evenly spaced
// policies' random phases move a policy's mean delay by several percent
// (uniform at one poll a day: 11.23–12.35 h over seeds 1–5), so the
// tables and targets are means over the seeds, with each seed's range.
//
// It writes report.md (targets, the Fig. 11 analog, the one-poll-a-day
// tables, the feeds where cgm-age is furthest ahead of combined with
// their shares of the difference of the means, the learned daily
// patterns), results.csv
// (learning,policy,per_day,seed,mean_delay_s,max_delay_s,…, every run) and
// mean/max delay plots. All of it is in memory; the trace is 48,000 times.
//
//	tr, _ := feedtrace.Load(ctx, cfg.Eval.Feeds.Feeds)
//	sum, err := feedseval.Run(ctx, cfg.Eval.Feeds, cfg.Feeds, tr, progress)
//	err = sum.Write(out, cfg.Eval.Feeds)
//	for _, t := range sum.Targets() { fmt.Println(t.Name, t.Met, t.Measured) }
package feedseval
