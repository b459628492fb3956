package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/web"
)

// stack is the search engine over digitalgov-2023 week 0: repository,
// index, PageRank, ranking with promotion, ads, and the HTTP server.
type stack struct {
	srv     *httptest.Server
	engine  *web.Engine
	ix      *index.Index
	cfg     *configs.Config
	queries []string
	pages   []pageText // what was indexed, for the bare server beside it
}

type pageText struct{ url, title, text string }

// newStack loads week 0 into a repository the way the crawler stores it
// (pages, versions, links, the change feed) and builds the rest on it.
func newStack(tb testing.TB) *stack {
	tb.Helper()
	cfg, db := openDefaultRepo(tb)
	a, err := archive.Open(datasets.Path(tb, "archives", "digitalgov-2023"))
	if err != nil {
		tb.Fatal(err)
	}
	at := a.Date(0)
	b := db.NewBatch(context.Background())
	var pages []pageText
	for p := range a.Pages(0) {
		u, err := urlnorm.Normalize("http://digitalgov-2023.test" + p.URL)
		if err != nil {
			tb.Fatal(err)
		}
		base, _ := url.Parse(u)
		doc, err := extract.HTML(p.Body, "text/html; charset=utf-8", base, cfg.Crawler.Extract)
		if err != nil {
			tb.Fatal(err)
		}
		var links []repo.Link
		for _, l := range doc.Links {
			links = append(links, repo.Link{URL: l.URL})
		}
		err = errorsJoin(
			b.PutPage(&repo.Page{URL: u, State: repo.StateLive, Fetches: 1, LastFetch: at, Version: at, Title: doc.Title}),
			b.AddVersion(u, &repo.Version{FetchedAt: at, Title: doc.Title, Text: doc.Text}),
			b.SetOutLinks(u, links),
		)
		if err != nil {
			tb.Fatal(err)
		}
		b.AppendChange(u, repo.ChangeUpsert, at)
		pages = append(pages, pageText{u, doc.Title, doc.Text})
	}
	if err := b.Commit(); err != nil {
		tb.Fatal(err)
	}
	srv, e, ix := serveRepo(tb, cfg, db)
	s := &stack{srv: srv, engine: e, ix: ix, cfg: cfg, pages: pages}
	qs, err := querylog.Load(datasets.Path(tb, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		tb.Fatal(err)
	}
	for _, q := range qs {
		res, err := e.Search(context.Background(), web.Request{Query: q.Text, Page: 1, Size: 10})
		if err != nil || res.Total == 0 {
			continue
		}
		if s.queries = append(s.queries, q.Text); len(s.queries) == 200 {
			break
		}
	}
	return s
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func percentiles(ds []time.Duration) (p50, p99 float64) {
	slices.Sort(ds)
	return float64(quantile(ds, 0.50)) / 1e6, float64(quantile(ds, 0.99)) / 1e6
}

// quantile is the q-quantile of sorted values: the value at rank
// q·(n−1), rounded down.
func quantile[T any](sorted []T, q float64) T {
	return sorted[int(q*float64(len(sorted)-1))]
}

// BenchmarkSearchHTTP measures GET /api/v1/search over loopback HTTP with
// the whole engine behind it (index retrieval, ranking with randomized
// promotion, snippets, ads) on digitalgov-2023 week 0 with the trec-mq
// queries that match it, for 1 and 8 concurrent clients: p50 and p99 per
// request, and requests per second.
func BenchmarkSearchHTTP(b *testing.B) {
	s := newStack(b)
	if len(s.queries) < 50 {
		b.Fatalf("only %d matching queries", len(s.queries))
	}
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			client := newClient(b, clients)
			var ds []time.Duration
			var total time.Duration
			n := 0
			for b.Loop() {
				start := time.Now()
				ds = append(ds, sendAll(b, client, s.srv.URL+apiPath, s.queries, clients)...)
				total += time.Since(start)
				n += len(s.queries)
			}
			p50, p99 := percentiles(ds)
			b.ReportMetric(p50, "p50-ms")
			b.ReportMetric(p99, "p99-ms")
			b.ReportMetric(float64(n)/total.Seconds(), "queries/s")
		})
	}
}

// apiPath is deltaq's JSON search path, a query to follow.
const apiPath = "/api/v1/search?q="

// apiTitlesPath is apiPath answering each result's URL, title and score
// alone.
const apiTitlesPath = "/api/v1/search?fields=url,title,score&q="

// newClient returns an HTTP client keeping a connection per client
// goroutine of sendAll, closed when b ends.
func newClient(b *testing.B, clients int) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// sendAll sends every query once, base followed by the query escaped,
// from clients goroutines, one request at a time each, and returns the
// latencies.
func sendAll(b *testing.B, client *http.Client, base string, queries []string, clients int) []time.Duration {
	var mu sync.Mutex
	var ds []time.Duration
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := c; i < len(queries); i += clients {
				t0 := time.Now()
				res, err := client.Get(base + url.QueryEscape(queries[i]))
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Errorf("%s: status %d", queries[i], res.StatusCode)
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			ds = append(ds, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return ds
}
