package crawler_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostWeb serves a home page linking to n pages; broken says which of
// them answer a malformed response (a protocol error, no HTTP answer).
func hostWeb(n int, broken func(i int) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><title>home</title><body>")
			for i := range n {
				fmt.Fprintf(w, `<a href="/p%d">page %d</a> `, i, i)
			}
			return
		case strings.HasPrefix(r.URL.Path, "/p"):
			if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil {
				http.NotFound(w, r)
				return
			}
		default:
			http.NotFound(w, r)
			return
		}
		if broken(i) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err == nil {
				buf.WriteString("NOT HTTP AT ALL\r\n\r\n")
				buf.Flush()
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><title>page %d</title><body>text of page %d</body></html>", i, i)
	})
}

// TestUnreachableIsAHostThatDoesNotAnswer: the summary names a host as
// unreachable when it never answered, or when its latest attempts all
// failed before an answer; not a host that answered its pages but one,
// whose failed page is retried as any page's is.
func TestUnreachableIsAHostThatDoesNotAnswer(t *testing.T) {
	const pages = 12
	oneBad := httptest.NewServer(hostWeb(pages, func(i int) bool { return i == 0 }))
	defer oneBad.Close()
	wentDown := httptest.NewServer(hostWeb(pages, func(int) bool { return true }))
	defer wentDown.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	silent := ln.Addr().String()
	ln.Close() // nothing listens there: connections are refused

	cfg := defaults(t)
	cfg.Crawler.AllowPrivate = true
	cfg.Crawler.Sitemaps = false
	cfg.Crawler.Politeness.MinDelay = 0
	e := newEnv(t, cfg, t.TempDir(), nil)
	sum := e.crawl(t, oneBad.URL+"/", wentDown.URL+"/", "http://"+silent+"/")
	t.Logf("%s", sum)

	host := func(u string) string { return strings.TrimPrefix(u, "http://") }
	if why, ok := sum.Unreachable[host(oneBad.URL)]; ok {
		t.Errorf("a host that answered %d of its %d pages is named unreachable (%s)", pages, pages+1, why)
	}
	if why, ok := sum.Unreachable[host(wentDown.URL)]; !ok || !strings.Contains(why, "malformed HTTP") {
		t.Errorf("a host whose every page after the first failed: unreachable %v (%q), want it named with its error", ok, why)
	}
	if why, ok := sum.Unreachable[silent]; !ok || !strings.Contains(why, "connection refused") {
		t.Errorf("a host that never answered: unreachable %v (%q), want it named with its error", ok, why)
	}
	if !strings.Contains(sum.String(), "unreachable: ") || strings.Contains(sum.String(), host(oneBad.URL)+": ") {
		t.Errorf("summary:\n%s\nwant the unreachable hosts named, and only them", sum)
	}
}
