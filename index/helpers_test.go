package index

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// testConfig is a complete configuration for tests.
func testConfig(s Scoring) Config {
	return Config{
		Scoring:           s,
		BatchSize:         100,
		PollInterval:      time.Second,
		HistogramBuckets:  8,
		HistogramBatches:  1000,
		HistogramInterval: time.Hour,
		RankCutoff:        64,
		InspectionC:       1,
		WorkloadMaxTerms:  1 << 20,
		MaxQueryBytes:     1000,
		MaxQueryTerms:     32,
		SnippetBytes:      160,
		WorkloadFormat:    "auto",
		// MinResults 1: on the tests' few pages a short query keeps its
		// AND unless nothing has every word.
		Retrieval: RetrievalConfig{K1: 1.2, B: 0.75, ShortQueryTerms: 4, MinResults: 1, FeedbackMaxDF: 1,
			ProximityWindow: 8, ProximityDepth: 100},
	}
}

func repoConfig() repo.Config {
	return repo.Config{VersionsKept: 3, FetchLogKept: 4, StatsKept: 16, CacheBytes: 8 << 20}
}

func openRepo(tb testing.TB, dir string) *repo.DB {
	tb.Helper()
	db, err := repo.Open(dir, repoConfig(), repo.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func openIndex(tb testing.TB, dir string, cfg Config, db *repo.DB, opts Options) *Index {
	tb.Helper()
	ix, err := Open(dir, cfg, db, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// page is one page version to put in the repository.
type page = repo.Fetched

var t0 = time.Date(2023, 1, 30, 12, 0, 0, 0, time.UTC)

// putPages commits the fetch of each page as the crawler does: the page
// record, the new version and an upsert in the change feed (several pages
// per repository batch, to keep fixtures fast).
func putPages(tb testing.TB, db *repo.DB, at time.Time, pages ...page) {
	tb.Helper()
	if err := writePages(db, at, pages...); err != nil {
		tb.Fatal(err)
	}
}

// writePages is putPages for a goroutine other than the test's, which may
// not call Fatal.
func writePages(db *repo.DB, at time.Time, pages ...page) error {
	return db.PutFetched(context.Background(), at, pages)
}

// goPages marks pages gone (404), as the crawler does.
func goPages(tb testing.TB, db *repo.DB, at time.Time, urls ...string) {
	tb.Helper()
	for _, u := range urls {
		b := db.NewBatch(context.Background())
		err := b.PutPage(&repo.Page{URL: u, State: repo.StateGone, LastOutcome: repo.OutcomeGone, HTTPStatus: 404, LastFetch: at})
		b.AppendChange(u, repo.ChangeDelete, at)
		if err == nil {
			err = b.Commit()
		}
		b.Close()
		if err != nil {
			tb.Fatalf("gone %s: %v", u, err)
		}
	}
}

func catchUp(tb testing.TB, ix *Index) Stats {
	tb.Helper()
	st, err := ix.CatchUp(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// corpus is the extracted text of one archive week.
type corpus struct {
	pages []page
	byURL map[string]page
}

var corpora struct {
	sync.Mutex
	weeks map[int]*corpus
}

// digitalgov returns the pages of week w of the digitalgov-2023 archive,
// extracted the way the crawler extracts them.
func digitalgov(tb testing.TB, w int) *corpus {
	tb.Helper()
	corpora.Lock()
	defer corpora.Unlock()
	if c, ok := corpora.weeks[w]; ok {
		return c
	}
	a, err := archive.Open(datasets.Path(tb, "archives", "digitalgov-2023"))
	if err != nil {
		tb.Fatal(err)
	}
	c := &corpus{byURL: map[string]page{}}
	lim := extract.Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 200000}
	for p := range a.Pages(w) {
		raw := "https://digital.gov" + p.URL
		u, err := urlnorm.Normalize(raw)
		if err != nil {
			tb.Fatalf("normalize %s: %v", raw, err)
		}
		base, err := url.Parse(u)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := extract.HTML(p.Body, "text/html; charset=utf-8", base, lim)
		if err != nil {
			tb.Fatalf("extract %s: %v", u, err)
		}
		pg := page{URL: u, Title: doc.Title, Text: doc.Text}
		c.pages = append(c.pages, pg)
		c.byURL[u] = pg
	}
	if corpora.weeks == nil {
		corpora.weeks = map[int]*corpus{}
	}
	corpora.weeks[w] = c
	return c
}

func trecQueries(tb testing.TB) []querylog.Query {
	tb.Helper()
	qs, err := querylog.Load(datasets.Path(tb, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		tb.Fatal(err)
	}
	return qs
}

func tempDir(tb testing.TB, name string) string {
	return filepath.Join(tb.TempDir(), name)
}

func approx(a, b, tol float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= tol
}

func must[T any](tb testing.TB) func(T, error) T {
	return func(v T, err error) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

// fixture is a read-only index of digitalgov week 0, built once per test
// binary and scoring model and shared by the tests that only search it.
type fixture struct {
	db  *repo.DB
	ix  *Index
	c   *corpus
	dir string
}

var fixtures struct {
	sync.Mutex
	m map[Scoring]*fixture
}

func week0Index(tb testing.TB, s Scoring) *fixture {
	tb.Helper()
	c := digitalgov(tb, 0)
	fixtures.Lock()
	defer fixtures.Unlock()
	if fx, ok := fixtures.m[s]; ok {
		return fx
	}
	dir, err := os.MkdirTemp("", "deltaq-index-fixture-")
	if err != nil {
		tb.Fatal(err)
	}
	db, err := repo.Open(filepath.Join(dir, "repo"), repoConfig(), repo.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	putPages(tb, db, t0, c.pages...)
	cfg := testConfig(s)
	cfg.BatchSize = 500
	ix, err := Open(filepath.Join(dir, "index"), cfg, db, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ix.CatchUp(context.Background()); err != nil {
		tb.Fatal(err)
	}
	fx := &fixture{db: db, ix: ix, c: c, dir: dir}
	if fixtures.m == nil {
		fixtures.m = map[Scoring]*fixture{}
	}
	fixtures.m[s] = fx
	return fx
}

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Lock()
	for _, fx := range fixtures.m {
		fx.ix.Close()
		fx.db.Close()
		os.RemoveAll(fx.dir)
	}
	fixtures.Unlock()
	os.Exit(code)
}

// docFreq is Bleve's document frequency of term on r (TermFieldReader.Count).
func docFreq(ctx context.Context, r bindex.IndexReader, term string) (uint64, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), FieldText, false, false, false)
	if err != nil {
		return 0, err
	}
	n := tfr.Count()
	return n, tfr.Close()
}
