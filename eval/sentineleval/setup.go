package sentineleval

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// watchConfig is the sentinel configuration of every run: WebCQ's
// defaults (10-word boxes, 5-word phrases, one year).
func watchConfig() watch.Config {
	return watch.Config{ContextWords: 10, PhraseMinWords: 5, MaxBodyBytes: 8 << 20, FetchTimeout: 30 * time.Second,
		MaxRegexBytes: 512, MaxMatchBytes: 64 << 10, MaxKeywords: 8, Duration: 365 * 24 * time.Hour,
		HistoryKept: 4, DigestKept: 4, MaxRequestBytes: 1 << 16, Tick: time.Minute, ChecksPerTick: 10, Diff: diff.Options{Timeout: time.Second, MaxBytes: 64 << 10}, Extract: extractLimits}
}

var extractLimits = extract.Limits{MaxLinks: 5000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 500000}

// served is an archive behind a replay server on loopback.
type served struct {
	a    *archive.Archive
	rs   *replay.Server
	srv  *httptest.Server
	host string // http://<name>.test
}

func serve(dir string) (*served, error) {
	a, err := archive.Open(dir)
	if err != nil {
		return nil, err
	}
	rs, err := replay.New([]*archive.Archive{a}, replay.Options{})
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(rs)
	return &served{a: a, rs: rs, srv: srv, host: "http://" + a.Name() + ".test"}, nil
}

func (s *served) close() { s.srv.Close() }

// fetcher reaches the replay server for any host, as the crawler's
// --resolve does.
func (s *served) fetcher() watch.HTTPFetcher {
	addr := s.srv.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}, MaxIdleConnsPerHost: 4}
	return watch.HTTPFetcher{Client: &http.Client{Timeout: 30 * time.Second, Transport: tr}, MaxBytes: 8 << 20, MaxRedirects: 5}
}

// repoConfig is the repository of every run; only the watch bucket is used.
var repoConfig = repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 64 << 20}

// tempRepo opens a repository in a fresh directory under dir; done closes
// and removes it.
func tempRepo(dir string) (*repo.DB, func() error, error) {
	d, err := os.MkdirTemp(dir, "repo-")
	if err != nil {
		return nil, nil, fmt.Errorf("sentinels: %w", err)
	}
	db, err := repo.Open(d, repoConfig, repo.Options{})
	if err != nil {
		os.RemoveAll(d)
		return nil, nil, err
	}
	return db, func() error { return errors.Join(db.Close(), os.RemoveAll(d)) }, nil
}

// interrupted is err, unless ctx was cancelled (Ctrl-C): then whatever
// failed failed for that, and the error is the cancellation's cause, not
// an invalid sentinel or a failed check that would blame the page.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("sentinels: %w", context.Cause(ctx))
	}
	return err
}
