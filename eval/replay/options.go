package replay

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Options configure a Server. The zero value is valid: no added latency,
// the default robots.txt, no logging.
type Options struct {
	// Latency delays every response by this much before it is written, to
	// give politeness and timeout tests a slow web. The wait ends early,
	// with nothing written, if the request's context is done. Zero (the
	// default) means no delay.
	Latency time.Duration `mapstructure:"latency"`

	// RobotsExtra adds lines to the "User-agent: *" group of an archive's
	// robots.txt, keyed by archive name, e.g. {"tldr-en": {"Disallow:
	// /osx/", "Crawl-delay: 1"}}. They are written before "Allow: /" so
	// that first-match parsers honour them as well as longest-match ones.
	// For tests of the crawler; no lines by default.
	RobotsExtra map[string][]string `mapstructure:"robots_extra"`

	// Search adds the keyword-search interface of search.go; off by
	// default, since the archived sites have none.
	Search SearchOptions `mapstructure:"search"`

	// Logger receives lifecycle lines at Info and one line per request at
	// Debug. Nil discards.
	Logger *slog.Logger `mapstructure:"-"`
}

// maxSearchResults bounds K, far past the pages of any archive; page_size,
// at most K, with it.
const maxSearchResults = 100_000

// Validate reports every problem with o, each naming the key, the value
// and the limit. Archive names in RobotsExtra are checked by New, which
// knows the archives.
func (o Options) Validate() error {
	var errs []error
	if o.Latency < 0 {
		errs = append(errs, fmt.Errorf("web.replay.latency = %v: must be >= 0", o.Latency))
	}
	for name, lines := range o.RobotsExtra {
		for i, l := range lines {
			if strings.ContainsAny(l, "\r\n") {
				errs = append(errs, fmt.Errorf("web.replay.robots_extra.%s[%d] = %q: must be a single line", name, i, l))
			}
		}
	}
	if o.Search.Enabled {
		if o.Search.PageSize < 1 {
			errs = append(errs, fmt.Errorf("web.replay.search.page_size = %d: must be >= 1", o.Search.PageSize))
		}
		if o.Search.MaxResults < o.Search.PageSize {
			errs = append(errs, fmt.Errorf("web.replay.search.max_results = %d: must be >= page_size (%d)", o.Search.MaxResults, o.Search.PageSize))
		} else if o.Search.MaxResults > maxSearchResults {
			errs = append(errs, fmt.Errorf("web.replay.search.max_results = %d: must be in [page_size (%d), %d]", o.Search.MaxResults, o.Search.PageSize, maxSearchResults))
		}
	}
	return errors.Join(errs...)
}
