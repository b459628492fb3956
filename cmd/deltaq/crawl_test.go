package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/repo"
)

// TestCrawlSurvivesKill9 kills a real `deltaq crawl` with SIGKILL
// mid-crawl and restarts it: no page committed before the kill is lost or
// fetched again, and the second run completes the crawl.
func TestCrawlSurvivesKill9(t *testing.T) {
	a, rs := replaytest.Open(t, datasets.Path(t, "archives", "tldr-en"), replay.Options{Latency: time.Millisecond})
	var mu sync.Mutex
	phase := 1
	requests := map[int][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests[phase] = append(requests[phase], r.URL.Path)
		mu.Unlock()
		rs.ServeHTTP(w, r)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(cfgFile, []byte("crawler:\n  sitemaps: false\n  politeness:\n    overrides:\n      - {host: tldr-en.test, min_delay: 0s, per_host: 4}\n"), 0o644)
	data := filepath.Join(dir, "data")
	args := []string{"crawl", "--config", cfgFile, "--data", data, "--allow-private",
		"--resolve", "tldr-en.test=127.0.0.1:" + port}

	// Run 1: kill -9 once the crawl is well under way.
	cmd := exec.Command(binary, append(args, "--seeds", "http://tldr-en.test/")...)
	killtest.KillAfter(t, cmd, true, func(line string) (int, bool) {
		var n int
		_, err := fmt.Sscanf(line, "crawl: %d fetched", &n)
		return n, err == nil
	}, 1000)
	mu.Lock()
	phase = 2
	mu.Unlock()

	committed := fetchedPages(t, data)
	if len(committed) < 1000 {
		t.Fatalf("only %d pages committed before the kill", len(committed))
	}

	// Run 2: resume without seeds and finish.
	out, err := exec.Command(binary, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range requests[2] {
		if committed["http://tldr-en.test"+p] {
			t.Errorf("%s was committed before the kill but fetched again", p)
		}
	}
	final := fetchedPages(t, data)
	for u := range committed {
		if !final[u] {
			t.Errorf("%s committed before the kill is gone", u)
		}
	}
	if len(final) != a.Len(0) {
		t.Errorf("after the resumed crawl %d pages are live, want all %d of week 0", len(final), a.Len(0))
	}
	if !strings.Contains(string(out), "fetched") {
		t.Errorf("resumed crawl printed no summary:\n%s", out)
	}
}

// fetchedPages opens the repository and returns the URLs of live pages.
func fetchedPages(t *testing.T, data string) map[string]bool {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := repo.Open(filepath.Join(data, repoDir), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	out := map[string]bool{}
	for p, err := range db.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if p.State == repo.StateLive {
			out[p.URL] = true
		}
	}
	return out
}
