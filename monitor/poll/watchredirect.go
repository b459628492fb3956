package poll

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/redirect"
	"github.com/deltaq/deltaq/repo"
)

// Watched pages behind redirects. The crawler never follows a redirect
// inside a fetch: it records the page as a redirect (repo.OutcomeRedirect,
// RedirectTo) and queues the target as a URL of its own, so robots.txt,
// politeness and the budget apply to the target as to any URL. A watch's
// own fetch (watch.HTTPFetcher, deltaq serve) follows redirects inside
// the fetch; a check on the crawler's fetch follows them through the
// repository. Both check the page the watched URL leads to, judge the
// chain alike (internal/redirect), and keep the watch on the URL its user
// gave.

// LimitRedirects sets how many redirects in a row a watched page's check
// follows (crawler.limits.max_redirects, the bound of the crawler's own
// chains): one more is a failed check saying so. Until it is called,
// feeds.DefaultMaxRedirects, that setting's default.
func (p *Poller) LimitRedirects(n int) { p.maxRedirects.Store(int64(max(n, 0))) }

// throughRedirects follows the redirects the crawler recorded from pg, a
// watched page whose last fetch answered one, to the page they lead to.
// A page of the chain counts only if the crawler fetched it at or after
// the redirect was seen: pg's fetch, or since, when an earlier fetch of pg
// found the redirect and its check still waits (checkSince). An older copy
// is not what the watched URL leads to now; and keeping the first sighting
// while the check waits means a watched URL polled again meanwhile does
// not make the targets just fetched for it stale, which would ask for them
// again and again. The targets not fetched since are awaited (c.awaits),
// all that the chain as last fetched names, so that one instant fetches
// them together: Pick asks the crawler for them, and the check runs again
// when they are ingested, as a feed's poll does for its temporary
// redirect. A target robots.txt keeps the crawler from ends the chain:
// the crawler records no fetch time for it, and would be refused again. A
// chain that comes back to one of its URLs, goes past
// crawler.limits.max_redirects redirects in a row (LimitRedirects), or
// leads to no http or https URL is a failure (c.failure) saying which,
// unless a target along it is awaited: its fetch may end the chain
// otherwise.
func (p *Poller) throughRedirects(pg repo.Page, since time.Time) (end repo.Page, c storedCopy, err error) {
	most := int(p.maxRedirects.Load())
	c.seen = pg.LastFetch
	if !since.IsZero() && since.Before(c.seen) {
		c.seen = since
	}
	chain := []string{pg.URL}
	for pg.LastOutcome == repo.OutcomeRedirect {
		to := pg.RedirectTo
		var why string
		if redirect.WebURL(to) {
			why = redirect.Refusal(chain, to, most)
		} else {
			// The crawler keeps no Location it could not resolve to an
			// http or https URL other than the page's own.
			why = fmt.Sprintf("%s answered a redirect (status %d) to no http or https URL (the Location is missing, of another scheme, or %s itself)",
				strings.Join(chain, " → "), pg.HTTPStatus, pg.URL)
		}
		if why != "" {
			if len(c.awaits) > 0 {
				return pg, c, nil
			}
			return pg, storedCopy{failure: fmt.Errorf("poll: watched page %s: %s; not followed", chain[0], why)}, nil
		}
		next, err := p.db.Page(to)
		switch {
		case errors.Is(err, repo.ErrNotFound):
			c.awaits = append(c.awaits, to)
			return pg, c, nil
		case err != nil:
			return pg, storedCopy{}, fmt.Errorf("poll: page %s: %w", to, err)
		case next.LastOutcome == repo.OutcomeDisallowed:
		case next.LastFetch.IsZero() || next.LastFetch.Before(c.seen):
			c.awaits = append(c.awaits, to)
		}
		chain = append(chain, to)
		pg = next
	}
	return pg, c, nil
}

// A check's first sighting (checkSince) is kept in the repository while the
// check waits, so that a restart goes on with it: bucket waitBucket, key
// waitPrefix + the watched URL, value waitFormat and the sighting's Unix
// nanoseconds (8 bytes, big-endian). Without it a restarted poller would
// judge the targets against the watched page's last poll, and a target
// fetched between the sighting and that poll would be asked for again.
const (
	waitBucket = "poll"
	waitPrefix = "w/"
	waitFormat = 0x01
)

// loadWaits reads the kept first sightings of the URLs watched in groups;
// those of URLs no longer watched are removed.
func (p *Poller) loadWaits(ctx context.Context, groups map[string][]string) (map[string]time.Time, error) {
	since := map[string]time.Time{}
	var gone []string
	for kv, err := range p.db.BucketScan(ctx, waitBucket, waitPrefix) {
		if err != nil {
			return nil, fmt.Errorf("poll: redirect waits: %w", err)
		}
		u := strings.TrimPrefix(string(kv[0]), waitPrefix)
		if len(groups[u]) == 0 {
			gone = append(gone, u)
			continue
		}
		v := kv[1]
		if len(v) != 9 || v[0] != waitFormat {
			return nil, fmt.Errorf("poll: redirect wait of %s: %d bytes starting %#x, want 9 starting %#02x", u, len(v), v[:min(len(v), 1)], waitFormat)
		}
		since[u] = time.Unix(0, int64(binary.BigEndian.Uint64(v[1:])))
	}
	return since, p.endWaits(ctx, gone...)
}

// keepWait keeps u's first sighting seen while its check waits.
func (p *Poller) keepWait(ctx context.Context, u string, seen time.Time) error {
	b := p.db.NewBatch(ctx)
	defer b.Close()
	v := binary.BigEndian.AppendUint64([]byte{waitFormat}, uint64(seen.UnixNano()))
	if err := b.PutBucket(waitBucket, waitPrefix+u, v); err != nil {
		return err
	}
	return b.Commit()
}

// endWaits removes the kept first sightings of urls: their checks no
// longer wait.
func (p *Poller) endWaits(ctx context.Context, urls ...string) error {
	if len(urls) == 0 {
		return nil
	}
	b := p.db.NewBatch(ctx)
	defer b.Close()
	for _, u := range urls {
		if err := b.DeleteBucket(waitBucket, waitPrefix+u); err != nil {
			return err
		}
	}
	return b.Commit()
}
