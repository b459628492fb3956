package crawler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/repo"
)

// BenchmarkFetch measures one GET of a tldr-en page over loopback with
// keep-alive, through the crawler's net/http fetcher and through Colly
// driven the way the crawler drove it until Colly was taken out (a clone
// of a base collector per request, a response-headers callback for the
// content-type and size checks, a response callback, Colly's charset
// conversion): the time and allocations Colly added to every fetch.
func BenchmarkFetch(b *testing.B) {
	a, err := archive.Open(datasets.Path(b, "archives", "tldr-en"))
	if err != nil {
		b.Fatal(err)
	}
	rs, err := replay.New([]*archive.Archive{a}, replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(rs)
	defer srv.Close()
	pages := a.Week(0)
	cfg := Config{UserAgent: "deltaq-bench", AllowPrivate: true, ContentTypes: []string{"text/html"},
		Resolve:    []string{"tldr-en.test=" + srv.Listener.Addr().String()},
		Politeness: PolitenessConfig{PerHost: 1, Global: 1}, Limits: LimitsConfig{MaxBodyBytes: 5 << 20},
		Timeouts: TimeoutsConfig{Request: 30 * time.Second, Connect: 10 * time.Second, TLSHandshake: 10 * time.Second,
			ResponseHeader: 10 * time.Second, Idle: 90 * time.Second}}
	d, err := newDialer(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		name string
		get  func(url string)
	}{
		{"net-http", func() func(string) {
			f := newFetcher(cfg, newTransport(cfg, d), clock.Real{}, false)
			return func(url string) {
				if r := f.fetch(ctx, url, nil); r.outcome != repo.OutcomeOK {
					b.Fatalf("%s: %s %v", url, r.outcome, r.err)
				}
			}
		}()},
		{"colly", func() func(string) {
			base := colly.NewCollector(colly.UserAgent(cfg.UserAgent), colly.AllowURLRevisit(),
				colly.IgnoreRobotsTxt(), colly.ParseHTTPErrorResponse())
			base.SetClient(&http.Client{Transport: newTransport(cfg, d), Timeout: cfg.Timeouts.Request,
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }})
			return func(url string) {
				c := base.Clone()
				c.Context = ctx
				c.MaxBodySize = cfg.Limits.MaxBodyBytes + 1
				c.OnResponseHeaders(func(r *colly.Response) {
					if r.Headers.Get("Content-Type") == "" {
						r.Request.Abort()
					}
				})
				var got *colly.Response
				c.OnResponse(func(r *colly.Response) { got = r })
				h := http.Header{"Accept": {accept}}
				if err := c.Request(http.MethodGet, url, nil, nil, h); err != nil || got == nil {
					b.Fatalf("%s: %v", url, err)
				}
			}
		}()},
	}
	// One GET of each per round, alternating which goes first, so the load
	// of a shared machine falls on both alike.
	// Process CPU time (client and in-process server) is what a loaded
	// machine distorts least; wall time is reported beside it.
	var took, cpu [2]time.Duration
	i := 0
	for b.Loop() {
		url := "http://tldr-en.test" + pages[i%len(pages)].URL
		for k := range cases {
			k = (k + i) % len(cases)
			start, cpu0 := time.Now(), ProcessCPU(b)
			cases[k].get(url)
			cpu[k] += ProcessCPU(b) - cpu0
			took[k] += time.Since(start)
		}
		i++
	}
	for k, tc := range cases {
		b.ReportMetric(float64(took[k].Microseconds())/float64(i), tc.name+"-µs/get")
		b.ReportMetric(float64(cpu[k].Microseconds())/float64(i), tc.name+"-cpu-µs/get")
		url := "http://tldr-en.test" + pages[0].URL
		b.ReportMetric(testing.AllocsPerRun(20, func() { tc.get(url) }), tc.name+"-allocs/get")
	}
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "colly-x-net-http-cpu")
}
