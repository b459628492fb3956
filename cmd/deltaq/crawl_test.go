package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/eval/archive"
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

// openData opens the repository under the data directory with the
// default configuration, which it returns too.
func openData(t *testing.T, data string) (*configs.Config, *repo.DB) {
	t.Helper()
	cfg, err := configs.Load(configs.Sources{Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := repo.Open(filepath.Join(data, repoDir), cfg.Repo, repo.Options{})
	if err != nil {
		t.Fatalf("open the repository of %s: %v", data, err)
	}
	return cfg, db
}

// fetchedPages opens the repository and returns the URLs of live pages.
func fetchedPages(t *testing.T, data string) map[string]bool {
	t.Helper()
	_, db := openData(t, data)
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

func TestCrawlOfALoopbackSeedSaysWhyAndHowToAllowIt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>home</title><body>a page on loopback</body></html>")
	}))
	defer srv.Close()
	data := t.TempDir()
	out, _, err := run(t, "crawl", "--data", data, "--seeds", srv.URL+"/")
	host := strings.TrimPrefix(srv.URL, "http://")
	if err == nil {
		t.Fatalf("a crawl whose every seed was refused succeeded:\n%s", out)
	}
	for _, want := range []string{"address guard refused " + host, "loopback address", "--allow-private"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !strings.Contains(out, "left queued: 1 URLs (address refused 1)") {
		t.Errorf("summary does not say the seed is left queued, refused:\n%s", out)
	}
	// The queue and the host statistics show the seed waiting.
	out, _, err = run(t, "queue", "--data", data)
	if err != nil || !strings.Contains(out, "new    seed    "+srv.URL+"/") || !strings.Contains(out, "1 of 1 queued URLs shown") {
		t.Errorf("queue: %v\n%s", err, out)
	}
	out, _, err = run(t, "hosts", "--data", data)
	if err != nil || !regexp.MustCompile(regexp.QuoteMeta(host)+` +1 +0 +1 +0 +- +not fetched`).MatchString(out) {
		t.Errorf("hosts: %v\n%s", err, out)
	}
	// Following the advice fetches it: the seed stayed queued.
	out, _, err = run(t, "crawl", "--data", data, "--allow-private")
	if err != nil || !strings.Contains(out, "1 new") {
		t.Fatalf("crawl with --allow-private: %v\n%s", err, out)
	}
}

// TestCrawlWithAnEmptySeedsDoesNotResume: --seeds "" (or only commas and
// spaces) read as --seeds left out, and the crawl resumed the queue of
// the previous one. It is refused, and the queue is left as it was.
func TestCrawlWithAnEmptySeedsDoesNotResume(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>home</title><body>a page on loopback</body></html>")
	}))
	defer srv.Close()
	data := t.TempDir()
	// Without --allow-private the seed is refused and stays queued.
	if _, _, err := run(t, "crawl", "--data", data, "--seeds", srv.URL+"/"); err == nil {
		t.Fatal("the crawl of a loopback seed without --allow-private succeeded")
	}
	for _, seeds := range []string{"", " , ,"} {
		out, _, err := run(t, "crawl", "--data", data, "--allow-private", "--seeds", seeds)
		if want := fmt.Sprintf("--seeds %q: empty; give at least one URL, or leave --seeds out to resume", seeds); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("crawl --seeds %q: %v\n%s; want %q", seeds, err, out, want)
		}
	}
	if out, _, err := run(t, "queue", "--data", data); err != nil || !strings.Contains(out, "1 of 1 queued URLs shown") {
		t.Errorf("queue after the refused crawls: %v\n%s; want the seed still queued", err, out)
	}
	// A fresh directory: run resuming this queue would serve until the
	// test's end.
	if _, _, err := run(t, "run", "--data", t.TempDir(), "--seeds", ""); err == nil || !strings.Contains(err.Error(), `--seeds "": empty`) {
		t.Errorf("run --seeds \"\": %v, want it refused", err)
	}
}

// TestCrawlOfPagesThatAllFailBeforeAnAnswerFails: a host whose robots.txt
// answers but whose every page drops the connection gave the crawl
// nothing, and the crawl fails so, where it exited 0 because its failed
// requests counted as fetched: naming the host once it failed three times
// in a row (unreachable), saying how many requests failed before that.
func TestCrawlOfPagesThatAllFailBeforeAnAnswerFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	t.Setenv("DELTAQ_CRAWLER_LIMITS_MAX_RETRIES", "0")
	t.Setenv("DELTAQ_CRAWLER_POLITENESS_MIN_DELAY", "0s")
	t.Setenv("DELTAQ_CRAWLER_SITEMAPS", "false")
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []struct {
		seeds []string
		want  string
	}{
		{[]string{"/a", "/b", "/c"}, "nothing fetched: no answer from " + host},
		{[]string{"/a"}, "nothing fetched: no request got an HTTP answer (1 request failed before one)"},
	} {
		var seeds []string
		for _, s := range c.seeds {
			seeds = append(seeds, srv.URL+s)
		}
		out, _, err := run(t, "crawl", "--data", t.TempDir(), "--allow-private", "--seeds", strings.Join(seeds, ","))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("crawl of %d pages that dropped the connection: %v, want %q\n%s", len(seeds), err, c.want, out)
		}
		if want := fmt.Sprintf("network_error %d", len(seeds)); !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestCrawlOfAHostThatDoesNotAnswerFails: a crawl whose only host refuses
// connections fetches nothing, says why in its summary and its error, and
// exits nonzero, so that a script does not take it for an empty site; the
// seed stays queued.
func TestCrawlOfAHostThatDoesNotAnswerFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	data := t.TempDir()
	out, _, err := run(t, "crawl", "--data", data, "--allow-private", "--seeds", "http://"+addr+"/")
	if err == nil {
		t.Fatalf("a crawl that fetched nothing from a host that does not answer succeeded:\n%s", out)
	}
	for _, want := range []string{"nothing fetched: no answer from " + addr + ": ", "connection refused", "stay queued"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !strings.Contains(out, "unreachable: "+addr+": dial tcp "+addr) {
		t.Errorf("summary does not name the host and the error:\n%s", out)
	}
	// Resumed at once, the host is deferred and nothing is asked of it:
	// that fails too, rather than reading as a finished crawl.
	out, _, err = run(t, "crawl", "--data", data, "--allow-private")
	var waiting int
	if err == nil || !strings.Contains(err.Error(), "nothing fetched: the queue waits for hosts that did not answer for robots.txt") {
		t.Fatalf("the resumed crawl: %v\n%s, want it to fail naming the deferred hosts", err, out)
	}
	_, count, _ := strings.Cut(err.Error(), "(URLs waiting: ")
	if _, serr := fmt.Sscanf(count, "%d)", &waiting); serr != nil || waiting < 1 ||
		!strings.Contains(out, fmt.Sprintf("(robots.txt unreachable, host deferred %d)", waiting)) {
		t.Errorf("the resumed crawl: %v\n%s, want the URLs waiting counted as the summary counts them", err, out)
	}
	// The repository's own directory given as --data, one level too
	// deep, is refused: a second database would be made inside it.
	inner := filepath.Join(data, "repo")
	if _, _, err := run(t, "crawl", "--data", inner, "--allow-private", "--seeds", "http://"+addr+"/"); err == nil ||
		!strings.Contains(err.Error(), "--data "+inner+": is a repository itself; give the data directory that holds it ("+data+")") {
		t.Errorf("crawl --data %s: %v, want it refused", inner, err)
	}
	if _, err := os.Stat(filepath.Join(inner, "repo")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s/repo after the refusal: %v, want nothing made there", inner, err)
	}
}

// TestWebReplayPrintsTheCrawlCommandThatFitsIt runs the crawl command that
// `deltaq web replay` prints, as printed: it must reach the replay server
// and crawl all of week 0 (at the default politeness of 1 s per request it
// would take well over an hour; with the printed override it takes seconds).
func TestWebReplayPrintsTheCrawlCommandThatFitsIt(t *testing.T) {
	dir := datasets.Path(t, "archives", "tldr-en")
	ar, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	replayCmd := exec.Command(binary, "web", "replay", "--archive", dir, "--listen", "127.0.0.1:0", "--week", "0")
	stdout, err := replayCmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := replayCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { replayCmd.Process.Kill(); replayCmd.Wait() }()
	var command string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if c, ok := strings.CutPrefix(sc.Text(), "crawl it with: "); ok {
			command = c
			break
		}
	}
	if command == "" {
		t.Fatal("web replay printed no crawl command")
	}
	if !strings.Contains(command, "--politeness-overrides") {
		t.Errorf("the crawl command sets no politeness for the replayed host: %s", command)
	}
	args := shellWords(t, command)
	if args[0] != "deltaq" {
		t.Fatalf("command %q does not start with deltaq", command)
	}
	data := t.TempDir()
	for i, a := range args {
		if a == "DIR" {
			args[i] = data
		}
	}
	out, _, err := run(t, args[1:]...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	live := fetchedPages(t, data)
	if !live["http://tldr-en.test/sitemap.xml"] {
		t.Error("the replay's sitemap was not fetched")
	}
	// The archive's pages plus the sitemap the replay serves beside them.
	if got := len(live) - 1; got != ar.Len(0) {
		t.Errorf("the printed command's crawl stored %d live pages, want all %d of week 0\n%s", got, ar.Len(0), out)
	}
}

// shellWords splits a command line as a POSIX shell would for the quoting
// the printed commands use: spaces between words, '...' around one word.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

func TestCrawlExcludeFlagsKeepURLsOut(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<html><body><a href="/p1">1</a><a href="/p22">22</a><a href="/p333">333</a><a href="/q">q</a></body></html>`)
			return
		}
		fmt.Fprint(w, "<html><body>leaf</body></html>")
	}))
	defer srv.Close()
	// The second rule holds a comma: each repeated flag is one rule.
	out, _, err := run(t, "crawl", "--data", t.TempDir(), "--allow-private", "--politeness-overrides",
		"[{host: "+strings.TrimPrefix(srv.URL, "http://")+", min_delay: 0s, per_host: 1}]",
		"--exclude", `/q$`, "--exclude", `/p\d{2,3}$`, "--seeds", srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "excluded by URL rules 3") {
		t.Errorf("summary does not count 3 excluded URLs:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range paths {
		if p == "/q" || p == "/p22" || p == "/p333" {
			t.Errorf("excluded %s was fetched", p)
		}
	}
}

// TestAnInterruptedCrawlKeepsWhatItFetchedAndFails interrupts a crawl of a
// site larger than the time it is given: the pages fetched stay in the
// repository, and the command fails with the way to resume (exit 130 from
// main), where it used to exit 0 as if the crawl were done.
func TestAnInterruptedCrawlKeepsWhatItFetchedAndFails(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if served.Add(1) == 5 {
			cancel() // as Ctrl-C would, mid-crawl, with /p4 asked for
		}
		w.Header().Set("Content-Type", "text/html")
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p"))
		fmt.Fprintf(w, `<html><head><title>Page %d</title></head><body>Page %d of a long chain. <a href="/p%d">next</a></body></html>`, n, n, n+1)
	}))
	defer srv.Close()
	data := t.TempDir()
	var stdout, stderr strings.Builder
	root := newRootCmd(&stdout, &stderr)
	root.SetArgs([]string{"crawl", "--data", data, "--allow-private", "--politeness-overrides",
		"[{host: " + strings.TrimPrefix(srv.URL, "http://") + ", min_delay: 0s, per_host: 1}]",
		"--seeds", srv.URL + "/p0"})
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run again without --seeds, with --allow-private, --politeness-overrides as before, to resume") {
		t.Fatalf("interrupted crawl: err = %v, want the interruption and how to resume", err)
	}
	if kept := len(fetchedPages(t, data)); kept < 4 {
		t.Fatalf("%d pages kept after the interruption, want the 4 or more fetched before it", kept)
	}
}
