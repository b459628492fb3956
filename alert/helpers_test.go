package alert

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

func testConfig() Config { return Config{MaxAlerts: 200000, SnippetBytes: 160} }

func notifyConfig() notify.Config {
	return notify.Config{MaxAttempts: 3, BackoffBase: time.Second, BackoffMax: time.Minute, WebhookTimeout: 5 * time.Second,
		Batch: 64, FeedEntries: 1000, Poll: time.Minute, SMTP: notify.SMTPConfig{From: "deltaq@localhost", Timeout: 5 * time.Second}}
}

// analyzer is the index's text analyzer, from its mapping.
func analyzer(tb testing.TB) analysis.Analyzer {
	tb.Helper()
	m, err := index.NewMapping(index.ScoringBM25)
	if err != nil {
		tb.Fatal(err)
	}
	return m.AnalyzerNamed(index.AnalyzerName)
}

func openRepo(tb testing.TB, dir string) *repo.DB {
	tb.Helper()
	db, err := repo.Open(dir, repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 8 << 20}, repo.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

type page struct{ URL, Title, Text string }

// putPages commits pages as the crawler does: page record, version and
// change-feed entry.
func putPages(tb testing.TB, db *repo.DB, at time.Time, pages ...page) {
	tb.Helper()
	b := db.NewBatch(context.Background())
	defer b.Close()
	var errs []error
	for _, p := range pages {
		errs = append(errs,
			b.PutPage(&repo.Page{URL: p.URL, State: repo.StateLive, LastOutcome: repo.OutcomeOK, HTTPStatus: 200,
				FirstSeen: at, LastFetch: at, Version: at, Title: p.Title, ContentType: "text/html"}),
			b.AddVersion(p.URL, &repo.Version{FetchedAt: at, ContentType: "text/html", Title: p.Title, Text: p.Text}))
		b.AppendChange(p.URL, repo.ChangeUpsert, at)
	}
	if err := errors.Join(errs...); err != nil {
		tb.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		tb.Fatal(err)
	}
}
