package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlSeedsARunningCrawl starts deltaq run on one site, then hands
// it a seed of another through its admin listener: the running crawl
// fetches it and search finds it. A seed it cannot crawl is refused,
// naming the URL.
func TestCrawlSeedsARunningCrawl(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fruit := map[string]string{"apples.test": "apples", "bananas.test": "bananas"}[r.Host]
		if fruit == "" || r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>All about %s</title></head><body><p>Fresh %s every day.</p></body></html>", fruit, fruit)
	}))
	defer site.Close()
	_, port, _ := net.SplitHostPort(site.Listener.Addr().String())
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "run.yaml")
	cfg := fmt.Sprintf("crawler:\n  allow_private: true\n  resolve: [\"apples.test=127.0.0.1:%s\", \"bananas.test=127.0.0.1:%s\"]\nserver:\n  admin:\n    listen: 127.0.0.1:0\n", port, port)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "--data", filepath.Join(dir, "data"), "--config", cfgFile, "--seeds", "http://apples.test/",
		"--listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Stderr = logFile(t, dir, "run.log")
	proc := startServeProc(t, cmd)
	finds := func(q string) func() bool {
		return func() bool { return len(proc.search(t, q).Results) > 0 }
	}
	waitUntil(t, "the running crawl's seed searchable", finds("apples"))
	out, _, err := run(t, "crawl", "--server", proc.adminBase(t), "--seeds", "http://bananas.test/")
	if err != nil || !strings.Contains(out, "1 of 1 seeds new") {
		t.Fatalf("crawl --server: %v\n%s", err, out)
	}
	waitUntil(t, "the seed given to the running crawl searchable", finds("bananas"))
	if _, _, err := run(t, "crawl", "--server", proc.adminBase(t), "--seeds", "ftp://bananas.test/"); err == nil || !strings.Contains(err.Error(), `urls "ftp://bananas.test/"`) {
		t.Errorf("an ftp seed: %v, want it refused naming the URL", err)
	}
	if _, _, err := run(t, "crawl", "--server", proc.base, "--seeds", "http://bananas.test/"); err == nil || !strings.Contains(err.Error(), "admin listener") {
		t.Errorf("seeding through the public listener: %v, want a pointer to the admin listener", err)
	}
	if _, _, err := run(t, "crawl", "--server", proc.adminBase(t)); err == nil || !strings.Contains(err.Error(), "--seeds") {
		t.Errorf("crawl --server without seeds: %v", err)
	}
	if _, _, err := run(t, "crawl", "--server", proc.adminBase(t), "--data", t.TempDir(), "--seeds", "http://bananas.test/"); !errors.Is(err, errDataAndServer) {
		t.Errorf("crawl --server --data: %v, want one or the other", err)
	}
}

// The flags that shape a crawl in this process are refused with --server,
// before any request, rather than ignored.
func TestCrawlThroughServerRefusesTheLocalCrawlsFlags(t *testing.T) {
	for _, flag := range [][]string{{"--max-pages", "5"}, {"--include", "^http://a"}, {"--resolve", "a.test=127.0.0.1:1"}, {"--allow-private"}} {
		args := append([]string{"crawl", "--server", "http://127.0.0.1:1", "--seeds", "http://a.test/"}, flag...)
		_, _, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), flag[0]+" with --server") {
			t.Errorf("crawl --server %s: %v, want it refused naming the flag", strings.Join(flag, " "), err)
		}
	}
}
