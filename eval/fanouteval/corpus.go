package fanouteval

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// page is one archive page as the crawler stores it.
type page struct {
	url, host   string
	title, text string
}

// Partition says how pages are split over the shards.
type Partition string

const (
	// ByHost: each host to one shard (cluster.ShardOf of the host), as the
	// crawl cluster does.
	ByHost Partition = "host"
	// ByURL: each page to a shard by its URL (cluster.ShardOf of the
	// URL): every shard holds a sample of every host, the statistics'
	// stress test.
	ByURL Partition = "url"
)

// ParsePartition reads a --partition value.
func ParsePartition(s string) (Partition, error) {
	switch p := Partition(s); p {
	case ByHost, ByURL:
		return p, nil
	}
	return "", fmt.Errorf("--partition = %q: must be host or url", s)
}

// shardOf is the shard of pg among s.
func (p Partition) shardOf(pg page, s int) int {
	if p == ByHost {
		return cluster.ShardOf(pg.host, s)
	}
	return cluster.ShardOf(pg.url, s)
}

// pagesOf extracts week w of each archive as the replay serves it (host
// <name>.test) and the crawler extracts it.
func pagesOf(archives []*archive.Archive, w int, lim extract.Limits) ([]page, error) {
	var out []page
	for _, a := range archives {
		if w >= a.Weeks() {
			return nil, fmt.Errorf("week %d: archive %s has %d weeks", w, a.Name(), a.Weeks())
		}
		host := a.Name() + ".test"
		for p := range a.Pages(w) {
			u, err := urlnorm.Normalize("http://" + host + p.URL)
			if err != nil {
				continue // the crawler would not admit it either
			}
			base, err := url.Parse(u)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", u, err)
			}
			doc, err := extract.HTML(p.Body, "text/html; charset=utf-8", base, lim)
			if err != nil {
				continue // a page the crawler would record as unparsable
			}
			out = append(out, page{url: u, host: host, title: doc.Title, text: doc.Text})
		}
	}
	return out, nil
}

// putPages commits pages to db as the crawler commits fetches: the page
// record, its version and an upsert in the change feed the index follows.
func putPages(ctx context.Context, db *repo.DB, at time.Time, pages []page) error {
	for len(pages) > 0 {
		n := min(len(pages), 256)
		b := db.NewBatch(ctx)
		var errs []error
		for _, p := range pages[:n] {
			errs = append(errs,
				b.PutPage(&repo.Page{URL: p.url, State: repo.StateLive, LastOutcome: repo.OutcomeOK, HTTPStatus: 200,
					FirstSeen: at, LastFetch: at, Version: at, Title: p.title, ContentType: "text/html"}),
				b.AddVersion(p.url, &repo.Version{FetchedAt: at, ContentType: "text/html", Title: p.title, Text: p.text}))
			b.AppendChange(p.url, repo.ChangeUpsert, at)
		}
		err := errors.Join(errs...)
		if err == nil {
			err = b.Commit()
		}
		b.Close()
		if err != nil {
			return fmt.Errorf("put pages: %w", err)
		}
		pages = pages[n:]
	}
	return nil
}
