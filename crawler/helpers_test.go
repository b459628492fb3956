package crawler_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/eval/archive/archivetest"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/repo"
)

// env is one crawl set up against loopback servers.
type env struct {
	cfg *configs.Config
	db  *repo.DB
	c   *crawler.Crawler
	f   *frontier.Frontier
}

// defaults are the shipped configuration, as a user gets it.
func defaults(t testing.TB) *configs.Config {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// loopback points the given hosts at srv and allows loopback addresses.
func loopback(cfg *configs.Config, srv *httptest.Server, hosts ...string) {
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cfg.Crawler.AllowPrivate = true
	for _, h := range hosts {
		cfg.Crawler.Resolve = append(cfg.Crawler.Resolve, h+"=127.0.0.1:"+port)
	}
}

// unpolite removes politeness delays for hosts, as for a loopback test web.
func unpolite(cfg *configs.Config, perHost int, hosts ...string) {
	for _, h := range hosts {
		cfg.Crawler.Politeness.Overrides = append(cfg.Crawler.Politeness.Overrides, crawler.HostOverride{Host: h, PerHost: perHost})
	}
}

// serveFixture writes fx as an archive and serves it on loopback through a
// replay server, at week 0; its host is fx.Name + ".test".
func serveFixture(t testing.TB, fx archivetest.Fixture) (*replay.Server, *httptest.Server) {
	t.Helper()
	_, rs := replaytest.Fixture(t, fx, replay.Options{})
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	return rs, srv
}

func newEnv(t testing.TB, cfg *configs.Config, dir string, clk clock.Clock) *env {
	t.Helper()
	return newEnvWith(t, cfg, dir, crawler.Options{Clock: clk})
}

// newEnvWith is newEnv with the crawler's options given whole.
func newEnvWith(t testing.TB, cfg *configs.Config, dir string, opts crawler.Options) *env {
	t.Helper()
	clk := opts.Clock
	db, err := repo.Open(dir, cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := crawler.New(cfg.Crawler, db, opts)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cfg: cfg, db: db, c: c}
	e.f = e.frontier(t, frontier.Options{Clock: clk})
	return e
}

// frontier builds another frontier over the env's repository, under the
// configured policy.
func (e *env) frontier(t testing.TB, opts frontier.Options) *frontier.Frontier {
	t.Helper()
	policy, err := frontier.NewPolicy(e.cfg.Frontier.Policy, e.cfg.Frontier, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := frontier.New(context.Background(), e.db, e.cfg.Frontier, e.c.Gate(), policy, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (e *env) crawl(t testing.TB, seeds ...string) crawler.Summary {
	t.Helper()
	if len(seeds) > 0 {
		if _, err := e.c.Seed(context.Background(), e.f, seeds); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sum, err := e.c.Run(ctx, e.f, crawler.RunOptions{Drain: true, DrainHorizon: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("crawl did not finish: %v", ctx.Err())
	}
	return sum
}

// crawlOnly crawls the paths under base and nothing else (what they link
// to stays queued), and reports which URLs were handed to the index.
func (e *env) crawlOnly(t testing.TB, base string, paths []string) (crawler.Summary, map[string]bool) {
	t.Helper()
	var urls []string
	only := map[string]bool{}
	for _, p := range paths {
		urls = append(urls, base+p)
		only[base+p] = true
	}
	e.f = e.frontier(t, frontier.Options{Only: func(u string) bool { return only[u] }})
	sum := e.crawl(t, urls...)
	changes, err := e.db.Changes(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	indexed := map[string]bool{}
	for _, c := range changes {
		indexed[c.URL] = c.Kind == repo.ChangeUpsert
	}
	return sum, indexed
}

// requestLog records every request a test server receives.
type requestLog struct {
	mu   sync.Mutex
	reqs []request
}

type request struct {
	host, path string
	at         time.Time
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		l.mu.Lock()
		l.reqs = append(l.reqs, request{host: host, path: r.URL.RequestURI(), at: time.Now()})
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) all() []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]request(nil), l.reqs...)
}

func (l *requestLog) count(host, path string) int {
	n := 0
	for _, r := range l.all() {
		if r.host == host && r.path == path {
			n++
		}
	}
	return n
}

// memNet is an in-process network for a test web served inside a
// testing/synctest bubble: connections are net.Pipe pairs, so a goroutine
// waiting on one is durably blocked and the bubble's clock can advance
// (a loopback socket would hold it still). It is both the server's
// listener and the crawler's Dial.
type memNet struct {
	srv   *http.Server
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// serveMem serves h on a new memNet until the test ends.
func serveMem(t testing.TB, h http.Handler) *memNet {
	t.Helper()
	n := &memNet{srv: &http.Server{Handler: h}, conns: make(chan net.Conn), done: make(chan struct{})}
	go n.srv.Serve(n)
	t.Cleanup(n.CloseConnections)
	return n
}

// CloseConnections stops the server and closes every connection to it.
func (n *memNet) CloseConnections() { n.srv.Close() }

func (n *memNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

func (n *memNet) Close() error {
	n.once.Do(func() { close(n.done) })
	return nil
}

func (n *memNet) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }

// Dial connects to the server whatever the address.
func (n *memNet) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-n.done:
		return nil, net.ErrClosed
	}
}
