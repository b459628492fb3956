package extract

import (
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/bounds"
)

// Limits bound the work and output of HTML for one page.
type Limits struct {
	// MaxLinks is the most links kept; further ones are counted.
	MaxLinks int `mapstructure:"max_links"`
	// MaxTextBytes is the most bytes of text (and of title) kept.
	MaxTextBytes int `mapstructure:"max_text_bytes"`
	// MaxDepth is the most open elements tracked; deeper elements still
	// give their text but are not tracked as main content or chrome.
	MaxDepth int `mapstructure:"max_depth"`
	// MaxNodes is the most tags read; the parse stops after it.
	MaxNodes int `mapstructure:"max_nodes"`
}

// MaxTextBytesLimit is the largest max_text_bytes a configuration may set.
const MaxTextBytesLimit = 1 << 30

// Upper bounds of the counts, far above any real page. A hostile page
// drives each to its limit: the links are kept and stored, and a watch's
// selector walks the tree recursively, a stack frame per level.
const (
	maxLinksLimit = 1_000_000
	maxDepthLimit = 100_000
	maxNodesLimit = 100_000_000
)

// Validate reports every limit out of range, naming its key.
func (l Limits) Validate() error {
	report := bounds.NewReport("extract.")
	report.Add("max_links", l.MaxLinks, bounds.Positive(l.MaxLinks, maxLinksLimit))
	// The text is gathered in one buffer of this capacity.
	if l.MaxTextBytes <= 0 {
		report.Add("max_text_bytes", l.MaxTextBytes, "must be > 0")
	} else if l.MaxTextBytes > MaxTextBytesLimit {
		report.Add("max_text_bytes", l.MaxTextBytes, fmt.Sprintf("must be <= %d (1 GiB), the text being held in memory whole", MaxTextBytesLimit))
	}
	report.Add("max_depth", l.MaxDepth, bounds.Positive(l.MaxDepth, maxDepthLimit))
	report.Add("max_nodes", l.MaxNodes, bounds.Positive(l.MaxNodes, maxNodesLimit))
	return report.Err()
}

// Document is what one HTML page says.
type Document struct {
	// Title is the first <title>, whitespace collapsed.
	Title string
	// Text is the main text (see the package documentation).
	Text string
	// Language is the lang attribute of <html>, trimmed; "" if absent.
	Language string
	// Charset is the name of the encoding the body was decoded from
	// (WHATWG names: "utf-8", "windows-1252", "shift_jis", ...).
	Charset string
	// Canonical is the normalized target of the first <link rel=canonical>
	// that is a valid http(s) URL; "" if none.
	Canonical string
	// Refresh is the first <meta http-equiv=refresh>; nil if none.
	Refresh *Refresh
	// Robots holds the <meta name=robots> directives.
	Robots Robots
	// Links are the page's outgoing links, in document order, at most
	// Limits.MaxLinks.
	Links []Link
	// LinksDropped counts distinct links beyond Limits.MaxLinks.
	LinksDropped int
	// LinksSkipped counts link targets that are not http(s) or not valid.
	LinksSkipped int
	// TextTruncated is set when Text (or Title) was cut at
	// Limits.MaxTextBytes.
	TextTruncated bool
	// NodesTruncated is set when the parse stopped at Limits.MaxNodes.
	NodesTruncated bool
}

// Kind says where a link was found.
type Kind uint8

const (
	KindAnchor    Kind = iota + 1 // <a href>, <area href>
	KindCanonical                 // <link rel=canonical>
	KindFeed                      // <link rel=alternate type=application/rss+xml or atom+xml>
	KindRefresh                   // <meta http-equiv=refresh content="n; url=...">
)

func (k Kind) String() string {
	switch k {
	case KindAnchor:
		return "anchor"
	case KindCanonical:
		return "canonical"
	case KindFeed:
		return "feed"
	case KindRefresh:
		return "refresh"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Link is one outgoing link.
type Link struct {
	// URL is absolute and normalized (internal/urlnorm).
	URL  string
	Kind Kind
	// NoFollow is set by rel=nofollow, ugc or sponsored on every occurrence
	// of the URL; one followable occurrence clears it.
	NoFollow bool
}

// Refresh is a <meta http-equiv=refresh>.
type Refresh struct {
	// Delay is the wait before the refresh.
	Delay time.Duration
	// URL is the normalized target; "" means the page reloads itself.
	URL string
}
