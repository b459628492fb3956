package crawler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// removeBatch bounds the pages one batch removes, so removing a large host
// does not build one huge batch.
const removeBatch = 1000

// Removed is what a removal deleted.
type Removed struct {
	Pages, Queued int
}

// RemovePages deletes the pages at urls (normalized) from the repository
// with their queue entries, one atomic batch per page, each appending a
// delete to the change feed the index follows. A URL not in the
// repository is skipped. The crawl must not be running: it holds the
// repository open, so this cannot.
func RemovePages(ctx context.Context, db *repo.DB, urls []string, now time.Time) (Removed, error) {
	var r Removed
	for _, u := range urls {
		b := db.NewBatch(ctx)
		ok, err := b.RemovePage(u, now)
		if err == nil && ok {
			var n int
			n, err = dequeueURL(ctx, db, b, urlnorm.Host(u), u)
			r.Queued += n
		}
		if err == nil && ok {
			err = b.Commit()
		}
		b.Close()
		if err != nil {
			return r, fmt.Errorf("crawler: remove %s: %w", u, err)
		}
		if ok {
			r.Pages++
		}
	}
	return r, nil
}

// CheckHost checks that s names a host as the repository keys hosts:
// host[:port] as urlnorm.Host gives it for a normalized http or https URL
// (lowercase, IDNA in ASCII, no default port). It refuses anything else,
// naming the host to give instead where there is one: a URL gives its host.
func CheckHost(s string) error {
	if strings.Contains(s, "://") {
		n, err := urlnorm.Normalize(s)
		if err != nil {
			return fmt.Errorf("a URL, not a host[:port]: %w", err)
		}
		return fmt.Errorf("a URL, not a host[:port]: its host is %s", urlnorm.Host(n))
	}
	keyed := ""
	for _, scheme := range []string{"http", "https"} {
		n, err := urlnorm.Normalize(scheme + "://" + s + "/")
		if err != nil {
			return fmt.Errorf("not a host[:port]: %w", err)
		}
		switch h := urlnorm.Host(n); {
		case h == s:
			return nil
		case keyed == "":
			keyed = h
		}
	}
	return fmt.Errorf("not a host[:port] as the repository keys hosts: give %s", keyed)
}

// HostKnown reports whether the repository holds a page of host, a queue
// entry of it or its host record.
func HostKnown(ctx context.Context, db *repo.DB, host string) (bool, error) {
	for _, err := range db.HostPages(ctx, host) {
		return err == nil, err
	}
	for class := range repo.NumClasses {
		for _, err := range db.Queue(ctx, host, repo.QueueClass(class), 1) {
			return err == nil, err
		}
	}
	_, err := db.Host(host)
	if errors.Is(err, repo.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// RemoveHost deletes every page of host, its queue and its host record.
func RemoveHost(ctx context.Context, db *repo.DB, host string, now time.Time) (Removed, error) {
	var r Removed
	for {
		var urls []string
		for p, err := range db.HostPages(ctx, host) {
			if err != nil {
				return r, err
			}
			if urls = append(urls, p.URL); len(urls) == removeBatch {
				break
			}
		}
		if len(urls) == 0 {
			break
		}
		b := db.NewBatch(ctx)
		for _, u := range urls {
			if _, err := b.RemovePage(u, now); err != nil {
				b.Close()
				return r, fmt.Errorf("crawler: remove %s: %w", u, err)
			}
		}
		if err := b.Commit(); err != nil {
			b.Close()
			return r, fmt.Errorf("crawler: remove host %s: %w", host, err)
		}
		b.Close()
		r.Pages += len(urls)
	}
	b := db.NewBatch(ctx)
	defer b.Close()
	n, err := dequeueURL(ctx, db, b, host, "")
	if err != nil {
		return r, err
	}
	r.Queued = n
	if err := b.RemoveHost(host); err != nil {
		return r, err
	}
	if err := b.Commit(); err != nil {
		return r, fmt.Errorf("crawler: remove host %s: %w", host, err)
	}
	return r, nil
}

// dequeueURL removes, in b, the queue entries of host for url, or all of
// them if url is "".
func dequeueURL(ctx context.Context, db *repo.DB, b *repo.Batch, host, url string) (int, error) {
	n := 0
	for class := range repo.NumClasses {
		for it, err := range db.Queue(ctx, host, repo.QueueClass(class), 0) {
			if err != nil {
				return n, err
			}
			if url != "" && it.URL != url {
				continue
			}
			if err := b.Dequeue(it.Key()); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
