// Package sitemap reads what a site says about its own pages: XML sitemaps
// and sitemap indexes (sitemaps.org protocol 0.9) and RSS 2.0, RSS 1.0 and
// Atom feeds, as lists of URLs with their last-modified times.
//
// The crawler uses these lists for discovery (§4.1: new pages are found by
// following links, and a sitemap or feed is a page of links the site keeps
// current) and as a cheap hint of which known pages changed.
//
// Parse is a pure function with bounded memory: the body, gzip-compressed
// or not (detected by its magic bytes), is decoded as a stream through a
// cap of Limits.MaxBytes decompressed bytes, so a gzip bomb ends in
// ErrTooLarge after at most that many bytes; at most Limits.MaxURLs entries
// are kept and the rest only counted (Result.Dropped); element nesting
// deeper than MaxDepth stops the parse. The protocol's own limits are
// 50 MiB and 50,000 URLs per file; the caller passes its limits.
//
// Parse tolerates what real sitemaps get wrong: namespaces are ignored (only
// local names count, and only as direct children of <url>, <sitemap>,
// <item> or <entry>, so <image:loc> is not taken for <loc>), unescaped '&'
// and HTML entities are kept as written, declared non-UTF-8 encodings are
// decoded, and unreadable dates are counted (Result.BadDates) rather than
// fatal. Malformed XML returns the entries read so far together with the
// error. Locations are returned as written: resolve them with
// urlnorm.Resolve against the sitemap's own URL, which also makes relative
// Atom links absolute. A feed item's link is first resolved against the
// xml:base in effect at its element (inherited by descendants, a relative
// one resolved against its parent's, an unparsable or overlong one
// ignored), so it is relative to the document's URL only if every base is.
//
//	res, err := sitemap.Parse(body, sitemap.Limits{MaxBytes: 50 << 20, MaxURLs: 50000})
//	for _, u := range res.URLs { n, err := urlnorm.Resolve(sitemapURL, u.Loc); ... }
//	for _, s := range res.Sitemaps { /* fetch the child sitemap */ }
//	if errors.Is(err, sitemap.ErrTooLarge) { /* record "too_large"; res holds what was read */ }
package sitemap
