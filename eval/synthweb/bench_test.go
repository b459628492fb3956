package synthweb_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/synthweb"
)

// demoConfig is the size suggested for `deltaq demo`: 8 sites × 60 pages.
func demoConfig() synthweb.Config {
	cfg := testConfig()
	cfg.Sites, cfg.PagesPerSite = 8, 60
	cfg.FastChangeInterval, cfg.SlowChangeInterval = 3*time.Minute, 6*time.Hour
	cfg.NewArticleInterval = 90 * time.Second
	return cfg
}

func articleURLs(b *testing.B, w *synthweb.Web, at time.Time) []string {
	var urls []string
	for _, p := range w.Pages(at) {
		if p.Kind == synthweb.KindArticle {
			urls = append(urls, p.URL)
		}
	}
	if len(urls) == 0 {
		b.Fatal("no articles")
	}
	return urls
}

// BenchmarkArticle measures article responses per second, through the
// handler alone and over loopback HTTP, one hour into a demo-sized web.
func BenchmarkArticle(b *testing.B) {
	b.Run("handler", func(b *testing.B) {
		e := newEnv(b, demoConfig())
		at := e.at(time.Hour)
		urls := articleURLs(b, e.web, at)
		reqs := make([]*http.Request, len(urls))
		for i, u := range urls {
			reqs[i] = httptest.NewRequest(http.MethodGet, u, nil)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			rec := httptest.NewRecorder()
			e.web.ServeHTTP(rec, reqs[i%len(reqs)])
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
			i++
		}
		b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "responses/s")
	})
	b.Run("loopback", func(b *testing.B) {
		e := newEnv(b, demoConfig())
		at := e.at(time.Hour)
		urls := articleURLs(b, e.web, at)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if r := e.get(b, urls[i%len(urls)]); r.status != http.StatusOK {
				b.Fatalf("status %d", r.status)
			}
			i++
		}
		b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "responses/s")
	})
}

// BenchmarkPages measures the ground truth of a demo-sized web an hour in.
func BenchmarkPages(b *testing.B) {
	e := newEnv(b, demoConfig())
	at := start.Add(time.Hour)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(e.web.Pages(at))
	}
	b.ReportMetric(float64(n), "pages")
}
