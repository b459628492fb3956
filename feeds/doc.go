// Package feeds decides when to poll each subscribed RSS/Atom feed so that
// new postings reach the aggregator soon after they are posted, and keeps
// what polling has learned (Sia & Cho, "Efficient Monitoring Algorithm for
// Fast News Alert"; the seed copy has its digits and formulas stripped, so
// the formulas below are the reconstruction in MONITORING-DIGEST.md §2.2).
//
// Implemented:
//   - posting model (§3): a periodic inhomogeneous Poisson process, λ(t) =
//     λ̄·shape(t), the shape over one week of hourly bins (Period, Bins) as
//     the product of a daily and a weekly pattern (Model, Learn);
//   - delay (Def. 1–2, Lemma 1): ExpectedDelay, ∫ λ(t)(τ_j − t) dt per
//     posting, exact on the placement grid;
//   - resource allocation (Thm. 1): SqrtAllocation, m_i = k·√(w_i·λ_i), with
//     per-feed floors and ceilings from max and min poll intervals (Bounds,
//     Fit), rounded to the integer optimum by single-poll exchanges;
//   - both at once (Combined): Thm. 1 is optimal for evenly spaced polls,
//     but once Thm. 3 places them a feed posting in a few hours gains more
//     from a poll than its rate says. Combined starts from the square-root
//     allocation and moves single polls while Σ w_i·λ_i·E[delay of feed i's
//     placed plan] falls (the objective is separable and about convex in
//     m_i, so a single-move optimum is the optimum). On the 2025 commit
//     feeds, re-learned weekly, it cut the mean delay at one poll a day from
//     7.10 h to 6.95 h;
//   - retrieval scheduling (Thm. 2, Thm. 3): Place, the iterative refinement
//     that moves each τ_j to the best slot between its neighbours until
//     λ(τ_j)(τ_{j+1} − τ_j) = ∫_{τ_{j−1}}^{τ_j} λ(t) dt holds on the grid;
//   - learning (§5): rates from a window of posting times, daily patterns
//     clustered by k-means on 24-hour share vectors (Cluster), sparse feeds
//     shrunk towards their cluster's pattern (LearnAll). §5 names the
//     estimation window's trade-off (too short: noise; too long: the rate
//     has changed) and keeps a fixed window because its feeds' rates were
//     stable; commit feeds' are not (projects have busy and quiet spells),
//     so RecentRates weights each posting by 2^(−age/half-life)
//     (exponential forgetting, the paper's window made smooth), over the
//     exposure up to the feed's last poll only: what the aggregator sees is
//     the items each poll returns, and what a feed posted after its last
//     poll is not known yet (counting it as silence biases rarely polled
//     feeds down). Hyperparameters are chosen on the past alone, anew at
//     each re-learning (a rolling origin): the half-life among
//     feeds.rate_half_lives that best predicted all feeds' last weeks, one
//     week ahead each (ChooseRates, Poisson likelihood, pooled over the
//     feeds: chosen per feed it was noisier, 0.708 below), together with
//     how far each feed's rate is shrunk towards all feeds' pooled rate
//     (RateRule.Prior among 0 and feeds.rate_priors: a gamma prior worth
//     that much exposure, empirical Bayes; a feed that posted twice in
//     months is known less well than its count says); the profile
//     window among feeds.profile_windows and the weight of a bin-level
//     refinement among feeds.bin_weights (BinProfiles: the week's 168
//     hourly counts shrunk towards the daily × weekly product, which counts
//     as that many postings) and the weight of the cluster's and weekday
//     prior among feeds.prior_weights, whose profiles best predicted the
//     hours of the last weeks' postings (ChooseProfiling). Measured on the 2025
//     commit feeds (learned weekly, one poll a day, combined ÷ Cho &
//     Garcia-Molina's age-optimal under the same models): 8-week window
//     0.737; 26 weeks 0.711; 26 weeks and one-week half-life, with
//     Combined, 0.689, both picked on the evaluation year itself; per-feed
//     half-life choice 0.708; profiles chosen on the past with the one-week
//     half-life 0.686; profiles and half-life both chosen on the past
//     (the defaults) 0.695: both delays fell (combined 6.68 → 6.60 h,
//     age-optimal 9.70 → 9.50 h), the ratio rose; with the rate prior
//     (chosen 0–72 h of exposure) combined fell at every budget (1/day
//     6.60 → 6.54 h, 8/day 0.924 → 0.913 h) and the age-optimal rose (9.50
//     → 9.83 h: the prior gives slow feeds more of its polls), 0.666. Not
//     better, without the prior: half-lives up to a year (combined 6.61
//     h), Gaussian smoothing of the shape round the week (σ 0.5/1/2 h:
//     6.60/6.69/6.81 h), floors of 0.02/0.1/0.2 (6.62/6.64/6.82 h); with
//     it: prior_weight 5 or 20 chosen on the past weeks (6.60 h),
//     profile_holdout_weeks 8 (6.59 h), 16 starts (6.54 h). Fitting each week's
//     profile on that week (look-ahead, a diagnostic only) gives 0.435,
//     its days alone 0.584, its hours alone 0.544, its rate instead 0.613:
//     the gap left is which days and hours of the coming week a feed posts
//     in, which its past weeks do not predict (profiles re-learned from
//     the last 1–4 weeks' hours did no better, 0.689–0.704). Learned
//     once from the first 8 weeks and kept all year, these estimates give
//     0.725, where the learning window's plain counts (LearnAll) gave
//     0.793, and they halve the longest wait (166 → 96 h). The prior
//     weight chosen among 8, 20 and 60 (seeds 1–5): learned once 0.754 →
//     0.740, weekly 0.676 → 0.675; a fixed 8 gives weekly 0.652 but once
//     0.764, and the holdout's likelihood does not pick it. The candidates
//     of one window share its counts and clusters (one fit a window, not
//     one a candidate: planning 1,000 feeds 2.6× faster), so they differ
//     in their weights alone: learned once 0.749, weekly 0.672 (each seed
//     0.741–0.763 and 0.666–0.677), within the seeds' spread of before.
//     With hindsight (the year's own rate and profile, kept all year)
//     combined reaches 0.58: most of the gap from learned once is what the
//     first weeks do not say about the rest of the year. Re-planning every
//     day from these estimates was worse (0.73–0.75): at a poll a day the
//     aggregator learns too little within a day to act on it. Of the
//     hindsight gap, the profiles are the larger part (learned once, the
//     year's own profiles with learned rates give 0.631, the year's rates
//     with learned profiles 0.693). Summer time is not what they miss:
//     44 of the 77 feeds' committers move their clocks, but profiles
//     counted in each feed's own standard time and turned to UTC for the
//     week planned gave weekly 0.670 with each feed's rule (EU or US)
//     read from its commits' UTC offsets, which a feed need not carry,
//     and 0.677 with the rule chosen from its posting hours (a
//     likelihood-ratio test; over the whole year it took the EU's for 5
//     of 22 US-rule feeds, the US's for 6 of 22 EU-rule ones and a rule
//     for 7 of 33 feeds without summer time), against 0.672. Choosing
//     the profiles by the delay their plans (square-root allocation, then
//     Place) would have given the holdout weeks' postings, where
//     ChooseProfiling takes their likelihood, gave weekly 0.684 and once
//     0.750: four weeks' delays choose more noisily than their
//     likelihood. Clusters kept as the best of ten k-means++ starts
//     (least within-cluster squares) gave 0.671 and 0.746 (each seed
//     0.665–0.679 and 0.728–0.778), within the seeds' spread. Averaging
//     the candidates' shapes instead of choosing one (a forecast
//     combination, against the choice's noise) gave weekly 0.676 and
//     once 0.741 over all 48, 0.683 and 0.744 over the holdout's best 4,
//     0.680 and 0.746 over its best 12: once a little better, weekly
//     worse, neither beyond the seeds' spread. Half-lives of 24 h and
//     48 h among the rate candidates were never chosen (the figures did
//     not move); rate_holdout_weeks 4 and 12 gave weekly 0.688 and
//     0.676. Place from 64 starting phases instead of feeds.starts' 8
//     gave weekly 0.672 and once 0.751: the refinement's local optima are
//     not what is missing. Shapes learned from posting sessions (a
//     posting less than 30 min or 2 h after the feed's previous one not
//     counted: a push of many commits is one choice of when to work) gave
//     weekly 0.675 and 0.685, once 0.752 and 0.762: the delay counts
//     every posting of a burst, and so must the shape. Each week's plan
//     refined from the week before's wherever that kept its expected delay
//     within 0 or 2 % of the fresh plan's (Combined places every week
//     anew, from random starts) gave weekly 0.673 and 0.674: where the
//     weeks meet is not what is missing. Commits come in bursts (in the hour
//     after a posting a feed posts 1.9× what its profile fitted with hindsight
//     expects), yet a follow-up poll h after every poll that found a posting
//     at most τ old is worth less than a planned poll: on top of the weekly
//     plan (seed 1, 6.77 h) follow-ups at τ 30 min, h 1 h gave 6.55 h for 6 %
//     more polls, at τ 1 h, h 2 h 6.35 h for 12 % more and at τ 2 h, h 2 h
//     6.15 h for 24 % more, where as many more planned polls gave 6.34, 6.05
//     and 5.60 h; with the follow-ups' polls taken from the plan (0.95 a day,
//     6 % follow-ups) the mean rose to 6.86 h. Neither a flatter nor a sharper
//     shape plans better (seeds 1–3, weekly: 0.674, 0.668, 0.679): each feed's
//     shape mixed with uniform by the weight among 0–0.75 whose shapes best
//     predicted its own past weeks' hours (out of sample, week by week) gave
//     0.678, 0.671, 0.680, the one weight best for all feeds 0.677, 0.669,
//     0.680, and the shape raised to the power 1.25 (and renormalized) 0.693,
//     0.686, 0.683. Where the gap is (seed 1, weekly; combined 6.69 h,
//     with hindsight 5.61 h): one feed holds 26 % of it. BurntSushi/ripgrep
//     posted 10 times from January to August and was down to the floor
//     of one poll a week (feeds.max_interval) when it posted 65 times on
//     Saturday 20 September; its polls fell on the Fridays either side,
//     so its 77 postings of 15–28 September waited 150 h on average, and
//     12 h under the age-optimal policy, which polls slow feeds more
//     (seeds 1–3: 150–152 h against 9–25 h), and that one fortnight
//     costs combined 0.29 h of its mean (0.03 of the ratio). A floor of a
//     poll every 120 h or 72 h gives weekly 0.658 and 0.662 (seeds 1–5),
//     but the whole gain is that event: over the evaluation weeks before
//     7 July the 120 h floor changes nothing (0.6714 both) and 72 h is
//     worse (0.6755); after it, 0.679 falls to 0.656 and 0.652 (seeds 1–3).
//     A default chosen on the one burst the year happened to hold would
//     be chosen on the evaluation itself, so it stays 168 h, the digest's.
//     The same event is why a fixed prior weight of 8 looked better (seeds
//     1–20, weekly: 0.659, where 12 gives 0.675 and the chosen weight
//     0.675; learned once 0.762 against 0.753 and 0.754): on seed 2 it
//     moves ripgrep's one poll of that week from Friday to Saturday 20:00,
//     after the burst (18 h instead of 152 h on average), which alone is
//     0.26 h of the 0.27 h by which the mean falls; on seed 1 the poll
//     stays on Friday and the means differ by 0.008 h. Which side of that
//     Saturday one poll falls on moves the ratio by about 0.026, as much as
//     the 20 seeds' whole spread (0.661–0.686).
//     Posting times are taken from the feed when plausible
//     (never in the future, not back-dated past the previous poll), else the
//     first-seen time (PostingTime);
//   - the live plan (PlanAll): what `deltaq eval feeds` measured best,
//     "combined" re-learned, with the same calls as the evaluation's weekly
//     re-learning: models by LearnRecent (ChooseProfiling's profiles,
//     RecentRates' drifting rates, each feed's postings known up to its last poll), then
//     Combined over feeds.polls_per_day per feed on average (WeeklyPolls),
//     each feed weighted and bounded by its own settings. Package
//     monitor/poll polls each feed at its planned times (Planned.Next, and
//     Planned.Last when no fetch came after it), and `deltaq feeds explain`
//     shows the same plan (the same seed);
//   - parsing RSS 1.0/2.0 and Atom with gofeed (Parse): items keyed by GUID,
//     else link, else content hash; bounded by feeds.max_bytes and
//     feeds.max_items; HTML and non-feeds are ErrNotAFeed.
//
// State: Store keeps each feed in the repository bucket "feeds" (repo/FORMAT.md):
// "f/<id>" the Feed's record (settings, validators for conditional GET,
// counts, 64 recent delays), "l/<id>" its lists (the newest
// feeds.seen_kept item keys, feeds.history_kept posting times), apart so
// that listing the feeds (Subscriptions: the API, the CLI, /metrics, the
// poller's refresh) does not read them (1,000 feeds with full lists:
// 13 ms, 0.83 s with them; BenchmarkList), "i/<id>/<first seen>/<hash>"
// the newest feeds.seen_kept items, "p/<id>" the plan a poller made and
// follows (SavePlans, SavedPlan: what `deltaq feeds explain` shows), and
// "r/<first seen, complemented>/<id>/<hash>" the river's index of every
// feed's items, newest first, so that River reads the items it returns
// and not every item stored (1,000 feeds of 500 items: 0.73 ms, where
// scanning them all took 1.94 s; BenchmarkRiver). A repository written
// before the lists were apart or the river indexed is brought up to date
// when the store opens.
// A poll's result is one batch: after kill -9 a feed is as before or after
// a poll. A body that does not parse changes nothing but the feed's last
// error.
//
//	plans, _ := feeds.PlanAll(cfg, list, now, seed) // all of the below at once: plans[i].Next
//	models := feeds.LearnRecent(cfg, postings, since, lastPolls, now, rng)
//	m, _ := feeds.SqrtAllocation(pollsPerWeek, weights, rates, bounds)
//	grid, _ := feeds.NewGrid(cfg.Step)
//	m, slots, _ := feeds.Combined(pollsPerWeek, weights, models, grid, bounds, cfg.Starts) // or both at once
//	slots := feeds.Place(models[i], grid, m[i], cfg.Starts) // poll at slot·step after Monday 00:00 UTC
//	up, err := store.Record(ctx, id, feeds.Fetch{At: now, Status: 200, ETag: etag, Body: body})
package feeds
