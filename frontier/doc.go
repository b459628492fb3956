// Package frontier decides what the crawler fetches next and when.
//
// It owns the persistent queue (repository prefix 'q'): per-host queues in
// four classes (first fetches of new URLs, synchronization re-fetches,
// discovery re-fetches, monitoring polls), each ordered by due time. In
// memory it keeps only per-host heads (frontier.host_buffer entries per
// class, plus the entries in flight) and a heap of hosts ordered by when
// their next request may start; everything else stays in Pebble, so memory does not grow with queue
// length (BenchmarkMemoryPerQueuedURL: 246 B per queued URL with two URLs
// per host, under 11 B with a thousand hosts).
//
// Politeness comes from the crawler through Gate (requests in flight per
// host, least interval between starts); the frontier never hands out a job
// that would break it. A job holds its host's slot until the crawler says
// its request ended (Release), not until its result commits (Done). A budget of frontier.budget.fetches per
// frontier.budget.period bounds all fetches; shares of it
// (frontier.split.recrawl, frontier.split.discovery) are reserved for the
// re-fetches planned at each period's start, and what a plan leaves unused
// goes to new URLs. The monitoring share (frontier.split.monitor) is spread
// over the period's instants: at each, a Monitor (monitor.go; WIC in
// package monitor/poll) picks that instant's polls, the share of the later
// instants stays held from new URLs (no more than the URLs watched could
// take), and what the instant's picks leave is free for them at once. Every fetch, whatever its class, is reported to
// the Monitor when done. The usage of the current period is persisted with
// each completed fetch, so a restart does not grant a fresh budget. A node
// of a cluster spends a share of the cluster's budget instead:
// Options.Quota gives each period's fetches per class (Quota), asked once
// per period, and Demand tells the cluster what each class would spend
// (package cluster divides the budget by it); without Options.Quota each
// period gets QuotaOf(cfg), the configured split.
//
// Re-fetches are chosen by a Policy (thesis ch. 4): Uniform (round-robin),
// and the ΔQ, staleness, embarrassment and LambdaCrawl policies in their own
// files. New URLs leave each host's queue in the order they were found, so
// a crawl proceeds breadth-first.
//
// ExplainPage (explain.go) gives one page's thesis estimate (§4.7.1):
// δQ_A, how many re-downloads it averages and the priority now, under the
// policy New recorded in the repository (metadata frontier.policy); under
// deltaq also the posteriors the policy ranks it by (DeltaQ.Explain: the
// expected changes since LR, the expected impact of one, the stake),
// fitted over every candidate as a plan is.
//
// # ΔQ without hindsight
//
// The deltaq policy (thesis §4.5) re-fetches the pages of largest
// E[ΔQ(p, t)]. The thesis estimates it as δQ_A(p)·(t − LR(p, t)), δQ_A(p)
// the mean of ΔQ_A/(t − LR) over the page's past re-downloads (§4.7.1),
// fitted on the whole archive (§4.7.2). Learned online, from a crawler's
// own re-downloads, that estimate fails: one re-download that found no
// change sets δQ_A(p) = 0, and a page at 0 is never re-fetched, so its
// estimate never moves (§7.2). (The fixed exploration share that was to
// break the cycle went to the pages fetched longest ago, which were the
// never re-fetched pages priority would have picked next anyway: raising
// it changed nothing.)
//
// Here a re-download at t is worth ΔQ_A(p, t) = 0 if p did not change
// since LR(p, t). With N the changes since LR and m the impact of one
// change on what users see,
//
//	E[ΔQ_A(p, t)] = E[N]·m                (frontier.changes = accumulate)
//	E[ΔQ_A(p, t)] = P(N ≥ 1)·m            (frontier.changes = overwrite)
//
// the first when each change moves the stale copy further from the live
// one (the thesis's δQ_A·(t − LR), with δQ_A = λ·m), the second when only
// the last change counts. N comes from a Poisson change process whose
// rate λ_p has a posterior (changemodel.go): E[N] = E[λ_p]·(t − LR),
// P(N ≥ 1) = 1 − E[e^(−λ_p·(t−LR))]. The impact's prior grows with the
// page's stake in the workload, which the index knows without a
// re-download (the inspection weight its current ranks hold; Importance,
// which `deltaq serve` reads from index.Stakes and an evaluation from its
// own rankings; `deltaq crawl` alone, without the index, weighs every page
// 1), and is learned from the ΔQ_A measured on past changes of all pages
// (impact.go). Both posteriors pool evidence across alike pages, so a page
// seen once is judged by its neighbours and not by its single
// observation. Under overwrite, pages that change every period all gain
// m: ranked by that gain alone, the same N won every period, and with
// hindsight on digitalgov-2023 overwrite reached mean Q 0.9962 at B = 400
// against 0.9988 for accumulate, which is the default; online
// (eval.sync.history own) accumulate was ahead at 8 of 10 archive ×
// budget pairs, by up to 0.0009 (digitalgov-2023, B = 100), and behind by
// at most 0.00004. (These figures predate the ranking by the gain times
// the wait, below, and the online ones, like the other online figures of
// this documentation, were measured while eval sync let the deltaq policy
// read the replay's sitemap <lastmod> dates, each page's true change
// week, which no baseline read. RESULTS.md has deltaq's figures without
// them.)
//
// A plan ranks the pages by E[ΔQ_A(p, t)]·(t − LR(p, t)), λ·m·a² at age a:
// twice the loss λ·m·a²/2 the stale copy has accrued under accumulate. A
// plan that takes the pages above a threshold of it re-fetches each at
// intervals T ∝ 1/√(λ·m), the spacing that makes the summed loss
// Σ λ·m·T/2 least for the budget Σ 1/T. Ranked by E[ΔQ_A] alone, the
// thesis's P(p, t), a page came back at intervals ∝ 1/(λ·m): the pages
// with the largest stakes were re-fetched before they had changed.
//
// Exploration is Thompson sampling (Thompson 1933; for ranking B items per
// round, as here, the batch form of Russo et al.'s tutorial, 2018): each
// period every page is scored with a draw of its change rate instead of
// its mean. A page whose rate posterior is narrow and low is rarely drawn
// high; one seen little often is. Every page keeps a positive chance of a
// re-fetch, and frontier.max_interval bounds the wait outright. Only the
// rate is drawn, since it is what a re-fetch teaches; the impact is taken
// at its posterior mean. Its prior comes from the stake, known of every
// page without a fetch, and its posterior has an infinite variance (1/m
// is Gamma with shape 2), so its draws in the far tail decided the picks
// alone.
//
// frontier.exploration untried, the default, draws only for the pages no
// re-fetch has tested yet, whose rate is the pooled prior of their host,
// stake class and directory, and ranks the rest by their posterior means. A page
// with an interval of its own to learn from is then not passed over for
// a week by an unlucky draw; the pages never re-fetched still come up,
// and it is they that find the pages changing every week. Over ten seeds
// it is level with drawing for every page on tldr-en (within 1 standard
// error at every budget) and ahead on digitalgov-2023 at B = 200 by
// 0.0005 (3.2 standard errors); with the impact floor of 0.03
// (impact.go) the same over five seeds, against Thompson sampling with
// that floor (RESULTS.md).
//
// A deltaq plan streams the candidates three times (sitemaps and stakes,
// pooled evidence, scores) and holds only the distinct evidence patterns,
// one prior per host, stake class and directory, and the period's picks
// (BenchmarkPlanDeltaQ -short: 28–31 µs and 98–685 B of heap per page at
// 10k and 100k pages on a machine running two evaluations, against
// 1.9–2.3 µs for the uniform plan in the same run, 12 to 17 times less;
// the uniform plan reads each page record once, and the difference is
// the fetch-log and ΔQ_A reads, twice per page).
//
// # One budget for discovery and synchronization
//
// The thesis gives discovery (ch. 3: re-fetch old pages whose links reveal
// new ones, OD-WIN) and synchronization (ch. 4: re-fetch pages by ΔQ)
// separate budgets, and §7.2 leaves their joint optimization, "under one
// objective", open. With frontier.split.adaptive (split.go) the pool
// split.recrawl + split.discovery is split anew at each period's start,
// toward the side whose fetches gained more search quality per fetch.
//
// One unit on both sides: the change in Σ_q f_q Σ_p I(rank)·S(p, q), the
// numerator of repository quality (eq. 4.5), as the index estimates it
// from its histograms (§4.6.1).
//
//   - A re-fetch gains the ΔQ_A the index measured when it re-indexed the
//     new copy (0 when the page had not changed; negative measurements, an
//     artefact of the histograms, count 0 as in impact.go).
//   - The discovery side pays for its re-fetches of old pages, which gain
//     their own ΔQ_A, and for the first fetches of the new pages found
//     (what the share leaves goes to them: budget.go). A new page gains
//     what its first indexing added: the same estimate with no old copy,
//     its inspected score less what the pages it passes lose
//     (index.Stakes.Arrival, through Options.Arrival).
//
// The split follows the equi-marginal principle: the summed gain of the
// pool is largest where one fetch more on either side would gain the
// same, when returns fall with a side's share (each side spends its best
// fetches first: the policy's and OD-WIN's picks in their order of
// priority, new pages in the order found). So each side is judged by its
// marginal gain, estimated as the gain per fetch of its last fetches in
// plan order, the later half (marginalTail), pooled over the last
// split.window periods. The mean over all its fetches would not do: it
// overstates the marginal gain, and the more so the more a side's plan
// is ranked: a ΔQ policy puts the pages it expects to gain most first,
// so its mean stands above its last fetches' gain, and the rule judged
// by means shrank discovery's share where a larger fixed share did
// better (tldr-en, B = 400: a mean d = 0.11, behind the fixed d = 0.25
// by 4.8 s.e.).
//
// A side can be saturated: its share is larger than it can spend
// (OD-WIN picks at most discovery.per_site pages, and the new URLs found
// may be fewer than what is left, which is not handed to re-crawl,
// budget.go). One fetch more for it would go unused, but the fetches it
// did make are worth what they gained: so a side that left part of its
// latest share unspent is held to the most it spent in a period of the
// window, the largest recent need (a week that finds more new pages than
// the last still has room), and below that cap is judged by its gains
// like any other. (Counting the whole side as gaining 0, as the first
// form of this rule did, pushed the share below what discovery used,
// week after week.) The discovery share s then moves by
//
//	Δs = split.step · (g_d − g_r)/(g_d + g_r)
//
// a bounded step toward the larger marginal gain, large when one side
// gains far more, none when they gain alike, and is then held to a
// saturated side's cap. Both sides keep split.floor of the budget, at
// least one fetch each: a side given nothing would never be measured
// again, the trap §7.2 names for pages never re-fetched. The share is a
// function of what was fetched and measured, so a replay reproduces it
// (with crawler.RunOptions.Rounds, which fixes what a period fetches).
// The first share is the configured one; eval sync starts at half the
// budget, where nothing favours either side, and a saturated side is
// cut to its use after the first week.
//
// Measured (`deltaq eval sync --pages all --history own`, deltaq on
// frontier.seed 1 alone, 47 weeks, paired week by week with the best of
// the fixed splits d = 0, 0.1, 0.25, 0.5; a seed's own spread, which can
// exceed the weeks', was not measured then): on tldr-en at B = 25, 50,
// 100, 200, 400 the rule is +8.5, +9.0, −6.2, −2.0 and −0.9 s.e. from
// it, on digitalgov-2023 at B = 25, 100, 400 +5.1, −2.9 and −0.2 s.e.
// (the mean-based rule it replaces: +1.1, +3.1, −9.2, −4.3, −4.8 and
// −5.5, −13.1, −1.8). It beats the best
// fixed split at 3 of 8 pairs, is within 2 s.e. of it at 2, and behind it
// by 2 s.e. or more at 3 (tldr-en B = 100 and 200, digitalgov B = 100);
// no fixed split is best at every pair. Where it loses most, it gave
// discovery more than the best fixed split did for weeks at a time
// (tldr-en B = 100: up to d = 0.83 while a backlog of new pages lasted,
// leaving re-crawl 17 fetches a week, whose staleness cost Q for about
// 15 weeks after), so a new page's arrival
// measure and a re-fetch's ΔQ_A, though in one unit, do not yet weigh
// alike what each does to Q over the following weeks.
//
// Limits. The later half of a period's fetches is a coarse estimate of
// the marginal gain: it understates the gain of the next fetch, a bias
// on both sides that the comparison partly cancels, and it rests on
// half as many fetches, most of which gained nothing. A burst of new
// pages larger than the window has seen is fetched over the next
// periods as the share grows by steps.
// First fetches of new URLs are charged to discovery whatever found them,
// which is exact when, as in eval sync, the pool is the whole budget and
// new URLs live on what discovery's share leaves; with a separate free
// share for new URLs, discovery is credited with those first fetches too,
// in value and in cost. In a live crawl a fetch the index has not yet
// applied by the next plan counts as gaining nothing. `deltaq eval sync`
// (eval.sync.splits) wires Options.Arrival; a frontier without it refuses
// the adaptive split.
//
// Time comes from a clock.Clock, so the same code runs in wall time (the
// crawler, RunPlanner) and in replayed evaluation weeks (the harness moves a
// clock.Manual and calls Plan).
//
//	f, err := frontier.New(ctx, db, cfg.Frontier, gate, frontier.Uniform{}, frontier.Options{})
//	job, err := f.Next(ctx, false)   // waits for politeness and budget
//	// ... fetch job.URL, then in the result's batch:
//	err = f.Complete(batch, job, true) // dequeue + count, atomically with the result
//	batch.Commit(); f.Done(job, frontier.DoneInfo{})
//
// A job robots.txt disallows makes no request: Complete(batch, job, false)
// and DoneInfo{Unfetched: true} give its fetch back to the budget.
package frontier
