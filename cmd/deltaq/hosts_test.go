package main

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A host whose robots.txt could not be fetched is deferred for
// crawler.robots.error_defer; hosts says until when, and that robots.txt
// is why, rather than showing no back-off at all.
func TestHostsShowsTheRobotsDeferral(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" { // the connection drops: unreachable
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><title>home</title></html>"))
	}))
	defer srv.Close()
	data := t.TempDir()
	before := time.Now()
	// Nothing is fetched, so the crawl fails, naming the host.
	if out, _, err := run(t, "crawl", "--data", data, "--allow-private", "--seeds", srv.URL+"/"); err == nil ||
		!strings.Contains(err.Error(), "nothing fetched: no answer from "+strings.TrimPrefix(srv.URL, "http://")) || !strings.Contains(out, "(robots.txt unreachable, host deferred") {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	out, _, err := run(t, "hosts", "--data", data)
	host := strings.TrimPrefix(srv.URL, "http://")
	m := regexp.MustCompile(regexp.QuoteMeta(host) + ` .* unreachable +(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \(robots\.txt\) `).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("hosts: want %s unreachable, deferred until a time (robots.txt): %v\n%s", host, err, out)
	}
	until, err := time.ParseInLocation(time.DateTime, m[1], time.Local)
	if err != nil {
		t.Fatal(err)
	}
	// crawler.robots.error_defer is 1h by default; the listing shows whole seconds.
	if until.Before(before.Add(time.Hour).Truncate(time.Second)) || until.After(time.Now().Add(time.Hour)) {
		t.Errorf("deferred until %s, want an hour after the crawl (%s)", until, before)
	}
	// The queue shows the seed waiting until then, for its host, not due
	// at a time already past.
	out, _, err = run(t, "queue", "--data", data)
	if want := m[1] + " (host: robots.txt)"; err != nil || !strings.Contains(out, want) || !strings.Contains(out, srv.URL+"/") {
		t.Errorf("queue: %v\n%s\nwant the seed due %s", err, out, want)
	}
}
