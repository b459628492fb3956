package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A subscribed feed is polled by `deltaq crawl` through the frontier's
// monitoring class, and the poll's result reaches the feed store.
func TestCrawlPollsSubscribedFeedsThroughTheFrontier(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_ALLOW_PRIVATE", "true") // the feed is on loopback
	var polls atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/feed.xml" {
			http.NotFound(w, r)
			return
		}
		polls.Add(1)
		w.Header().Set("Content-Type", "application/atom+xml")
		at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		fmt.Fprintf(w, `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>f</title><id>urn:f</id><updated>%s</updated>`+
			`<entry><id>urn:2</id><title>two</title><updated>%s</updated></entry><entry><id>urn:1</id><title>one</title><updated>%s</updated></entry></feed>`, at, at, at)
	}))
	defer site.Close()
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", site.URL+"/feed.xml", "--data", data); err != nil {
		t.Fatalf("feeds add: %v\n%s", err, out)
	}
	out, _, err := run(t, "crawl", "--data", data)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	if !strings.Contains(out, "monitoring: 1 polls queued, 1 polled URLs read, 2 new feed items, 0 watch triggers, 0 failed") {
		t.Errorf("crawl summary lacks the monitoring line:\n%s", out)
	}
	if polls.Load() != 1 {
		t.Errorf("feed requested %d times, want 1", polls.Load())
	}
	out, _, err = run(t, "feeds", "list", "--data", data)
	if err != nil || !strings.Contains(out, site.URL+"/feed.xml") {
		t.Fatalf("feeds list: %v\n%s", err, out)
	}
	// The list's columns: id, url, weight, fetches, not modified, postings.
	if fields := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); len(fields) < 6 || fields[3] != "1" || fields[5] != "2" {
		t.Errorf("feeds list after the crawl: %q, want 1 fetch and 2 postings", out)
	}
}
