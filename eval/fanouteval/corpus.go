package fanouteval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"time"

	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// Page is one archive page as the crawler stores it.
type Page struct {
	URL, Host   string
	Title, Text string
}

// Partition says how pages are split over the shards.
type Partition string

const (
	// ByHost: each host to one of the cluster's host shards
	// (cluster.ShardOf of the host among cluster.shards), the shards dealt
	// to the S nodes in turn (shard i to node i mod S), as the crawl
	// cluster's leases spread them evenly.
	ByHost Partition = "host"
	// ByURL: each page to a node by its URL (cluster.ShardOf of the URL
	// among S): every node holds a sample of every host, the statistics'
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

// NodeOf is the node of pg among nodes, hostShards the cluster's host
// shards (cluster.shards; ByHost only).
func (p Partition) NodeOf(pg Page, nodes, hostShards int) int {
	if p == ByHost {
		return cluster.ShardOf(pg.Host, hostShards) % nodes
	}
	return cluster.ShardOf(pg.URL, nodes)
}

// ExtractWeek extracts week w of each archive as the replay serves it (host
// <name>.test) and the crawler extracts it.
func ExtractWeek(archives []*archive.Archive, w int, lim extract.Limits) ([]Page, error) {
	var out []Page
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
			out = append(out, Page{URL: u, Host: host, Title: doc.Title, Text: doc.Text})
		}
	}
	return out, nil
}

// PutPages commits pages to db as the crawler commits fetches
// (repo.DB.PutFetched).
func PutPages(ctx context.Context, db *repo.DB, at time.Time, pages []Page) error {
	fetched := make([]repo.Fetched, len(pages))
	for i, p := range pages {
		fetched[i] = repo.Fetched{URL: p.URL, Title: p.Title, Text: p.Text}
	}
	return db.PutFetched(ctx, at, fetched)
}

// Build indexes pages, fetched at at, into a fresh repository and index
// under dir, as a crawl and the index following it would; close releases
// both.
func Build(ctx context.Context, dir string, icfg index.Config, rcfg repo.Config, pages []Page, at time.Time, logger *slog.Logger) (ix *index.Index, close func() error, err error) {
	db, err := repo.Open(filepath.Join(dir, "repo"), rcfg, repo.Options{Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	if err := PutPages(ctx, db, at, pages); err != nil {
		db.Close()
		return nil, nil, err
	}
	// Segments merge only in Compact, once every page is in: no
	// background merge runs beside the queries. Document numbers, which
	// break the single index's ties, still follow Bleve's order within a
	// batch, which is not fixed (see the package doc).
	if ix, err = index.Open(filepath.Join(dir, "index"), icfg, db, index.Options{Logger: logger, MergeOnlyOnCompact: true}); err != nil {
		db.Close()
		return nil, nil, err
	}
	close = func() error { return errors.Join(ix.Close(), db.Close()) }
	if _, err := ix.CatchUp(ctx); err != nil {
		close()
		return nil, nil, err
	}
	if err := ix.Compact(ctx); err != nil {
		close()
		return nil, nil, err
	}
	return ix, close, nil
}
