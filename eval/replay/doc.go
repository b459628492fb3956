// Package replay serves weekly archives over HTTP as a test web: the
// "live web" W_t of thesis §4.2 that the crawler and the evaluation harness
// crawl on loopback, moved forward one week at a time between crawl rounds.
//
// What it serves follows the archive format of the data README
// (datasets/README.md, §1), read by package archive:
//
//	host        <archive name>.test (Host header, port ignored, any case);
//	            any other host → 404
//	/<path>     the page whose manifest url equals r.URL.EscapedPath() and
//	            one of whose intervals covers the current week → 200, else
//	            404. ETag "<hash>" (strong), Last-Modified = date of the
//	            interval's first week; If-None-Match (weak comparison, lists,
//	            "*"; takes precedence) and If-Modified-Since → 304 with
//	            the ETag only (RFC 9110 §15.4.5).
//	/robots.txt User-agent: *, Options.RobotsExtra, Allow: /, and
//	            Sitemap: http://<Host as requested>/sitemap.xml
//	/sitemap.xml the week's URLs with <lastmod>; above 50,000 URLs a
//	            sitemap index of /sitemap-K.xml parts
//	/search     only with Options.Search (`deltaq web replay --search`):
//	            ?q=&page=[&format=json], an ADDED keyword-search interface
//	            (search.go): pages of the week holding every keyword,
//	            BM25 order, at most K results in pages of p; each hit has
//	            url, title, meta description and version (the body hash,
//	            the page's ETag); every response is labelled as added
//	            (X-Deltaq-Interface: added). Per-interval analyses are
//	            built on first use and kept; week indexes for the two
//	            latest weeks searched.
//	methods     GET and HEAD; others → 405 with Allow
//
// Exact path matching is deliberate: manifest URLs are the strings that
// appear in hrefs, and a request made from such an href arrives with that
// escaped path, so a crawler whose URL normalisation changes a path (for
// instance decodes %5B) gets a 404 and the bug shows.
//
// State. The current week is one atomic integer, read once per request, so
// SetWeek is safe while requests are in flight and every response comes
// from a single week. Bodies are the archive's own sub-slices; per interval
// the ETag and Content-Length header values, and per week the
// Last-Modified value, are built once in New (about 100 bytes per
// interval), so a page request does not allocate beyond what net/http
// needs. Counters are atomics per host (Stats). Optional fixed latency per
// response (Options.Latency) ends early when the request's context does.
//
// Usage:
//
//	tldr, err := archive.Open(dir)
//	srv, err := replay.New([]*archive.Archive{tldr}, replay.Options{})
//	hs := &http.Server{Addr: "127.0.0.1:8080", Handler: srv}
//	go hs.ListenAndServe()   // crawl http://tldr-en.test/ via 127.0.0.1:8080
//	err = srv.SetWeek(1)     // next round sees week 1
package replay
