// Package synthweb is deltaq's own synthetic evolving web: a set of news
// sites, served over HTTP, whose pages appear, change and disappear over
// time as a pure function of a seed and a clock, plus an optional set of
// adversarial hosts that try to hurt a crawler.
//
// It is what `deltaq demo` crawls with no network and no data files, what
// `deltaq web synth --listen ADDR --seed N` serves, and what crawler
// robustness tests run against. Nothing is read from disk: the vocabulary
// (words.go) is compiled in.
//
// # What it models
//
// Each site siteN.synth.test has a home page, section hubs and tag pages that
// list articles newest first (paginated), articles of several hundred words
// of Zipf-distributed pseudo-English with per-site topic words, an RSS
// (even sites) or Atom (odd sites) feed, a sitemap with lastmod, and a
// robots.txt that disallows /private/ (which every page links to) and names
// the sitemap; site0 may carry a Crawl-delay.
//
//   - New pages (thesis §3.2). Articles arrive on each site as a Poisson
//     process (Config.NewArticleInterval). The old pages X_t that lead to
//     the new pages Y_t are the hubs, the home page and the feed; a fraction
//     (Config.ChainFraction) of new articles is linked only from the article
//     published just before it ("Continue reading"), forming the chains
//     x → y1 → y2 → … along which a new page is efficiently discoverable.
//     Chained articles are in no hub, feed or sitemap.
//   - Page change (thesis §4.7, the Poisson update model used for SBR and
//     EBR). Each article changes as a Poisson process with its own rate λ,
//     drawn from a Pareto law between λ_min = 1/SlowChangeInterval and the
//     cap λ_max = 1/FastChangeInterval, so most pages change rarely and a
//     few often. A change is minor (the "Updated" line, the ad sentence and
//     the related box change: about 15 % of word 4-shingles) or, with
//     probability MajorChangeFraction, major (about half the paragraphs are
//     rewritten and the extra topic words move: about 75 % of shingles), so
//     shingle thresholds τ_SBR, τ_EBR separate the two.
//   - Deletion. A fraction of articles (DeleteFraction) is deleted about
//     MeanLifetime after publication: 404 from then on, and every link to
//     it is gone from hubs, feeds, sitemaps, related boxes and chains.
//
// # Time
//
// The web runs on model time: model seconds = (Now() − Start) × TimeScale.
// Every interval in Config is model time; every time the web shows
// (Last-Modified, Date, feed and sitemap dates, page text) is wall time, an
// event at model time m being shown at Start + m/TimeScale. TimeScale 1
// runs the web in real time (the demo: changes every few minutes);
// TimeScale 10080 with weekly intervals plays a week per wall minute. The
// initial PagesPerSite articles of each site were published
// NewArticleInterval apart before Start. Same Seed, Start and Now ⇒
// byte-identical responses (absolute links carry the port of the request's
// Host header, so the same Host is part of "same").
//
// # How the past is computable without history
//
// Every random fact comes from its own stream seeded by (seed, purpose,
// site, …). Arrivals: model time is cut into buckets, each holding a
// Poisson count of arrivals at uniform times, drawn from (seed, site,
// bucket). Changes: time after an article's publication is cut into
// windows of 4/λ, each holding a Poisson(4) count of events at uniform
// times, drawn from (article, window). Independent Poisson counts on
// disjoint intervals are exactly a Poisson process, and the content at t
// needs only the newest event and the newest few major events, found by
// looking back one or two windows. Deletions happen at arrival instants, so
// a listing's Last-Modified is its site's latest arrival.
//
// # Ground truth
//
// Pages(t) lists every page at t with its ETag, Last-Modified, version (the
// number of change events), λ and out-links, exactly as served; Changes(a,
// b) lists pages added, removed and changed between two instants;
// SampleQueries(n) gives queries that have results at every time;
// DisallowedFetches counts requests a robots-respecting crawler never makes.
//
// # Adversarial mode
//
// With Config.Adversarial, trap.synth.test serves the traps listed by
// AdversarialPaths (redirect loop and endless chain, infinite calendar and
// deep paths, slow drip, 512 MiB body, 4 GiB gzip bomb in 4 MiB, malformed
// HTML, lying charsets, 429/503 with Retry-After, a burst limiter, 100,000
// links, a 10 KiB URL, unsafe link targets, lying Content-Length, binary
// as text/html), all linked from its home page, which site0 links to;
// trap-robots-huge.synth.test has a 32 MiB robots.txt and
// trap-robots-error.synth.test a robots.txt answering 500.
//
// # State and bounds
//
// A Web holds its options, the vocabulary's Zipf table (3k floats), one
// small record per site, one 16 KiB gzip member (built on the first bomb
// request), an atomic counter and the burst limiter's two integers. A
// request memoizes the buckets and articles it touches and drops them when
// it ends. Hub, tag and sitemap pages walk articles newest first, so their
// cost, and that of Pages and Changes, grows with the number of articles
// published since Start: keep Start near the first request. Streaming
// traps write from fixed buffers, check the request context before every
// write, give each write a 30 s deadline, and spawn no goroutines.
//
// # Usage
//
//	w, err := synthweb.New(synthweb.Options{Config: cfg.Web.Synth, Now: time.Now})
//	srv := &http.Server{Addr: addr, Handler: w}
//	tr := &http.Transport{DialContext: synthweb.DialContext(addr)} // *.synth.test → addr
//	seeds := w.SeedURLs()                                          // http://siteN.synth.test/
//	truth := w.Pages(time.Now())
package synthweb
