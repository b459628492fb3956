package crawler_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/internal/datasets"
)

// benchArchives are the archives the crawl benchmarks crawl.
var benchArchives = []string{"tldr-en", "digitalgov-2023"}

// serveArchive serves week 0 of a real archive on loopback; its host is
// name + ".test".
func serveArchive(b *testing.B, name string) (*httptest.Server, string) {
	_, rs := replaytest.Open(b, datasets.Path(b, "archives", name), replay.Options{})
	srv := httptest.NewServer(rs)
	b.Cleanup(srv.Close)
	return srv, name + ".test"
}

// BenchmarkCrawlReplay measures end-to-end pages/s (fetch over loopback
// HTTP, parse, sign, store in Pebble with a synced batch per group) of a
// full crawl of one archive week, politeness off for the replay host.
func BenchmarkCrawlReplay(b *testing.B) {
	for _, name := range benchArchives {
		b.Run(name, func(b *testing.B) {
			srv, host := serveArchive(b, name)
			var pages int64
			var secs float64
			for b.Loop() {
				cfg := defaults(b)
				loopback(cfg, srv, host)
				unpolite(cfg, 16, host)
				cfg.Crawler.Politeness.Global = 16
				e := newEnv(b, cfg, b.TempDir(), nil)
				sum := e.crawl(b, "http://"+host+"/")
				pages += sum.Fetched()
				secs += sum.Elapsed.Seconds()
			}
			b.ReportMetric(float64(pages)/secs, "pages/s")
		})
	}
}

// benchParallelism is the requests in flight of both crawlers in
// BenchmarkCrawlVsColly, all to the one replay host.
const benchParallelism = 8

// BenchmarkCrawlVsColly crawls the same loopback replay with deltaq (fetch,
// robots.txt, parse, shingle, durable Pebble commit) and with a plain Colly
// breadth-first crawler (fetch, goquery parse, follow a[href]; nothing
// stored), both with benchParallelism requests in flight to the host and
// no delay. Each b.Loop round runs both, alternating which goes first, so a
// shared machine's load falls on both alike. Reported: pages/s of each and
// their ratio (deltaq-x-colly, the target being ≥ 0.8 on tldr-en and ≥ 1.0
// on digitalgov-2023), process CPU time per page of each (user+system, the
// in-process replay server included for both), and pages fetched per
// round by each. Run it with -benchtime 5x for five rounds.
func BenchmarkCrawlVsColly(b *testing.B) {
	for _, name := range benchArchives {
		b.Run(name, func(b *testing.B) {
			srv, host := serveArchive(b, name)
			var dq, cl crawlRun
			round := 0
			for b.Loop() {
				runs := []func(){
					func() { dq.add(deltaqCrawl(b, srv, host)) },
					func() { cl.add(collyCrawl(b, srv, host)) },
				}
				if round%2 == 1 {
					runs[0], runs[1] = runs[1], runs[0]
				}
				for _, run := range runs {
					run()
				}
				round++
			}
			b.ReportMetric(dq.rate(), "deltaq-pages/s")
			b.ReportMetric(cl.rate(), "colly-pages/s")
			b.ReportMetric(dq.rate()/cl.rate(), "deltaq-x-colly")
			b.ReportMetric(dq.cpuPerPage(), "deltaq-cpu-µs/page")
			b.ReportMetric(cl.cpuPerPage(), "colly-cpu-µs/page")
			b.ReportMetric(float64(dq.pages)/float64(round), "deltaq-pages")
			b.ReportMetric(float64(cl.pages)/float64(round), "colly-pages")
		})
	}
}

// crawlRun adds up the rounds of one crawler.
type crawlRun struct {
	pages int64
	wall  time.Duration
	cpu   time.Duration
}

func (r *crawlRun) add(o crawlRun) {
	r.pages += o.pages
	r.wall += o.wall
	r.cpu += o.cpu
}

func (r *crawlRun) rate() float64 { return float64(r.pages) / r.wall.Seconds() }

func (r *crawlRun) cpuPerPage() float64 {
	return float64(r.cpu.Microseconds()) / float64(r.pages)
}

// measure runs crawl and returns its wall and process CPU time.
func measure(b *testing.B, crawl func() int64) crawlRun {
	b.Helper()
	cpu0 := crawler.ProcessCPU(b)
	start := time.Now()
	pages := crawl()
	return crawlRun{pages: pages, wall: time.Since(start), cpu: crawler.ProcessCPU(b) - cpu0}
}

// deltaqCrawl crawls the replay as `deltaq crawl` would, over links only
// (sitemaps off, so both crawlers find pages the same way).
func deltaqCrawl(b *testing.B, srv *httptest.Server, host string) crawlRun {
	cfg := defaults(b)
	loopback(cfg, srv, host)
	unpolite(cfg, benchParallelism, host)
	cfg.Crawler.Politeness.Global = benchParallelism
	cfg.Crawler.Sitemaps = false
	e := newEnv(b, cfg, b.TempDir(), nil)
	return measure(b, func() int64 { return e.crawl(b, "http://"+host+"/").Fetched() })
}

// collyCrawl crawls the replay breadth-first with Colly as its
// documentation shows it, on a transport that dials the replay server and
// keeps as many idle connections as requests in flight.
func collyCrawl(b *testing.B, srv *httptest.Server, host string) crawlRun {
	addr := srv.Listener.Addr().String()
	var d net.Dialer
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: benchParallelism,
	}
	defer transport.CloseIdleConnections()
	c := colly.NewCollector(colly.AllowedDomains(host), colly.Async(true))
	c.WithTransport(transport)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: benchParallelism}); err != nil {
		b.Fatal(err)
	}
	var pages atomic.Int64
	c.OnResponse(func(*colly.Response) { pages.Add(1) })
	c.OnError(func(*colly.Response, error) { pages.Add(1) }) // a 404 is a page fetched too
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		// Visit refuses URLs already visited or on other hosts; that is
		// the breadth-first walk, not a failure.
		if err := e.Request.Visit(e.Attr("href")); err != nil {
			return
		}
	})
	return measure(b, func() int64 {
		if err := c.Visit("http://" + host + "/"); err != nil {
			b.Fatal(err)
		}
		c.Wait()
		return pages.Load()
	})
}
