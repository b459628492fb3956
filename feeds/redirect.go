package feeds

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/deltaq/deltaq/internal/redirect"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Move is a permanent redirect a feed followed: its URL was From and is
// To since At (the crawler's fetch that answered Status).
type Move struct {
	From   string    `json:"from"`
	To     string    `json:"to"`
	Status int       `json:"status"`
	At     time.Time `json:"at"`
}

func (m Move) String() string { return fmt.Sprintf("%s → %s (HTTP %d)", m.From, m.To, m.Status) }

// RedirectError is a redirect a feed did not follow, and why: the feed
// stays at From, and this is its last error.
type RedirectError struct {
	From, To string
	Status   int
	Why      string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("fetch outcome redirect: HTTP %d to %s, not followed: %s", e.Status, e.To, e.Why)
}

// permanent reports whether a redirect's status moves a resource for
// good (RFC 9110 §15.4: 301 and 308); 302, 303 and 307 are for this
// request alone.
func permanent(status int) bool { return status == 301 || status == 308 }

// movedTo is the id of the feed a permanent redirect moved to URL u
// ("u/<IDOf(u)>"), "" if none did.
func (s *Store) movedTo(u string) (string, error) {
	v, err := s.db.Bucket(Bucket, movedPrefix+IDOf(u))
	switch {
	case errors.Is(err, repo.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	return string(v), nil
}

// ownerOf is the id of the feed whose URL is u now, "" if none: the feed
// moved to u, else the feed subscribed at u unless it moved away.
func (s *Store) ownerOf(u string) (string, error) {
	if id, err := s.movedTo(u); err != nil || id != "" {
		return id, err
	}
	f, err := s.record(IDOf(u))
	switch {
	case errors.Is(err, ErrUnknownFeed):
		return "", nil
	case err != nil:
		return "", err
	case f.URL != u:
		return "", nil // moved away
	}
	return f.ID, nil
}

// Lookup is the id of the feed rawURL names: the feed at that URL now
// (one a redirect moved there too), else the feed first subscribed at it
// that a redirect has moved since. ErrUnknownFeed if none.
func (s *Store) Lookup(rawURL string) (string, error) {
	u, err := urlnorm.Normalize(rawURL)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrUnknownFeed, urlnorm.Quote(rawURL))
	}
	id, err := s.movedTo(u)
	if err != nil {
		return "", err
	}
	id = cmp.Or(id, IDOf(u))
	if _, err := s.record(id); err != nil {
		return "", err
	}
	return id, nil
}

// follow moves feed id to the target of the permanent redirect its
// crawled page p answered, in one batch: the record (URL, MovedFrom, the
// chain of redirects, the poll counted; validators and the copy read
// reset, since they were the old URL's) and the URL index ("u/"). The
// lists, items, river entries and plan are keyed by the id and stay. It
// refuses, as a RedirectError, a target that is not an http or https URL,
// has credentials, is another feed's URL, comes back to a URL of the
// chain (a loop) or is one redirect more than the store's limit in a row
// (LimitRedirects). A nil Move and no error: the feed is no longer at
// p's URL (another poll moved it).
func (s *Store) follow(ctx context.Context, id string, p repo.Page) (*Move, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if f.URL != p.URL {
		return nil, nil
	}
	refuse := func(why string, args ...any) error {
		return &RedirectError{From: f.URL, To: p.RedirectTo, Status: p.HTTPStatus, Why: fmt.Sprintf(why, args...)}
	}
	if !redirect.WebURL(p.RedirectTo) {
		return nil, refuse("not an absolute http or https URL")
	}
	if t, _ := url.Parse(p.RedirectTo); t.User != nil {
		return nil, refuse("it has credentials (user:pass@), and feeds are fetched without them")
	}
	to, err := urlnorm.Normalize(p.RedirectTo)
	if err != nil {
		return nil, refuse("not an http or https URL a feed can have (%v)", err)
	}
	chain := append(slices.Clone(f.Redirects), f.URL)
	if why := redirect.Refusal(chain, to, int(s.maxRedirects.Load())); why != "" {
		return nil, refuse("%s; the feed stays at %s", why, f.URL)
	}
	switch other, err := s.ownerOf(to); {
	case err != nil:
		return nil, err
	case other != "" && other != id:
		return nil, refuse("%s is the URL of feed %s already; the two are one feed now: remove one (deltaq feeds rm %s)", to, other, id)
	}
	b := s.db.NewBatch(ctx)
	defer b.Close()
	if IDOf(f.URL) != id {
		if err := b.DeleteBucket(Bucket, movedPrefix+IDOf(f.URL)); err != nil {
			return nil, err
		}
	}
	if IDOf(to) != id {
		if err := b.PutBucket(Bucket, movedPrefix+IDOf(to), []byte(id)); err != nil {
			return nil, err
		}
	}
	mv := &Move{From: f.URL, To: to, Status: p.HTTPStatus, At: p.LastFetch}
	f.MovedFrom, f.Moved, f.Redirects, f.URL = f.URL, p.LastFetch, chain, to
	f.LastFetch, f.LastStatus, f.LastError, f.Awaits = p.LastFetch, p.HTTPStatus, "", ""
	f.Fetches++
	f.ETag, f.LastModified, f.Read, f.Resubscribed = "", "", time.Time{}, time.Time{}
	if err := s.put(b, &f, false); err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	s.edits.Add(1)
	return mv, nil
}
