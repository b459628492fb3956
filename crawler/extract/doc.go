// Package extract reads what a fetched HTML page says: its title, its main
// text, its links (absolute and normalized), its canonical URL, meta
// refresh, robots directives, language and character set.
//
// HTML is a pure function over one body. It streams the body through the
// golang.org/x/net/html tokenizer without building a DOM, and every output
// is bounded by Limits supplied by the caller: MaxLinks links (further ones
// counted in Document.LinksDropped), MaxTextBytes of text (truncation
// recorded in Document.TextTruncated), and MaxNodes tags and MaxDepth open
// elements (hostile HTML stops at the bound, recorded in
// Document.NodesTruncated).
//
// The text is what the index scores (§4.6: the repository copy of a page is
// what queries are answered from) and what crawler/shingle compares between
// fetches (§4.7.1), so it leaves out what changes without the page
// changing: when the page has <main> or <article> elements, only their
// content is taken (so site navigation, header, footer and sidebars are
// dropped), without nav and aside inside them; otherwise the whole body.
// script, style, noscript, template, svg, math, iframe, object, canvas and
// select never contribute. Whitespace is collapsed and block elements
// separate words.
//
// The character set is chosen as browsers do: a byte order mark, then the
// Content-Type charset, then a <meta charset> or http-equiv Content-Type in
// the first 1,024 bytes, then UTF-8 if the body is valid UTF-8 and
// windows-1252 if not. An unknown label is skipped, not an error. Invalid
// bytes become U+FFFD.
//
// Links: <a href> and <area href> (KindAnchor; rel=nofollow, ugc or
// sponsored set NoFollow), <link rel=canonical> (KindCanonical), <link
// rel=alternate> of type RSS or Atom (KindFeed) and <meta http-equiv=refresh>
// (KindRefresh). They are resolved against <base href> when present (the
// first one; links before it use the page URL) and normalized with
// internal/urlnorm; targets that are not http or https (mailto:,
// javascript:, data:) and malformed ones are counted in LinksSkipped.
// Anchors to the page itself (href="#top") are left out. A URL appears
// once per kind.
//
// Robots: only <meta name=robots> is read (not googlebot or other crawler
// names). The X-Robots-Tag header is the caller's: RobotsTag parses its
// values and Robots.Union combines the two. Page-level nofollow is
// Document.Robots.NoFollow; the crawler must check it besides Link.NoFollow.
//
// A body served as HTML or text may be none: BinaryType says which
// bodies the caller should refuse before parsing (a PDF, an image, bytes
// no text has).
//
//	doc, err := extract.HTML(body, resp.Header.Get("Content-Type"), finalURL, lim)
//	doc.Robots = doc.Robots.Union(extract.RobotsTag(resp.Header.Values("X-Robots-Tag")...))
//	for _, l := range doc.Links {
//		if l.Kind == extract.KindAnchor && !l.NoFollow && !doc.Robots.NoFollow { frontier.Add(l.URL) }
//	}
package extract
