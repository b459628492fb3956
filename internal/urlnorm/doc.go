// Package urlnorm decides when two URL strings name the same page: it turns
// any http or https URL into one canonical string, and turns that string into
// a SURT key under which one host's pages sort together.
//
// The package is pure: no state, no I/O. Every output is bounded by
// MaxLength bytes; longer URLs are rejected with ErrTooLong.
//
// Normalization (Normalize, NormalizeURL, Resolve) follows RFC 3986 §6.2.2
// (syntax-based normalization) with the leniency browsers apply to
// hand-written links (WHATWG URL): leading and trailing spaces and embedded
// tabs and newlines are removed, and a backslash before the query counts as a
// slash. The rules, in order:
//
//   - only http and https are accepted (ErrUnsupportedScheme otherwise);
//     the scheme is lowercased;
//   - userinfo ("user:pass@") is stripped, not rejected: a link carrying it
//     still names the same page;
//   - the host is lowercased; a host with non-ASCII letters is converted to
//     ASCII with IDNA (the Lookup profile of golang.org/x/net/idna); ASCII
//     hosts are taken as they are, so real-world names such as "a_b.example"
//     or "r3---sn.example" are kept; trailing dots are stripped; IPv6
//     literals are written in RFC 5952 form; a host may hold only
//     a-z, 0-9, '-', '_' and '.' afterwards (ErrInvalid otherwise);
//   - a default port (:80 for http, :443 for https) and an empty port are
//     dropped;
//   - percent-encoding is normalized: hex digits in upper case, escapes of
//     unreserved characters (A-Za-z0-9-._~) decoded, every other octet that
//     RFC 3986 does not allow literally in a path or query encoded, and a
//     '%' that starts no valid escape encoded as %25. So "/common/%5b.html"
//     becomes "/common/%5B.html" and "/a%7Eb" becomes "/a~b";
//   - dot segments are removed (RFC 3986 §5.2.4); an empty path becomes "/";
//   - the query is kept as it is apart from percent-encoding; an empty query
//     ("?" alone) is dropped; the fragment is dropped.
//
// Normalize is idempotent: Normalize(Normalize(x)) == Normalize(x).
//
// That leniency is for links in pages. A URL a user types or an API is
// sent (a seed, a feed subscription, a page looked up) goes through
// NormalizeGiven, which refuses one holding an ASCII control character
// (ErrControl) rather than dropping it and taking the URL for another;
// only the space, tabs and newlines around it are trimmed.
//
// # SURT keys
//
// SURT (Sort-friendly URI Reordering Transform) rewrites a normalized URL so
// that byte order groups pages by host, and hosts by domain:
//
//	key      = host-key [ ":" port ] ")" [ "s" ] path [ "?" query ]
//	host-key = host labels reversed and joined by ","   (www.example.com -> com,example,www)
//	         | IPv4 or bracketed IPv6 literal, verbatim
//
// The "s" marks https; http has no marker, so
// http://www.example.com:8080/a?x=1 becomes "com,example,www:8080)/a?x=1"
// and https://www.example.com/a becomes "com,example,www)s/a". The mapping is
// reversible (FromSURT), because a reversed host-key never contains '.',
// an IPv4 literal always does, and an IPv6 literal starts with '['.
//
// Ordering guarantee: for every normalized URL n, SURT(n) starts with
// HostKey(Host(n)), and no key of any other host[:port] does, since host keys
// never contain ')'. All keys are ASCII, so the key range
// [HostKey(h), HostKey(h)+"\xff") holds exactly the pages of h, http and
// https alike (http first). A domain's own pages sort before its subdomains'
// ("com,example)" < "com,example,www)"), and the prefix "com,example,"
// covers every subdomain of example.com.
//
// The crawler uses these keys for storage (§4.7: the repository holds one
// copy per page, so one page must have one name) and Host for per-host
// politeness.
//
//	n, err := urlnorm.Resolve(pageURL, `../b/%7eindex.html#top`)
//	// n == "https://example.com/b/~index.html"; for many links of one
//	// page, r, err := urlnorm.NewResolver(pageURL) and r.Resolve(href)
//	key, _ := urlnorm.SURT(n)       // "com,example)s/b/~index.html"
//	host := urlnorm.Host(n)         // "example.com"
//	lo, hi := urlnorm.HostKey(host), urlnorm.HostKey(host)+"\xff"
package urlnorm
