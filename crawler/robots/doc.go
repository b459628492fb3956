// Package robots decides whether a crawler may fetch a path of a host, as
// the host's robots.txt says under the Robots Exclusion Protocol (RFC 9309).
//
// It holds no state of its own: Parse turns a robots.txt body into an
// immutable *Robots, and the crawler keeps one per host in its robots cache
// (bounded there, not here). Parse reads at most MaxBytes (500 KiB, the
// minimum RFC 9309 §2.5 lets a crawler parse) and never fails: lines it does
// not understand are ignored.
//
// What the fetch of /robots.txt returned is data, and the crawler maps it
// onto this package as RFC 9309 §2.3.1 says:
//
//   - 2xx: Parse(body);
//   - 3xx: follow up to five redirects, then treat as 4xx;
//   - 4xx, including 404 and 403 ("unavailable"): AllowAll(), crawl freely;
//   - 5xx or the host unreachable ("unreachable"): the host is deferred and
//     nothing on it is fetched until robots.txt can be read; after a long
//     outage the last good copy may be used. Deferral and back-off belong to
//     the crawler; DisallowAll() is the value to use in the meantime.
//
// Matching (RFC 9309 §2.2): Group picks the group whose user-agent equals
// the crawler's product token, compared case-insensitively; all groups
// naming that token are merged; failing that, the "*" groups are used;
// failing that, everything is allowed. Allowed then applies the rule with
// the longest pattern (counted in octets of the percent-normalized pattern)
// that matches the path and query; Allow wins a tie; "*" matches any
// sequence and a final "$" anchors the end; an empty Disallow allows.
// Before matching, patterns and paths are percent-normalized alike (escapes
// of unreserved characters decoded, hex upper-cased, non-ASCII encoded as
// UTF-8), so "/%7Efoo" and "/~foo" are the same path. /robots.txt itself is
// always allowed.
//
// Crawl-delay, not part of RFC 9309, is read from the matched groups as
// seconds (integer or decimal); negative values and values above
// MaxCrawlDelay are ignored, and of several groups the largest delay wins.
//
// The crawler consults robots before every fetch, which is the politeness
// the thesis' crawler model (§4.2, §4.7) takes for granted.
//
//	r := robots.Parse(body)          // after a 2xx; robots.AllowAll() after a 4xx
//	g := r.Group("deltaqbot")        // once per host, kept in the robots cache
//	if g.Allowed("/search?q=x") { ... }
//	delay, ok := g.CrawlDelay()
//	sitemaps := r.Sitemaps()
package robots
