// Package poll spends the frontier's monitoring class: it polls every
// subscribed feed at its planned times and every installed watch by WIC
// (package monitor), and hands each fetch the crawler makes of a monitored
// URL to its feeds and watches. Polls go through the frontier and the
// crawler like any fetch, so the budget, robots.txt and per-host politeness
// apply to every one of them; several feeds and watches on one URL share
// one fetch. The poller tells the frontier which URLs are feeds' (Feed, a
// frontier.FeedMonitor), and the crawler fetches those as a feed reader
// does: a feed served as text/plain or application/octet-stream, or with
// any type if its body looks like XML, is read, and package feeds says
// whether it is a feed.
//
// Feeds (plan.go) follow feeds.PlanAll, the schedule `deltaq eval feeds`
// measured best (Sia & Cho's allocation and placement at once, rates
// following drift): feeds.polls_per_day per feed on average, within each
// feed's bounds. A feed URL is due at each planned time (Planned.Next,
// continued from the feed's last poll, so a restart or re-plan after a
// long gap polls it early; and for a feed never polled Planned.Last, the
// planned poll before the plan was made, if no fetch came after it). Each
// instant, due feed URLs are picked first within the monitoring share, the
// longest overdue first: the plan has already weighed the feeds (w·λ·delay
// in Combined), so the poll owed longest is the one it wanted earliest,
// and a slow feed's rare poll cannot be outranked by a fast feed's next
// ones, as weight × pending postings would. Any fetch of the URL serves
// every planned poll owed by then. The plan is made at New, again at a
// Refresh that finds the feed set changed (subscriptions, weights, bounds)
// and at least every monitor.replan, and stored (feeds.Store.SavePlans):
// `deltaq feeds explain` shows the stored plan while it is current, else
// plans as a poller starting then would (the same seed).
//
// Watches (demands.go, WebCQ), in instants of monitor.instant: the user's
// wished interval is a sliding-window urgency of W instants, not a timer;
// weight 1/(W+1), so at π = 1 a member is worth min(1, elapsed / wish) and
// a shorter wish gets there sooner. Watches take what the due feeds leave
// of the instant's picks, by summed utility, each worth at least
// monitor.min_utility; the frontier spreads frontier.split.monitor over the
// period's instants and gives what an instant's picks leave to new URLs
// (frontier/monitor.go). A watched URL's fetch that brought no copy (an
// error status, no answer, robots.txt) is a failed check of its watches
// (watch.Engine.FetchFailed), kept in their histories as the failures of
// deltaq serve's own fetches are. A watched URL whose fetch answered a
// redirect is checked on the copy of the page its redirects lead to
// (watchredirect.go), each page of the chain fetched at or after the
// redirect was seen; a target not fetched since is awaited as a feed's
// temporary redirect target is (Pick asks the crawler for it, Ingest checks
// once it is fetched), and a loop, a chain past
// crawler.limits.max_redirects (LimitRedirects) or a target that is not
// http or https is a failed check saying which.
//
// State: in memory, the plan (each feed's model and one week of planned
// times, feeds.polls_per_day·7 a feed on average), WIC's per-watch state
// (the π over its window, 8 bytes per instant of a watch's wish, capped at
// monitor.max_lookback), the demands, until Ingest, the set of monitored
// URLs fetched (at most one entry each), and the redirect targets feeds
// and watched pages wait for (one entry per target and reader) with, per
// waiting watched URL, when its redirect was first seen. In Pebble the
// plan, written to the feed store at each planning (feeds.Store.SavePlans)
// for `deltaq feeds explain`, and that first sighting while the check
// waits (bucket poll, 9 bytes a waiting watched URL), so that a restart
// judges the targets' copies against it again. The demands are read from
// the feed and watch stores; a restart plans the feeds anew from their stored history and
// last polls (each feed's week continued from its last poll; a feed never
// polled is owed a poll planned before the restart at once), rebuilds every watched URL's utility by replaying the instants
// since its last fetch (the page record, the group's last check), at most
// monitor.max_lookback of them, and the first Ingest reads every monitored
// page the crawler has fetched, so a poll committed but not yet read when
// the process died (kill -9) still reaches its feeds and watches. The
// queued polls and the period's usage per class are the frontier's and
// persist with it.
//
//	p, err := poll.New(ctx, db, cfg.Monitor, poll.Options{Feeds: st, FeedsConfig: cfg.Feeds, Watches: e})
//	f, err := frontier.New(ctx, db, cfg.Frontier, gate, policy, frontier.Options{Monitor: p, MonitorInstant: cfg.Monitor.Instant})
//	go f.RunMonitor(ctx) // PlanMonitor each instant: p.Pick under the class's share
//	go p.Run(ctx)        // Ingest what the crawler fetched, Refresh the demands and the plan
package poll
