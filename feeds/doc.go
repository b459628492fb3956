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
//   - re-plans (Continue): Thm. 3 places a periodic plan, one whose week
//     before ended with its own last poll. After a re-plan the week before
//     ended with the old plan's, so the first interval comes out longer or
//     shorter than placed. Continue refines the week's polls from the
//     feed's real last poll by the same rule, the postings after the
//     week's last poll waiting for the next week's first, and the first
//     poll within the feed's max interval of the last (re-plans broke that
//     bound: a feed polled once a week could wait almost two). On the 2025
//     commit feeds, re-learned weekly, it cut the mean delay at one poll
//     a day from 6.599 h to 6.559 h, half of it through the bound and one
//     feed's burst (RESULTS.md, "Feed polling");
//   - learning (§5): rates from a window of posting times, daily patterns
//     clustered by k-means on 24-hour share vectors (Cluster), sparse feeds
//     shrunk towards their cluster's pattern (LearnAll). §5 keeps a fixed
//     window because its feeds' rates were stable; commit feeds' are not
//     (projects have busy and quiet spells), so RecentRates weights each
//     posting by 2^(−age/half-life) (exponential forgetting, the paper's
//     window made smooth), over the exposure up to the feed's last poll
//     only: what a feed posted after its last poll is not known yet, and
//     counting it as silence biases rarely polled feeds down. Each rate is
//     shrunk towards all feeds' pooled rate by a gamma prior worth
//     RateRule.Prior of exposure (empirical Bayes: a feed that posted twice
//     in months is known less well than its count says). Hyperparameters
//     are chosen on the past alone, anew at each re-learning (a rolling
//     origin): the half-life among feeds.rate_half_lives and the prior
//     among 0 and feeds.rate_priors that best predicted all feeds' last
//     weeks, one week ahead each (ChooseRates: Poisson likelihood pooled
//     over the feeds, as chosen per feed it was noisier); the profile
//     window among feeds.profile_windows, the weight of a bin-level
//     refinement among feeds.bin_weights (BinProfiles: the week's 168
//     hourly counts shrunk towards the daily × weekly product, which counts
//     as that many postings) and the weight of the cluster's and weekday
//     prior among feeds.prior_weights, whose profiles best predicted the
//     hours of the last weeks' postings (ChooseProfiling). The candidates of
//     one window share its counts and clusters and differ in their weights
//     alone (one fit a window, not one a candidate: planning 1,000 feeds
//     2.6× faster). On the 2025 commit feeds at one poll a day, combined ÷
//     Cho & Garcia-Molina's age-optimal is 0.676 re-learned weekly and
//     0.749 learned once from the first 8 weeks; with hindsight, the
//     year's own rates and profiles, 0.58. The gap is which days and hours
//     of the coming week a feed posts in, which its past weeks do not
//     predict. RESULTS.md ("Feed polling") lists the alternatives measured,
//     from estimation windows to follow-up polls after bursts, and what
//     each gave. Posting times are taken from the feed when plausible
//     (never in the future, not back-dated past the previous poll), else the
//     first-seen time (PostingTime);
//   - the live plan (PlanAll): what `deltaq eval feeds` measured best,
//     "combined" re-learned, with the same calls as the evaluation's weekly
//     re-learning: models by LearnRecent (ChooseProfiling's profiles,
//     RecentRates' drifting rates, each feed's postings known up to its last poll), then
//     Combined over feeds.polls_per_day per feed on average (WeeklyPolls),
//     each feed weighted and bounded by its own settings, and each polled
//     feed's week from now continued from its last poll (Continue). Package
//     monitor/poll polls each feed at its planned times (Planned.Next, and
//     for a feed never polled Planned.Last when no fetch came after it),
//     and `deltaq feeds explain` shows the same plan (the same seed);
//   - parsing RSS 1.0/2.0 and Atom with gofeed (Parse, ParseAt): UTF-16
//     decoded first, an encoding no decoder knows is ErrEncoding naming it;
//     items keyed by GUID, else link, else content hash; links resolved
//     against xml:base or the feed's URL, http and https alone kept;
//     bounded by feeds.max_bytes and feeds.max_items, and each item's
//     title, link and key by MaxTitleBytes, MaxLinkBytes and MaxKeyBytes;
//     what a read cut is the feed's LastCuts; HTML and non-feeds are
//     ErrNotAFeed.
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
// scanning them all took 1.94 s; BenchmarkRiver), and "x/<id>" the
// crawler's last fetch of a removed feed's URL, so that subscribing to it
// again starts from zero, not from the copy the removed feed had read
// (Remove), and "u/<IDOf(url)>" the id of a feed a permanent redirect
// moved to url (a feed keeps the id of the URL it was subscribed at), so
// that adding or naming the new URL finds it (Add, Lookup). A repository written
// before the lists were apart or the river indexed is brought up to date
// when the store opens.
// A poll's result is one batch: after kill -9 a feed is as before or after
// a poll. A body that does not parse changes nothing but the feed's last
// error.
//
// Redirects (Absorb): the crawler does not follow them within a fetch; it
// records the redirect and queues the target as a URL of its own. A
// permanent one (301, 308) moves the subscription, in one batch, to the
// target: the feed keeps its id, weight, intervals, seen keys, posting
// history and items; its URL becomes the target, MovedFrom the URL it
// had, the poll's Update.Moves says so, and the next poll fetches the
// target (this one reads it already if the crawler fetched it after the
// redirect). It is not followed, the feed staying where it is with a
// RedirectError as its last error, when the target is not an http or
// https URL, has credentials, is another subscription's URL (named), comes
// back to a URL of the chain followed since the feed's last fetch that
// was not a redirect (a loop: A → B → A moves once, to B), or makes the
// chain longer than crawler.limits.max_redirects (LimitRedirects). A
// temporary one (302, 303, 307) keeps the URL and reads the target's copy
// if the crawler fetched it since the feed's last poll; else the poll
// fails, saying so, Update.Awaits names the target (the poller asks for
// it, `deltaq feeds poll` fetches it with the feeds), and Absorb reads it
// once the crawler has. The wait is part of the feed's state
// (Feed.Awaits), so a restarted poller asks for the target again; a
// target that brought no copy, or that robots.txt keeps the crawler
// from, fails the poll and ends it.
//
//	plans, _ := feeds.PlanAll(cfg, list, now, seed) // all of the below at once: plans[i].Next
//	models := feeds.LearnRecent(cfg, postings, since, lastPolls, now, rng)
//	m, _ := feeds.SqrtAllocation(pollsPerWeek, weights, rates, bounds)
//	grid, _ := feeds.NewGrid(cfg.Step)
//	m, slots, _ := feeds.Combined(pollsPerWeek, weights, models, grid, bounds, cfg.Starts) // or both at once
//	slots := feeds.Place(models[i], grid, m[i], cfg.Starts) // poll at slot·step after Monday 00:00 UTC
//	week := feeds.Continue(models[i], grid, slots, nowSlot, lastPollSlot) // from the feed's last poll
//	up, err := store.Record(ctx, id, feeds.Fetch{At: now, Status: 200, ETag: etag, Body: body})
package feeds
