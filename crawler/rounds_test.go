package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/internal/clock"
)

// Two pages queued in the order a, b both link x; a answers only once b's
// result has committed (or, as a round waits for a's, after a while), so
// committed as results come, b would admit x and be its source.
// Committed in rounds, in queue order, a is, whatever the order the
// fetches ended in.
func TestRoundsCommitInQueueOrder(t *testing.T) {
	bCommitted := make(chan struct{})
	page := func(links ...string) string {
		b := "<html><head><title>t</title></head><body><p>words</p>"
		for _, l := range links {
			b += fmt.Sprintf(`<a href="%s">%s</a>`, l, l)
		}
		return b + "</body></html>"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, page("/a", "/b"))
		case "/a":
			select {
			case <-bCommitted:
			case <-time.After(300 * time.Millisecond):
			}
			fmt.Fprint(w, page("/x"))
		case "/b":
			fmt.Fprint(w, page("/x"))
		case "/x":
			fmt.Fprint(w, page())
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cfg := defaults(t)
	loopback(cfg, srv, "r.test")
	unpolite(cfg, 4, "r.test")
	var once sync.Once
	e := newEnvWith(t, cfg, t.TempDir(), crawler.Options{Clock: clock.Real{}, OnFetched: func(urls []string) {
		if slices.Contains(urls, "http://r.test/b") {
			once.Do(func() { close(bCommitted) })
		}
	}})
	if _, err := e.c.Seed(context.Background(), e.f, []string{"http://r.test/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.c.Run(ctx, e.f, crawler.RunOptions{Drain: true, Rounds: true}); err != nil {
		t.Fatal(err)
	}
	x, err := e.db.Page("http://r.test/x")
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://r.test/a"; x.Source != want {
		t.Errorf("x admitted from %s, want %s, the first in the queue", x.Source, want)
	}
}
