package index

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/deltaq/deltaq/internal/excerpt"
	"github.com/deltaq/deltaq/internal/urlnorm"
)

// Query is a parsed search: pages are ranked by how well they match the
// terms and phrases (best match, match.go), every phrase must occur (one
// of stop words alone in the title: phraseQuery), no excluded term or
// phrase may, and when sites are given the page's host must be one of
// them.
//
// Syntax: words are terms; "quoted words" are phrases; -word and
// -"quoted words" exclude; site:host (repeatable, any one matches) and
// -site:host filter by host, its subdomains included (SitePattern).
// Typographic quotes (“ ” „ ‟ « ») and minus signs (− –) pasted from a
// word processor are these operators too.
type Query struct {
	Terms          []string
	Phrases        []string
	ExcludeTerms   []string
	ExcludePhrases []string
	Sites          []string
	ExcludeSites   []string
	// words remembers the analysis of the terms and phrases (queryTerms)
	// for the copies of one parsed query, so a search and the snippets of
	// its result page analyze them once; nil: not remembered.
	words *analyzedWords
}

// analyzedWords is what one index's text analyzer made of one text.
type analyzedWords struct {
	mu    sync.Mutex
	ix    *Index
	text  string
	terms []string // read-only once stored
}

// Limits bounds a query.
type Limits struct {
	MaxBytes int // longest query, in bytes
	MaxTerms int // most phrases, exclusions and site: filters (words beyond it are trimmed when searched)
}

// QueryError is a problem with what the user typed in the query
// parameter q. Msg names the problem and the limit without naming the
// parameter (a server shows it beside "q"); Limit is what a query must be
// (a server's error names it apart); Error prefixes "q: ". Servers answer
// it with 400.
type QueryError struct{ Msg, Limit string }

func (e *QueryError) Error() string { return "q: " + e.Msg }

func queryErr(limit, format string, args ...any) error {
	return &QueryError{Msg: fmt.Sprintf(format, args...), Limit: limit}
}

// NoSearchableWords is the refusal of query when analysis leaves none of
// its words; only says what it held instead, which the limit broken
// names: the searcher answers stop words alone and refuses punctuation
// alone, an alert refuses stop words too.
func NoSearchableWords(query, only string) error {
	return queryErr("at least one word other than "+only, "%q has no searchable words (only %s)", Excerpt(query), only)
}

// maxExcerpt is the most characters of a query an error message repeats.
const maxExcerpt = 60

// Excerpt is s cut to its first maxExcerpt characters, "…" marking a cut:
// enough to recognize a query in an error message, where a whole one (up
// to index.max_query_bytes) would bury the message.
func Excerpt(s string) string { return excerpt.Of(s, maxExcerpt) }

// ParseQuery parses s. An empty or over-long query, an unclosed quote, too
// many phrases, exclusions and site: filters, or a query with nothing
// positive to search for is a *QueryError. Any number of plain words is
// accepted: the search keeps the most informative (match.go).
func ParseQuery(s string, lim Limits) (Query, error) {
	var q Query
	if len(s) > lim.MaxBytes {
		return q, queryErr(fmt.Sprintf("at most %s bytes", thousands(lim.MaxBytes)), "%s bytes: longer than the %s-byte limit", thousands(len(s)), thousands(lim.MaxBytes))
	}
	if !utf8.ValidString(s) {
		return q, queryErr("valid UTF-8", "not valid UTF-8")
	}
	if strings.TrimSpace(s) == "" {
		return q, queryErr("at least one word", "empty query")
	}
	// Full-width quotes, minus signs and letters (＂ａ ｂ＂ －ｃ ｓｉｔｅ：)
	// are the operators and words they look like, as the analyzer takes
	// them (AnalyzerName).
	if !norm.NFKC.IsNormalString(s) {
		s = norm.NFKC.String(s)
	}
	operators := 0
	// add records one part, among the exclusions when it is negated.
	add := func(neg bool, list, excluded *[]string, v string) {
		if neg || list != &q.Terms {
			operators++
		}
		if neg {
			list = excluded
		}
		*list = append(*list, v)
	}
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += w
			continue
		}
		neg := false
		if isMinus(r) {
			neg = true
			i += w
			if i >= len(s) {
				break
			}
			if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
				continue // a lone "-" means nothing
			}
		}
		if r, w := utf8.DecodeRuneInString(s[i:]); isQuote(r) {
			end := strings.IndexFunc(s[i+w:], isQuote)
			if end < 0 {
				return Query{}, queryErr(`quotes in pairs, each "phrase" closed`, "unclosed quote at byte %d", i+1)
			}
			phrase := strings.Join(strings.Fields(s[i+w:i+w+end]), " ")
			_, cw := utf8.DecodeRuneInString(s[i+w+end:])
			i += w + end + cw
			if phrase == "" {
				continue
			}
			add(neg, &q.Phrases, &q.ExcludePhrases, phrase)
			continue
		}
		start := i
		for i < len(s) {
			r, w := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || isQuote(r) {
				break
			}
			i += w
		}
		word := s[start:i]
		if len(word) >= 5 && strings.EqualFold(word[:5], "site:") {
			// The messages say what is wrong; the limit, which a caller
			// shows beside them, says what is wanted.
			const siteLimit = "site:HOST, a host name such as site:example.org"
			if word[5:] == "" {
				return Query{}, queryErr(siteLimit, "site: with no host name")
			}
			// The host as the index stores it (urlnorm.Host): "Bücher.DE."
			// is xn--bcher-kva.de.
			host, err := urlnorm.NormalizeHost(word[5:])
			if err != nil || strings.ContainsAny(word[5:], "/?#@") {
				return Query{}, queryErr(siteLimit, "site:%s: not a host name", Excerpt(word[5:]))
			}
			add(neg, &q.Sites, &q.ExcludeSites, host)
			continue
		}
		add(neg, &q.Terms, &q.ExcludeTerms, word)
	}
	if operators > lim.MaxTerms {
		return Query{}, queryErr(fmt.Sprintf("at most %d phrases, exclusions and site: filters", lim.MaxTerms), "%d phrases, exclusions and site: filters: more than the limit of %d", operators, lim.MaxTerms)
	}
	if len(q.Terms) == 0 && len(q.Phrases) == 0 {
		return Query{}, queryErr(`at least one word or "phrase"`, "nothing to search for: exclusions and site: only narrow a search")
	}
	q.words = new(analyzedWords)
	return q, nil
}

// SitePattern is the regular expression (RE2 syntax, matching a whole
// host[:port] as FieldHost holds it) of the hosts site:site keeps and
// -site:site drops, site as ParseQuery normalized it: the host and its
// subdomains, as in every web search engine, with the same port.
func SitePattern(site string) string {
	p := regexp.QuoteMeta(site)
	host := site
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	// An IP address has no subdomains: "site:0.0.1" is not 127.0.0.1's
	// parent. A host name's last label is never all digits (WHATWG URL
	// reads such a host as IPv4).
	if strings.HasPrefix(host, "[") || strings.Trim(host[strings.LastIndexByte(host, '.')+1:], "0123456789") == "" {
		return p
	}
	return `(.+\.)?` + p
}

// SiteRegexp matches the hosts on any of sites (SitePattern); nil when
// there are none.
func SiteRegexp(sites []string) *regexp.Regexp {
	if len(sites) == 0 {
		return nil
	}
	ps := make([]string, len(sites))
	for i, s := range sites {
		ps[i] = SitePattern(s)
	}
	return regexp.MustCompile(`^(?:` + strings.Join(ps, "|") + `)$`)
}

// isQuote reports whether r opens or closes a phrase: '"' and the
// typographic quotes a word processor puts in its place (“…”, „…“, «…»,
// »…«), any one closing any other, so a phrase holds no quote mark and
// String can write it between '"'.
func isQuote(r rune) bool {
	switch r {
	case '"', '“', '”', '„', '‟', '«', '»':
		return true
	}
	return false
}

// isMinus reports whether r excludes the word or phrase it starts: '-'
// and the minus sign and en dash a word processor puts in its place.
// Within a word ("1990–2000") or alone ("1990 – 2000") it is no operator,
// as '-' is not.
func isMinus(r rune) bool { return r == '-' || r == '−' || r == '–' }

// String renders the query in the syntax ParseQuery reads.
func (q Query) String() string {
	var parts []string
	parts = append(parts, q.Terms...)
	for _, p := range q.Phrases {
		parts = append(parts, `"`+p+`"`)
	}
	for _, t := range q.ExcludeTerms {
		parts = append(parts, "-"+t)
	}
	for _, p := range q.ExcludePhrases {
		parts = append(parts, `-"`+p+`"`)
	}
	for _, s := range q.Sites {
		parts = append(parts, "site:"+s)
	}
	for _, s := range q.ExcludeSites {
		parts = append(parts, "-site:"+s)
	}
	return strings.Join(parts, " ")
}

// thousands formats n with comma separators: 1200 → "1,200".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
