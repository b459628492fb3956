package watch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/crawler/extract"
	"github.com/deltaq/deltaq/diff"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
)

func testConfig() Config {
	return Config{ContextWords: 10, PhraseMinWords: 5, MaxBodyBytes: 4 << 20, FetchTimeout: 10 * time.Second,
		MaxRegexBytes: 256, MaxMatchBytes: 4096, MaxKeywords: 8, Duration: 365 * 24 * time.Hour,
		HistoryKept: 3, DigestKept: 10, MaxRequestBytes: 1 << 16, Tick: time.Minute, ChecksPerTick: 10, Diff: diff.Options{Timeout: time.Second, MaxBytes: 64 << 10},
		Extract: extract.Limits{MaxLinks: 5000, MaxTextBytes: 1 << 20, MaxDepth: 512, MaxNodes: 500000}}
}

func notifyConfig() notify.Config {
	return notify.Config{MaxAttempts: 5, BackoffBase: time.Second, BackoffMax: time.Minute, WebhookTimeout: 5 * time.Second,
		Batch: 64, FeedEntries: 50, Poll: time.Minute, SMTP: notify.SMTPConfig{From: "deltaq@localhost", Timeout: 5 * time.Second}}
}

func openRepo(t testing.TB) *repo.DB {
	t.Helper()
	db, err := repo.Open("", repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 4 << 20}, repo.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// site is a tiny web on loopback whose pages a test rewrites.
type site struct {
	url     string
	mu      sync.Mutex
	pages   map[string]string
	status  map[string]int    // a path's answer when not 200
	ctypes  map[string]string // a path's Content-Type when not HTML
	fetches atomic.Int64
}

func newSite(t testing.TB) *site {
	s := &site{pages: map[string]string{}, status: map[string]int{}, ctypes: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		body, ok := s.pages[r.URL.Path]
		status, ctype := s.status[r.URL.Path], s.ctypes[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		if ctype == "" {
			ctype = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", ctype)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

func (s *site) set(path, body string) string {
	s.mu.Lock()
	s.pages[path] = body
	s.mu.Unlock()
	return s.url + path
}

// answer makes path answer with status (0: 200 again).
func (s *site) answer(path string, status int) {
	s.mu.Lock()
	s.status[path] = status
	s.mu.Unlock()
}

// serveAs makes path's body go out with Content-Type ctype.
func (s *site) serveAs(path, ctype string) {
	s.mu.Lock()
	s.ctypes[path] = ctype
	s.mu.Unlock()
}

// fakeClock is a clock a test moves.
type fakeClock struct{ t atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.t.Store(t.UnixNano())
	return c
}
func (c *fakeClock) now() time.Time      { return time.Unix(0, c.t.Load()).UTC() }
func (c *fakeClock) add(d time.Duration) { c.t.Add(int64(d)) }
func loopbackClient() *http.Client       { return &http.Client{Timeout: 10 * time.Second} }
func fetcher(max int64) HTTPFetcher {
	return HTTPFetcher{Client: loopbackClient(), MaxBytes: max, MaxRedirects: 5}
}
func htmlPage(body string) string {
	return "<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>"
}
func words(n int, prefix string) string { return strings.TrimSpace(strings.Repeat(prefix+" ", n)) }
func dialTo(addr string) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}

func newEngine(t testing.TB, db *repo.DB, ob *notify.Outbox, clk *fakeClock, opts Options) *Engine {
	t.Helper()
	if opts.Fetcher == nil {
		opts.Fetcher = fetcher(4 << 20)
	}
	opts.Clock = clk.now
	e, err := New(db, testConfig(), ob, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}
