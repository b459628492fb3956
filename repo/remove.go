package repo

import (
	"errors"
	"fmt"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// RemovePage deletes what the repository holds under url: its record,
// versions, fetch log, statistics and out-links (with the in-link mirror
// of each), and appends a delete to the change feed in the same batch, so
// the index drops the page when it applies the feed. Links other pages
// hold to url stay: they are facts about those pages. Queue entries belong
// to the frontier; the caller removes them with Dequeue. The host's page
// count goes down by one. It reports whether the page existed.
func (b *Batch) RemovePage(url string, at time.Time) (bool, error) {
	s, err := surtOf(url)
	if err != nil {
		return false, err
	}
	p, err := readPage(b.b, url)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	links, err := outLinks(b.ctx, b.b, url)
	if err != nil {
		return false, err
	}
	for _, l := range links {
		ds, err := surtOf(l.URL)
		if err != nil {
			return false, err
		}
		if err := b.del(inLinkKey(ds, s), "in-link"); err != nil {
			return false, err
		}
	}
	for _, prefix := range []byte{prefixVersion, prefixFetchLog, prefixOutLink, prefixStat} {
		start := withSep(prefix, s)
		if err := b.b.DeleteRange(start, prefixEnd(start), nil); err != nil {
			return false, fmt.Errorf("repo: remove %s: %w", url, err)
		}
	}
	if err := b.del(pageKey(s), "page "+url); err != nil {
		return false, err
	}
	if h, err := readHost(b.b, urlnorm.Host(p.URL)); err == nil && h.Pages > 0 {
		h.Pages--
		if err := b.PutHost(&h); err != nil {
			return false, err
		}
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return false, err
	}
	b.AppendChange(url, ChangeDelete, at)
	return true, nil
}

// RemoveHost deletes a host's record (robots.txt, politeness, back-off).
// Its pages go first, through RemovePage.
func (b *Batch) RemoveHost(host string) error {
	return b.del(hostKey(urlnorm.HostKey(host)), "host "+host)
}
