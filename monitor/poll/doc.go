// Package poll spends the frontier's monitoring class: it turns every
// subscribed feed and installed watch into WIC demands (package monitor),
// picks the polls of each instant by summed utility, and hands each fetch
// the crawler makes of a monitored URL to its feeds and watches. Polls go
// through the frontier and the crawler like any fetch, so the budget,
// robots.txt and per-host politeness apply to every one of them; several
// demands on one URL (a feed and two watches, say) add their utilities and
// share one fetch.
//
// Demands (demands.go), in instants of monitor.instant:
//   - a feed (Sia & Cho): append life, linear urgency over its max interval
//     (WIC with it minimises the postings' delay up to that horizon), weight
//     its --weight, and π its learned posting rate λ(t) over the instant,
//     at least one posting per max interval (the allocation's floor);
//   - a watch group member (WebCQ): the user's wished interval is a
//     sliding-window urgency of W instants, not a timer; weight 1/(W+1),
//     so at π = 1 (a page watched only) a member is worth min(1, elapsed /
//     wish) and a shorter wish gets there sooner.
//
// A poll must be worth monitor.min_utility; the frontier spreads
// frontier.split.monitor over the period's instants and gives what an
// instant's picks leave to new URLs (frontier/monitor.go).
//
// State: in memory, WIC's per-demand state: the π over its window, 8 bytes
// per instant of a feed's max interval or a watch's wish (capped at
// monitor.max_lookback: 80 KB for a feed at the defaults, a week of
// 1-minute instants), the demands and, until Ingest, the set of monitored URLs fetched
// (at most one entry each). Nothing of its own in Pebble: the demands are
// read from the feed and watch stores, and a restart rebuilds every URL's
// utility by replaying the instants since its last fetch (the page record,
// the feed's last poll, the group's last check), at most
// monitor.max_lookback of them, and the first Ingest reads every monitored
// page the crawler has fetched, so a poll committed but not yet read when
// the process died (kill -9) still reaches its feeds and watches. The
// queued polls and the period's usage per class are the frontier's and
// persist with it.
//
//	p, err := poll.New(ctx, db, cfg.Monitor, poll.Options{Feeds: st, FeedsConfig: cfg.Feeds, Watches: e})
//	f, err := frontier.New(ctx, db, cfg.Frontier, gate, policy, frontier.Options{Monitor: p, MonitorInstant: cfg.Monitor.Instant})
//	go f.RunMonitor(ctx) // PlanMonitor each instant: p.Pick under the class's share
//	go p.Run(ctx)        // Ingest what the crawler fetched, Refresh the demands
package poll
