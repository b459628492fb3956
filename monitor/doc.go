// Package monitor decides which watched URLs to fetch at each instant: WIC,
// the one scheduler every monitoring demand goes through (Pandey, Dhamdhere,
// Olston, "WIC: A General-Purpose Algorithm for Monitoring Web Information
// Sources").
//
// A Demand is one reason to watch a URL: a life function (how a change's
// information persists on the page), an urgency function (how its value
// falls with delay) and a weight. Demands on one URL add their utilities and
// share every fetch of it (the grouping WebCQ calls for).
//
// Implemented:
//   - §2.2 the objective: a change at T_k captured at T_j is worth
//     W·urgency(j−k)·π_k·life(k, j); Utility computes g(prev, j) (§3) by the
//     definition.
//   - §2.3 life: Unbounded-Append, Time-window-Append(W),
//     Change-window-Append(Z), Overwrite. The paper's Change-window formula
//     has (1−π)^{N−1−q}, which is not a probability; this package uses the
//     probability that fewer than Z changes happen in (k, j], with each
//     instant's own π (the corrected formula when π is constant).
//   - §2.3 urgency: Uniform, Exponential r^t, Sliding-window(W); and Linear,
//     max(0, 1−t/L), which is not in the paper: maximising it minimises total
//     delay up to a horizon, the feed aggregator's metric.
//   - §3.2 Algorithm 1 (WIC): Advance folds π_{·,j} in, Pick takes the C URLs
//     of largest positive utility. g is carried in O(1) per instant for
//     uniform/exponential urgency with append, overwrite or time-window life,
//     for sliding-window urgency with append or time-window life, and for
//     linear urgency with append life; the other pairs (change-window life,
//     overwrite under window or linear urgency) recompute the definition over
//     the π kept since the last fetch.
//   - §3.3 / Appendix A: the schedule is within 1+a of the optimum, a = max_t
//     urgency(t+1)/urgency(t) (Bound); a = 0 for Sliding-window(0), where WIC
//     is optimal. wic_test.go checks both against an exhaustive optimum on
//     random tiny instances.
//
// Package monitor/poll registers every feed's and watch's demand here and
// spends the frontier's monitoring class (frontier.split.monitor) with it.
//
// State, all in memory and owned by the Scheduler: per demand its g and the
// π since its URL's last fetch (none for the decay forms, W+1 or L values for
// the windowed and linear forms, at most maxLookback otherwise); per URL its
// last fetch instant. What an instant is (a minute, a week) is the caller's.
//
//	s, _ := monitor.NewScheduler(cfg.MaxLookback)
//	id, err := s.Add(monitor.Demand{URL: u, Life: monitor.Life{Kind: monitor.Overwrite},
//		Urgency: monitor.Urgency{Kind: monitor.Exponential, R: 0.9}, Weight: 1})
//	s.Advance(func(url string) float64 { return estimate(url) }) // π_{u,j}
//	for _, ch := range s.Pick(c, hostReady) { fetch(ch.URL) }
//	s.Fetched(u) // fetched for another reason: its demands start over
package monitor
