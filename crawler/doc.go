// Package crawler fetches pages and records every fetch in the repository:
// the incremental crawler of thesis §2.1, which updates its repository in
// place, page by page.
//
// net/http performs each request; deltaq's own scheduler (package
// frontier) decides what to fetch and when, through the Gate this package
// supplies: requests in flight per host, and the least interval between
// request starts (crawler.politeness.min_delay, per-host overrides, and
// robots.txt Crawl-delay). The keep-alive pool holds as many connections
// per host as the widest per-host allowance.
//
// Why not Colly. Colly performed the requests until its use had shrunk to a
// GET wrapper: its limiter, robots handling, revisit store, redirect
// following and HTML callbacks were all off, and three workarounds stood
// between it and the crawler (a transport marking every body decoded so
// Colly would not gunzip a .xml.gz bomb without limit, a read limit of
// max_body_bytes+1 to tell a truncated body from a whole one, and a
// Content-Type rewrite because Colly converts charsets the parsers already
// decode). What remained cost time: per GET, Colly used 1.10–1.22× the CPU
// of net/http and 144 allocations against 93 (BenchmarkFetch); its WHATWG
// URL parse was a third of its own share of a crawl's profile. A plain
// Colly crawler remains the yardstick: BenchmarkCrawlVsColly crawls the
// same replay with both.
//
// One fetch, from frontier to repository:
//
//	worker: frontier.Next → robots.txt known and fresh? (else fetch it in
//	        this slot and defer the job) → allowed? → conditional GET
//	        (If-None-Match, If-Modified-Since) → parse: title, main text,
//	        links, robots meta, charset (crawler/extract), or sitemap/feed
//	        entries (crawler/sitemap); shingle signature (crawler/shingle)
//	writer: one repo.Batch per group of results, each result wholly inside
//	        it: page record, version (only if the body changed; a 304 is
//	        never a change), fetch-log line with the shingle difference
//	        (§4.7.1), link graph, new URLs admitted and queued, host state
//	        (robots.txt, back-off), change-feed entry for the index, the
//	        discovery yield N(x) (§3.2), the queue entry removed. The batch
//	        is synced before the frontier is told the job is done.
//
// Commit order, and rounds. The writer commits results as fetches end, so
// their order follows the network. Two things depend on it: a URL linked
// by several pages is admitted, and credited (Page.Source and Root, the
// discovery yield N(x)), by the first to commit, and new URLs queue
// behind one another in that order, so when a budget cannot fetch them
// all, which ones it fetches follows it too. RunOptions.Rounds removes
// both: a round is what the frontier hands out until every job of it has
// its result and nothing queued may start (frontier.RoundOver); only then
// do its results commit, sorted by their queue entries
// (frontier.CompareJobs). The URLs a round finds are queued after it
// ends, in that order; the next round is what may start then. By
// induction over rounds the queue, and so each round's set of jobs, is
// the same whatever the fetches in flight and however they interleave:
// the budget admits from the same queue in the same order (the frontier
// hands out a host's entries in queue order, and a reservation or the
// free budget, not timing, says how many), and the same results commit
// in the same order. The price is the pipeline: a result waits for its
// round's slowest fetch before it commits. `deltaq eval sync` uses rounds
// for its runs with a discovery share, whose results must be the same
// bytes at any eval.sync.crawl_parallel; a live crawl commits at once.
//
// What the web says back is data, not an error: 404/410 (gone), robots
// exclusion, bodies over crawler.limits.max_body_bytes as sent or decoded
// (too_large, never silently truncated, so a decompression bomb stops at
// the limit), other content types (bad_content_type, the body unread and
// the type recorded in Page.ContentType), a Content-Encoding the crawler
// cannot undo (bad_encoding: it decodes gzip, x-gzip and deflate, zlib or
// raw, stacked up to four deep, besides the gzip the transport asks for
// and undoes; a body that does not decode fails too, and neither is stored
// as the page), a body that is no text whatever its type says (not_text:
// a PDF, an image or bytes no text has, as extract.BinaryType sniffs it,
// never parsed as a page), 429/503 (that host
// alone backs off, honouring Retry-After, doubling up to backoff_max). A
// subscribed feed's URL (frontier.Feed: the poller's feeds, or those
// `deltaq feeds poll` fetches) is fetched as a feed reader fetches it,
// whatever the reason it was queued for: served as text/plain,
// application/octet-stream, text/xml or application/xml, or with any other
// type if its body looks like XML (sniffXML), the body is read, kept as
// the page's copy and parsed as a feed, never indexed, and the feed's
// parser (package feeds) says whether it is a feed. Other URLs keep
// crawler.content_types. Redirects
// are not followed inside a fetch: each target is a new URL with its own
// robots check and politeness slot, and chains stop at max_redirects.
// Connections to loopback, private and link-local addresses are refused at
// dial time unless crawler.allow_private is set; crawler.resolve maps host
// names such as tldr-en.test to loopback listeners. A refused host is named
// in the summary (RefusedError: the address and its kind) and is not stored
// as deferred, so a run that allows private addresses fetches it at once.
// Within the host scope (crawler.scope), crawler.include and
// crawler.exclude rules keep URLs out (scope.go).
//
// robots.txt (RFC 9309): fetched before a host's first page and again
// once crawler.robots.cache_ttl has passed. A 5xx or unreachable one
// defers the host (crawler.robots.error_defer, doubled per failure in a
// row), unless the host gave rules before: then, as §2.4 allows while
// the file is unreachable, the host is crawled under those rules for up
// to crawler.robots.stale_for from the first failed refresh, asked again
// on the same doubling schedule; the host record keeps the rules, since
// when (repo.HostState.RobotsUnreachableSince) and the last wait
// (RobotsRetryWait), so a restart does too, and the summary and Hosts
// name such hosts.
//
// What a run did: Summary counts fetches, outcomes (robots.txt refusals
// apart from errors) and URLs excluded, and a drained run says how many URLs
// are left queued and why (address refused, robots.txt unreachable, back-off,
// not due, budget spent). It names the hosts that do not answer: those
// whose latest attempt got no whole HTTP answer (a connection refused or
// reset, a malformed response, a time-out) and that never answered, or failed
// their last three attempts in a row; one bad answer from a host that
// serves its pages is that page's failure, retried, not the host's. A
// crawler that runs more than once (deltaq serve, deltaq run) summarizes
// each run apart: it names only the hosts that run asked, though whether
// a host answers is judged on every run's attempts. The
// progress line gives the rate over the time fetches were committed, the
// queue and an ETA, or what the crawl waits for.
// Hosts gathers per-host statistics; RemovePages and RemoveHost take pages
// out of the repository and the queue (repo.Batch.RemovePage tells the index).
//
// Memory: bodies in flight are bounded by crawler.politeness.global ×
// max_body_bytes; the per-host cache of robots rules and back-off holds at
// most crawler.robots.cache_entries hosts (the rest reload from Pebble).
//
//	c, err := crawler.New(cfg.Crawler, db, crawler.Options{Logger: logger})
//	f, err := frontier.New(ctx, db, cfg.Frontier, c.Gate(), policy, frontier.Options{})
//	_, err = c.Seed(ctx, f, []string{"https://example.org/"})
//	sum, err := c.Run(ctx, f, crawler.RunOptions{Drain: true, DrainHorizon: time.Minute})
//	fmt.Print(sum) // fetched, new, changed, unchanged, errors by kind, pages/s
package crawler
