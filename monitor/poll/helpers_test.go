package poll_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/internal/clock"
	"github.com/deltaq/deltaq/monitor/poll"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
)

// t0 is a Monday 00:00 UTC, so budget periods and instants align with it.
var t0 = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

// web is a loopback server for several host names; a test rewrites its
// pages and counts the requests each receives.
type web struct {
	srv  *httptest.Server
	mu   sync.Mutex
	page map[string]page // "host/path" → page
	hits map[string]int
}

// page is what a path answers: a body of a type, or a redirect (status
// and Location).
type page struct {
	body, ctype string
	status      int
	location    string
}

func newWeb(t *testing.T) *web {
	w := &web{page: map[string]page{}, hits: map[string]int{}}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		k := host + r.URL.Path
		w.mu.Lock()
		w.hits[k]++
		p, ok := w.page[k]
		w.mu.Unlock()
		if !ok {
			http.NotFound(rw, r)
			return
		}
		if p.location != "" {
			rw.Header().Set("Location", p.location)
			rw.WriteHeader(p.status)
			return
		}
		rw.Header().Set("Content-Type", p.ctype)
		fmt.Fprint(rw, p.body)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// port is the server's loopback port, for crawler.resolve.
func (w *web) port() string {
	_, port, _ := net.SplitHostPort(w.srv.Listener.Addr().String())
	return port
}

func (w *web) set(hostPath, ctype, body string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.page[hostPath] = page{body: body, ctype: ctype}
}

// redirect makes hostPath answer status with Location to.
func (w *web) redirect(hostPath string, status int, to string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.page[hostPath] = page{status: status, location: to}
}

// remove makes hostPath answer 404.
func (w *web) remove(hostPath string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.page, hostPath)
}

func (w *web) html(hostPath, text string) {
	w.set(hostPath, "text/html", "<html><body><p>"+text+"</p></body></html>")
}

func (w *web) count(hostPath string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits[hostPath]
}

// client reaches the server whatever host a URL names (the watch engine's
// own fetches at install).
func (w *web) client() *http.Client {
	addr := w.srv.Listener.Addr().String()
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// config is the shipped configuration with the given budget and monitor
// instant, the hosts resolved to w and without politeness delays, and no
// least utility, unless a test sets them.
func config(t *testing.T, w *web, fetches int, period time.Duration, monitorShare float64, instant time.Duration, hosts ...string) *configs.Config {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Crawler.AllowPrivate = true
	cfg.Crawler.Sitemaps = false
	for _, h := range hosts {
		cfg.Crawler.Resolve = append(cfg.Crawler.Resolve, h+"=127.0.0.1:"+w.port())
		cfg.Crawler.Politeness.Overrides = append(cfg.Crawler.Politeness.Overrides, crawler.HostOverride{Host: h, PerHost: 1})
	}
	cfg.Frontier.Budget = frontier.BudgetConfig{Fetches: fetches, Period: period}
	cfg.Frontier.Split = frontier.SplitConfig{Monitor: monitorShare}
	cfg.Monitor.MinUtility = 0
	cfg.Monitor.Instant, cfg.Monitor.Refresh = instant, period
	return cfg
}

// env is one crawling process: repository, crawler, frontier with the
// monitoring class, and the poller over a feed store and a watch engine.
type env struct {
	cfg     *configs.Config
	clk     *clock.Manual
	db      *repo.DB
	c       *crawler.Crawler
	f       *frontier.Frontier
	p       *poll.Poller
	feeds   *feeds.Store
	watches *watch.Engine
	fired   func() // the poller's Options.Fired
	// waits, when set before start, receives each deadline the poller's
	// Run waits for, as it starts to wait (see run).
	waits chan time.Time
}

// open starts a process over the repository in dir (created if new). The
// poller is made by start, after the test has subscribed and installed.
func open(t *testing.T, dir string, cfg *configs.Config, clk *clock.Manual, w *web) *env {
	t.Helper()
	db, err := repo.Open(dir, cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cfg: cfg, clk: clk, db: db}
	t.Cleanup(e.close)
	if e.feeds, err = feeds.NewStore(t.Context(), db, cfg.Feeds); err != nil {
		t.Fatal(err)
	}
	e.watches, err = watch.New(db, cfg.Watch, notify.NewOutbox(db, cfg.Notify), watch.Options{Clock: clk.Now,
		Fetcher: watch.HTTPFetcher{Client: w.client(), MaxBytes: cfg.Watch.MaxBodyBytes, MaxRedirects: cfg.Crawler.Limits.MaxRedirects}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fresh opens a process over a new repository, its clock at t0.
func fresh(t *testing.T, cfg *configs.Config, w *web) (*env, *clock.Manual) {
	clk := clock.NewManual(t0)
	return open(t, t.TempDir(), cfg, clk, w), clk
}

// start builds the poller, crawler and frontier, as cmd/deltaq wires them.
func (e *env) start(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	var err error
	var pollClock clock.Clock = e.clk
	if e.waits != nil {
		pollClock = clock.Reporting{Manual: e.clk, Waits: e.waits}
	}
	if e.p, err = poll.New(ctx, e.db, e.cfg.Monitor, poll.Options{Feeds: e.feeds, FeedsConfig: e.cfg.Feeds, Watches: e.watches, Clock: pollClock, Seed: 1, Fired: e.fired}); err != nil {
		t.Fatal(err)
	}
	if e.c, err = crawler.New(e.cfg.Crawler, e.db, crawler.Options{Clock: e.clk}); err != nil {
		t.Fatal(err)
	}
	policy, err := frontier.NewPolicy(e.cfg.Frontier.Policy, e.cfg.Frontier, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.f, err = frontier.New(ctx, e.db, e.cfg.Frontier, e.c.Gate(), policy, frontier.Options{Clock: e.clk,
		Monitor: e.p, MonitorInstant: e.cfg.Monitor.Instant}); err != nil {
		t.Fatal(err)
	}
}

// running is the poller's Run in its own goroutine.
type running struct {
	t      *testing.T
	waits  <-chan time.Time
	done   chan error
	cancel context.CancelFunc
	once   sync.Once
	err    error // what Run returned, once stop has been called
}

// reportWaits makes the poller start builds tell each of Run's waits on
// a channel, so that a test moves the clock only once Run has finished a
// round. Call it before start.
func (e *env) reportWaits() { e.waits = make(chan time.Time) }

// run starts Run and, if reportWaits was called before start, waits for
// its first round. Run is stopped, and waited for, before the repository
// closes, even if the test fails.
func (e *env) run(t *testing.T) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := &running{t: t, waits: e.waits, done: make(chan error, 1), cancel: cancel}
	go func() { r.done <- e.p.Run(ctx) }()
	t.Cleanup(func() { r.stop() }) // after open's, so it runs before the close
	if e.waits != nil {
		r.round()
	}
	return r
}

// round waits until Run has finished a round and waits for the clock.
func (r *running) round() {
	r.t.Helper()
	if r.waits == nil {
		r.t.Fatal("round without reportWaits before start")
	}
	select {
	case <-r.waits:
	case err := <-r.done:
		r.done <- err // for stop
		r.t.Fatalf("Run returned %v before waiting for the clock", err)
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		r.t.Fatal("Run did not finish a round within a minute")
	}
}

// stop cancels Run and returns what it returned; a second call returns
// the same.
func (r *running) stop() error {
	r.once.Do(func() {
		r.cancel()
		r.err = <-r.done
	})
	return r.err
}

func (e *env) close() {
	if e.watches != nil {
		e.watches.Close()
		e.watches = nil
	}
	if e.db != nil {
		e.db.Close()
		e.db = nil
	}
}

func (e *env) watch(t *testing.T, url string, every time.Duration) {
	t.Helper()
	if _, err := e.watches.Install(t.Context(), watch.Spec{URL: url, Type: watch.Any, Every: every, Mode: watch.Eager}); err != nil {
		t.Fatal(err)
	}
}

// step is one monitor instant at the clock's time: plan the polls, crawl
// until nothing more may start, and hand the fetches to feeds and watches.
func (e *env) step(t *testing.T) (queued int, in poll.Ingested) {
	t.Helper()
	ctx := t.Context()
	queued, err := e.f.PlanMonitor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.crawl(t)
	if in, err = e.p.Ingest(ctx); err != nil {
		t.Fatal(err)
	}
	return queued, in
}

func (e *env) crawl(t *testing.T) crawler.Summary {
	t.Helper()
	sum, err := e.c.Run(t.Context(), e.f, crawler.RunOptions{Drain: true, DrainHorizon: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// seed queues first fetches of n new pages on host, served by w.
func (e *env) seed(t *testing.T, w *web, host string, n int) []string {
	t.Helper()
	var urls []string
	for i := range n {
		w.html(fmt.Sprintf("%s/new%d", host, i), fmt.Sprintf("new page %d", i))
		urls = append(urls, fmt.Sprintf("http://%s/new%d", host, i))
	}
	if _, err := e.c.Seed(t.Context(), e.f, urls); err != nil {
		t.Fatal(err)
	}
	return urls
}

// fetchedOn counts the pages of host the crawler has fetched.
func (e *env) fetchedOn(t *testing.T, host string) int {
	t.Helper()
	n := 0
	for p, err := range e.db.Pages(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.URL, "http://"+host+"/") && p.Fetches > 0 {
			n++
		}
	}
	return n
}

// atom is a feed whose entries are numbered 1..n, newest first.
func atom(n int, at time.Time) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:t</id>`)
	fmt.Fprintf(&b, "<updated>%s</updated>", at.Format(time.RFC3339))
	for i := n; i >= 1; i-- {
		fmt.Fprintf(&b, `<entry><id>urn:e%d</id><title>entry %d</title><link href="http://elsewhere.test/%d"/><updated>%s</updated></entry>`,
			i, i, i, at.Add(-time.Duration(n-i)*time.Hour).Format(time.RFC3339))
	}
	b.WriteString("</feed>")
	return b.String()
}

// watchSpec is a keywords sentinel: a second, different sentinel on a page.
func watchSpec(url string, every time.Duration, keyword string) watch.Spec {
	return watch.Spec{URL: url, Type: watch.Keywords, Keywords: []string{keyword}, Every: every, Mode: watch.Eager}
}
