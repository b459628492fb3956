package crawler_test

import (
	"net/http/httptest"
	"testing"

	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/internal/datasets"
)

// BenchmarkCrawlReplay measures end-to-end pages/s (fetch over loopback
// HTTP, parse, sign, store in Pebble with a synced batch per group) of a
// full crawl of one archive week, politeness off for the replay host.
func BenchmarkCrawlReplay(b *testing.B) {
	for _, name := range []string{"tldr-en", "digitalgov-2023"} {
		b.Run(name, func(b *testing.B) {
			_, rs := replaytest.Open(b, datasets.Path(b, "archives", name), replay.Options{})
			srv := httptest.NewServer(rs)
			defer srv.Close()
			host := name + ".test"
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
