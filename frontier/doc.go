// Package frontier decides what the crawler fetches next and when.
//
// It owns the persistent queue (repository prefix 'q'): per-host queues in
// three classes (first fetches of new URLs, synchronization re-fetches,
// discovery re-fetches), each ordered by due time. In memory it keeps only
// per-host heads (frontier.host_buffer entries per class, plus the entries
// in flight) and a heap of hosts ordered by when their next request may
// start; everything else stays in Pebble, so memory does not grow with queue
// length (BenchmarkMemoryPerQueuedURL: 246 B per queued URL with two URLs
// per host, under 11 B with a thousand hosts).
//
// Politeness comes from the crawler through Gate (requests in flight per
// host, least interval between starts); the frontier never hands out a job
// that would break it. A budget of frontier.budget.fetches per
// frontier.budget.period bounds all fetches; shares of it
// (frontier.split.recrawl, frontier.split.discovery) are reserved for the
// re-fetches planned at each period's start, and what a plan leaves unused
// goes to new URLs. The usage of the current period is persisted with each
// completed fetch, so a restart does not grant a fresh budget.
//
// Re-fetches are chosen by a Policy (thesis ch. 4): Uniform (round-robin),
// and the ΔQ, staleness, embarrassment and LambdaCrawl policies in their own
// files. New URLs leave each host's queue in the order they were found, so
// a crawl proceeds breadth-first.
//
// ExplainPage (explain.go) says what the ΔQ policy thinks of one page:
// δQ_A, how many re-downloads it averages and the priority now, under the
// policy New recorded in the repository (metadata frontier.policy).
//
// Time comes from a clock.Clock, so the same code runs in wall time (the
// crawler, RunPlanner) and in replayed evaluation weeks (the harness moves a
// clock.Manual and calls Plan).
//
//	f, err := frontier.New(ctx, db, cfg.Frontier, gate, frontier.Uniform{}, frontier.Options{})
//	job, err := f.Next(ctx, false)   // waits for politeness and budget
//	// ... fetch job.URL, then in the result's batch:
//	err = f.Complete(batch, job)     // dequeue + count, atomically with the result
//	batch.Commit(); f.Done(job, frontier.DoneInfo{})
package frontier
