// Package redirect judges a chain of redirects the same way wherever one
// is followed outside the crawler's queue: a watched page's on the
// crawler's fetches (monitor/poll) and on a watch's own (watch.HTTPFetcher,
// deltaq serve), and a feed's permanent moves (feeds), so that each fails
// alike, and says alike why.
package redirect

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Refusal says why the redirect from the last URL of chain to to is not
// followed, "" when it is: to is no http or https URL, comes back to a URL
// of chain (a loop), or is more than most redirects in a row
// (crawler.limits.max_redirects). Each names the chain.
func Refusal(chain []string, to string, most int) string {
	path := strings.Join(chain, " → ") + " → " + to
	switch {
	case !WebURL(to):
		return fmt.Sprintf("a redirect to no http or https URL (%s)", path)
	case slices.Contains(chain, to):
		return fmt.Sprintf("a redirect loop (%s)", path)
	case len(chain) > most:
		return fmt.Sprintf("more than crawler.limits.max_redirects = %d redirects in a row (%s)", most, path)
	}
	return ""
}

// WebURL reports whether s is an absolute http or https URL.
func WebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Host != "" && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https"))
}
