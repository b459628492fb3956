package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/watch"
)

// redirectChain serves on loopback /p0 redirecting (302) to /p1 and so on
// to /p<hops>, an HTML page whose text set replaces, and /start, a page of
// no links to seed the crawl's scope with.
func redirectChain(t *testing.T, hops int) (base string, set func(string)) {
	var mu sync.Mutex
	text := "first"
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><p>start</p></body></html>`)
			return
		}
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p"))
		if !strings.HasPrefix(r.URL.Path, "/p") || err != nil || n < 0 || n > hops {
			http.NotFound(w, r)
			return
		}
		if n < hops {
			http.Redirect(w, r, fmt.Sprintf("/p%d", n+1), http.StatusFound)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><p>fees are %s</p></body></html>`, text)
	}))
	t.Cleanup(site.Close)
	return site.URL, func(s string) {
		mu.Lock()
		text = s
		mu.Unlock()
	}
}

// watchChecked installs a watch on base/p0 as of two hours ago, wishing a
// check every hour, so the crawl's monitoring class polls it at once;
// changes the page at the chain's end; and runs deltaq crawl until the
// watch's history shows a check: a change or a failed one. It returns the
// last crawl's output and the history.
func watchChecked(t *testing.T, limit, hops int) (crawlOut, history string) {
	t.Helper()
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the site is on loopback
	t.Setenv("DELTAQ_CRAWLER_POLITENESS_MIN_DELAY", "0s")
	t.Setenv("DELTAQ_CRAWLER_LIMITS_MAX_REDIRECTS", strconv.Itoa(limit))
	base, set := redirectChain(t, hops)
	data := t.TempDir()
	// The seed puts the site's host in the crawl's scope, so the crawler
	// fetches the redirects' targets.
	if out, _, err := run(t, "crawl", "--data", data, "--seeds", base+"/start"); err != nil {
		t.Fatalf("crawl --seeds: %v\n%s", err, out)
	}
	cfg, db := openData(t, data)
	e, err := watch.New(db, cfg.Watch, notify.NewOutbox(db, cfg.Notify), watch.Options{
		Clock: func() time.Time { return time.Now().Add(-2 * time.Hour) },
		// Installing fetches the page through the whole chain, whatever
		// limit the crawl is given.
		Fetcher: watch.HTTPFetcher{Client: &http.Client{Timeout: 10 * time.Second}, MaxBytes: cfg.Watch.MaxBodyBytes, MaxRedirects: hops},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Install(t.Context(), watch.Spec{URL: base + "/p0", Every: time.Hour})
	if err != nil || s.ID != "w1" {
		t.Fatalf("install: %v, %+v", err, s)
	}
	if err := errors.Join(e.Close(), db.Close()); err != nil {
		t.Fatal(err)
	}
	set("second")
	for range hops + 2 {
		out, _, err := run(t, "crawl", "--data", data)
		crawlOut = out
		var herr error
		history, _, herr = run(t, "watch", "history", "w1", "--data", data)
		if herr != nil {
			t.Fatalf("watch history: %v\n%s", herr, history)
		}
		if err != nil {
			t.Fatalf("crawl: %v\n%s\nwatch history, the watch unchecked:\n%s", err, out, history)
		}
		if !strings.Contains(history, "0 changes, 0 failed checks") {
			return crawlOut, history
		}
	}
	t.Fatalf("the watch was not checked within %d crawls:\n%s\n%s", hops+2, crawlOut, history)
	return "", ""
}

// The crawl's monitoring follows a watched page's redirects no further
// than crawler.limits.max_redirects (newMonitoredCrawl's LimitRedirects):
// a 2-hop chain under a limit of 1 is a failed check naming the limit,
// and a 6-hop chain under a limit of 6 is checked on the page at its end,
// where the poller's own default (5) would fail it.
func TestWatchPollFollowsTheConfiguredMaxRedirects(t *testing.T) {
	t.Run("a chain over the limit fails the check", func(t *testing.T) {
		out, hist := watchChecked(t, 1, 2)
		const want = "more than crawler.limits.max_redirects = 1 redirects in a row ("
		if !strings.Contains(hist, want) || !strings.Contains(hist, "0 changes, 1 failed checks") {
			t.Errorf("watch history:\n%s\nwant one failed check saying %q (crawl:\n%s)", hist, want, out)
		}
	})
	t.Run("a chain within the limit is checked at its end", func(t *testing.T) {
		out, hist := watchChecked(t, 6, 6)
		if strings.Contains(hist, "max_redirects") || !strings.Contains(hist, "1 changes, 0 failed checks") {
			t.Errorf("watch history:\n%s\nwant the change of the chain's last page and no failed check (crawl:\n%s)", hist, out)
		}
		if !strings.Contains(out, "1 watch triggers, 0 failed") {
			t.Errorf("crawl:\n%s\nwant the monitoring line to count 1 watch trigger and no failure", out)
		}
	})
}
