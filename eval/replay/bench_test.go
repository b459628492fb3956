package replay

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/deltaq/deltaq/eval/archive"
)

// BenchmarkServe measures requests per second end to end over loopback TCP
// (client, kernel and server on the same machine), with a few keep-alive
// connections in parallel as a crawler would use, against week 47 of
// tldr-en. Sub-benchmarks: full pages (200), revalidations that match
// (304), and missing pages (404).
func BenchmarkServe(b *testing.B) {
	a := realArchive(b, "tldr-en")
	const week = 47
	pages := a.Week(week)
	srv, err := New([]*archive.Archive{a}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.SetWeek(week); err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()

	cases := []struct {
		name string
		want int
		req  func(p archive.Page) *http.Request
	}{
		{"200", http.StatusOK, func(p archive.Page) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+p.URL, nil)
			return req
		}},
		{"304", http.StatusNotModified, func(p archive.Page) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+p.URL, nil)
			req.Header.Set("If-None-Match", `"`+p.Hash+`"`)
			return req
		}},
		{"404", http.StatusNotFound, func(p archive.Page) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+p.URL+".missing", nil)
			return req
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var next, bytes atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(2)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p := pages[int(next.Add(1))%len(pages)]
					req := tc.req(p)
					req.Host = "tldr-en.test"
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					n, err := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != tc.want {
						b.Errorf("GET %s: status %d, err %v", p.URL, resp.StatusCode, err)
						return
					}
					bytes.Add(n)
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(bytes.Load())/float64(b.N), "B/resp")
		})
	}
}

// BenchmarkHandler measures the handler alone (no network): the server's
// own cost per page request, which must stay small next to the crawler's.
func BenchmarkHandler(b *testing.B) {
	a := realArchive(b, "tldr-en")
	pages := a.Week(0)
	srv, err := New([]*archive.Archive{a}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]*http.Request, len(pages))
	for i, p := range pages {
		reqs[i] = httptest.NewRequest(http.MethodGet, "http://tldr-en.test"+p.URL, nil)
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		clear(w.h)
		srv.ServeHTTP(w, reqs[i%len(reqs)])
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// discardWriter is a ResponseWriter that keeps only the status.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
